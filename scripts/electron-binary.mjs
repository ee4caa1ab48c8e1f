// Where electron's install script put the binary, or null. Reads what electron's own index.js
// would, without its side effect: since Electron 45, requiring the package starts a download of
// the binary when it is missing. Shared by `npm start` and the desktop app's test.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function electronBinary() {
  try {
    const dir = dirname(require.resolve('electron/package.json'));
    const pathFile = join(dir, 'path.txt');
    if (!existsSync(pathFile)) return null;
    const binary = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(dir, 'dist'), readFileSync(pathFile, 'utf8'));
    return existsSync(binary) ? binary : null;
  } catch {
    return null;
  }
}
