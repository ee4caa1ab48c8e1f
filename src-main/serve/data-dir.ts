import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The user's data folder. On macOS and Windows it is the desktop app's userData folder too, so
 * both see one log (the data-folder lock keeps them from running on it at once); on Linux the
 * desktop app keeps its data in ~/.config/Hookbench instead.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Hookbench');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Hookbench');
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'hookbench');
}
