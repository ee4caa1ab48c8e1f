#!/usr/bin/env node
// `npm start`: the desktop app when an Electron binary is installed, otherwise headless mode with
// the browser URL. Electron's binary cannot always be downloaded (build machines, CI), and a clear
// fallback beats a crash.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { BINDING, STAMP, targetOf } from './rebuild-electron-sqlite.mjs';
import { electronBinary } from './electron-binary.mjs';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);

/** Newest modification time of the files under these folders (the sources the build reads). */
function newestSource(dirs) {
  let newest = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of dirs) walk(join(root, dir));
  return newest;
}

// The UI is served from out/: build it on the first start so `npm install && npm start` is enough,
// and again when the sources changed since (after a git pull), so an old UI is never served.
function ensureBuilt() {
  const outputs = ['out/renderer/index.html', 'out/main/main.js', 'out/preload/preload.cjs'].map((p) => join(root, p));
  const ready = outputs.every((p) => existsSync(p));
  if (ready && Math.min(...outputs.map((p) => statSync(p).mtimeMs)) >= newestSource(['src-renderer', 'src-shared', 'src-main'])) return true;
  console.error(ready ? 'hookbench: the sources changed since the last build; building the app (electron-vite build)…' : 'hookbench: building the app once (electron-vite build)…');
  const cli = join(root, 'node_modules/electron-vite/bin/electron-vite.js');
  const r = spawnSync(process.execPath, [cli, 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) console.error('hookbench: the build failed; headless mode still serves the Tracking API');
  return r.status === 0;
}

// The app loads better-sqlite3 built for Electron's ABI (node_modules keeps the Node build for the
// tests): build it once, and again after an Electron upgrade.
function ensureElectronSqlite() {
  let wanted;
  try {
    wanted = targetOf(require('electron/package.json').version);
  } catch {
    return false;
  }
  const current = existsSync(BINDING) && existsSync(STAMP) ? readFileSync(STAMP, 'utf8').trim() : null;
  if (current === wanted) return true;
  const script = join(root, 'scripts/rebuild-electron-sqlite.mjs');
  const r = spawnSync(process.execPath, [script], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  return r.status === 0;
}

const binary = electronBinary();
const built = ensureBuilt();
const sqlite = Boolean(binary && built && ensureElectronSqlite());
let child;
if (binary && built && sqlite) {
  child = spawn(binary, ['.'], { cwd: root, stdio: 'inherit' });
} else {
  const why = !binary
    ? 'no Electron binary is installed on this machine'
    : !built
      ? 'the desktop build is missing (run npm run build)'
      : 'better-sqlite3 could not be built for Electron (see above; retry with npm run rebuild:electron-sqlite)';
  console.error(`hookbench: ${why}; starting headless mode instead — open the URL below in a browser.`);
  child = spawn(process.execPath, ['bin/hookbench.mjs', 'serve', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
