import { homedir } from 'node:os';
import { join, posix, win32 } from 'node:path';

/**
 * A base folder from the environment, or undefined when unset. Empty counts as unset, and so does a
 * relative path (the XDG rule): either would put the data under whatever folder the command ran in.
 */
function baseFrom(value: string | undefined, platform: NodeJS.Platform): string | undefined {
  const isAbsolute = platform === 'win32' ? win32.isAbsolute : posix.isAbsolute;
  return value !== undefined && value !== '' && isAbsolute(value) ? value : undefined;
}

/**
 * The user's data folder. On macOS and Windows it is the desktop app's userData folder too, so
 * both see one log (the data-folder lock keeps them from running on it at once); on Linux the
 * desktop app keeps its data in ~/.config/Hookbench instead.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (platform === 'win32') return join(baseFrom(env.APPDATA, platform) ?? join(homedir(), 'AppData', 'Roaming'), 'Hookbench');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Hookbench');
  return join(baseFrom(env.XDG_DATA_HOME, platform) ?? join(homedir(), '.local', 'share'), 'hookbench');
}
