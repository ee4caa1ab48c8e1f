/**
 * One engine per data folder. Two engines on one SQLite log would both schedule the same due
 * deliveries and send every webhook twice (the desktop app and `hookbench serve` share the folder
 * on macOS and Windows). A lock file holding the owner's pid; a lock whose process is gone (kill -9)
 * is stale and taken over, so a crash never locks the user out.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'hookbench.lock';

export class DataDirLockedError extends Error {
  readonly code = 'data_dir_locked';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`another Hookbench (pid ${pid}) is using the data folder ${dataDir}; stop it first, or give this one another --data-dir`);
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the folder's lock for this process, or throws DataDirLockedError naming the owner; returns the release function. */
export function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, LOCK_FILE);
  for (let tries = 0; tries < 3; tries++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = ownerOf(path);
      if (owner !== null && isAlive(owner)) throw new DataDirLockedError(dataDir, owner);
      // Stale (its process is gone) or half-written: remove it and try again.
      try {
        unlinkSync(path);
      } catch {
        // Another starter removed it first; the next openSync decides.
      }
      continue;
    }
    writeSync(fd, String(process.pid));
    closeSync(fd);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (ownerOf(path) === process.pid) unlinkSync(path);
    };
  }
  throw new Error(`could not take the lock ${path}: it keeps reappearing`);
}
