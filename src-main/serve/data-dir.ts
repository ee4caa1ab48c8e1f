import { homedir } from 'node:os';
import { join } from 'node:path';

/** The user's data folder, where Electron's app.getPath('userData') would also put it. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Hookbench');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Hookbench');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'hookbench');
}
