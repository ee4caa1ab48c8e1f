/**
 * The data folder holds shared secrets, write keys and every payload, so it is for its owner only:
 * the folder 0700, its files 0600, whatever the umask, and tightened at start when an earlier
 * version (or a hand-made folder) left them looser. chmod by path only, never open-and-close: closing
 * any descriptor of a file drops the fcntl locks this process holds on it.
 */
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the folder if needed and makes it private. */
export function preparePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

function tighten(path: string): void {
  try {
    chmodSync(path, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/**
 * Makes a SQLite database and its companions private before it is opened. A new database file is
 * created 0600 here, since SQLite creates its -wal and -shm with the mode of the database file.
 */
export function preparePrivateDatabase(path: string): void {
  try {
    writeFileSync(path, '', { flag: 'wx', mode: PRIVATE_FILE_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) tighten(file);
}


/**
 * Writes a small file readable by its owner only, whole or not at all: a reader never sees it
 * half-written, and a crash leaves the old one in place.
 */
export function writePrivateFile(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, { mode: PRIVATE_FILE_MODE, flag: 'w' });
    chmodSync(temp, PRIVATE_FILE_MODE);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** Makes an existing file private again (a copy or an older version may have left it looser). */
export function tightenPrivateFile(path: string): void {
  tighten(path);
}
