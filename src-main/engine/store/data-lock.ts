/**
 * One engine per data folder. Two engines on one SQLite log would both schedule the same due
 * deliveries and send every webhook twice (the desktop app and `hookbench serve` share the folder
 * on macOS and Windows).
 *
 * The lock is held by the kernel, not inferred from a pid: `hookbench.lock` is a small SQLite file
 * that the owner opens in `locking_mode = EXCLUSIVE` and writes once, so its connection keeps the
 * file's write lock (fcntl on Unix, LockFileEx on Windows) until it closes. Taking such a lock is
 * atomic, so simultaneous starts get exactly one owner; and the kernel drops it the instant the
 * owner dies (kill -9, a zombie not yet reaped), so a crash never locks the user out and nothing has
 * to judge whether a pid is stale. SQLite also makes two connections of one process exclude each
 * other, which plain fcntl locks would not. The lock file is never deleted: removing a lock file
 * that others may have open is what lets two processes each lock a different inode.
 *
 * `hookbench.pid` beside it names the owner in the refusal. It never grants the lock; it only tells
 * a held lock (a live owner named: refuse) from a race between starters (try again).
 */
import { chmodSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { statement } from './statements';

export const LOCK_FILE = 'hookbench.lock';
export const PID_FILE = 'hookbench.pid';

/**
 * How long a start keeps trying while the lock is busy and no live owner is named. Starters racing
 * each other can all be refused at once (each holds SQLite's shared lock while asking for the
 * exclusive one), and a new owner writes its pid a moment after locking; both pass within
 * milliseconds.
 */
const CONTENTION_WAIT_MS = 2_000;

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

export interface LockOptions {
  /** better_sqlite3.node for the running ABI (Electron), as the engine's own database uses. */
  nativeBinding?: string;
}

function sqliteCode(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

const isBusy = (err: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(err));

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function readPid(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** A zombie (killed, not yet reaped by its parent) holds no lock, so it counts as dead. */
function isZombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').startsWith('Z');
  } catch {
    // No /proc (macOS, Windows), or the process is gone already.
    return false;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** The owner the pid file names, if that process is alive. */
function liveOwner(dataDir: string): number | null {
  const pid = readPid(join(dataDir, PID_FILE));
  return pid !== null && isAlive(pid) ? pid : null;
}

function writePidFile(dataDir: string): void {
  const path = join(dataDir, PID_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, String(process.pid), { mode: 0o600 });
  // Renamed into place, so a reader sees the old pid or the new one, never an empty file.
  renameSync(temp, path);
}

/**
 * A lock file written by an older Hookbench held the owner's pid as text, and SQLite would take a
 * file that short for an empty database. If that pid is alive, the older Hookbench owns the folder.
 * Only a file under 100 bytes is read: a lock file of ours is a whole page, and opening (then
 * closing) a file this process has SQLite-locked would drop that lock.
 */
function legacyOwner(path: string): number | null {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size === 0 || size >= 100) return null;
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
  const pid = /^\d+$/.test(text) ? Number.parseInt(text, 10) : null;
  return pid !== null && pid !== process.pid && isAlive(pid) ? pid : null;
}

function tryLock(path: string, options: LockOptions): Database.Database | 'busy' {
  // timeout 0: a held lock is an answer, not something to wait for.
  const db = new Database(path, { timeout: 0, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
  try {
    chmodSync(path, 0o600);
    // No journal file: the one write below only has to take the lock, not survive a crash.
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    // In exclusive locking mode the first write's lock is kept until the connection closes.
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL)');
    statement(db, 'DELETE FROM owner').run();
    statement(db, 'INSERT INTO owner (pid) VALUES (?)').run(process.pid);
    db.exec('COMMIT');
    return db;
  } catch (err) {
    db.close();
    if (isBusy(err)) return 'busy';
    throw err;
  }
}

/** Takes the folder's lock for this process, or throws DataDirLockedError naming the owner; returns the release function. */
export function lockDataDir(dataDir: string, options: LockOptions = {}): () => void {
  const path = join(dataDir, LOCK_FILE);
  const legacy = legacyOwner(path);
  if (legacy !== null) throw new DataDirLockedError(dataDir, legacy);
  const deadline = Date.now() + CONTENTION_WAIT_MS;
  let held: Database.Database | 'busy';
  for (;;) {
    try {
      held = tryLock(path, options);
    } catch (err) {
      if (sqliteCode(err) !== 'SQLITE_NOTADB') throw err;
      // Not a database and not a live legacy lock: a stray file, replaced by a lock of ours.
      unlinkSync(path);
      continue;
    }
    if (held !== 'busy') break;
    // Busy and a live process named: that is the owner. Otherwise a race or a fresh owner that has
    // not written its pid yet: try again after a random pause, so racing starters fall out of step.
    const owner = liveOwner(dataDir);
    if (owner !== null) throw new DataDirLockedError(dataDir, owner);
    // 0 only if no owner ever named itself (a foreign process holding the file).
    if (Date.now() >= deadline) throw new DataDirLockedError(dataDir, readPid(join(dataDir, PID_FILE)) ?? 0);
    sleepSync(2 + Math.random() * 8);
  }
  const lock = held;
  writePidFile(dataDir);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    // The pid file goes first, while the lock still keeps the next owner from writing its own.
    try {
      unlinkSync(join(dataDir, PID_FILE));
    } catch {
      // Already gone: it only ever names the owner.
    }
    lock.close();
  };
}
