import Database from 'better-sqlite3';
import { registerBodyFunctions } from './body-pack';
import { MIGRATIONS } from './schema';

export type Db = Database.Database;

/**
 * The WAL file's size after each start over (journal_size_limit): above the inline checkpoint's
 * 16 MB, so that under heavy writes the file is not cut back and grown again at every start over,
 * an ftruncate on the engine's thread each time (docs/latency.md, change 13). A quiet log's WAL is
 * cut to nothing (checkpointer.ts).
 */
const WAL_SIZE_LIMIT_BYTES = 32 * 1024 * 1024;
/** Up to this much data, a file still without incremental vacuum is rewritten with it at start-up (well under a second). */
export const VACUUM_AT_START_MAX_BYTES = 64 * 1024 * 1024;

export interface OpenOptions {
  /** Path to a better_sqlite3.node built for the running ABI (Electron ships its own). */
  nativeBinding?: string;
  /** How long a write waits for a lock held by another connection before failing with SQLITE_BUSY. */
  busyTimeoutMs?: number;
}

/**
 * SQLite waits for a lock by sleeping on the calling thread: on the engine's connection that is
 * the event loop, so every HTTP call (health checks included) waits with it. A short wait rides
 * out a checkpoint or a backup's brief lock; a longer one makes the engine degraded instead.
 */
export const BUSY_TIMEOUT_MS = 250;

/** Opens (creating if needed) the log at path and brings its schema up to date. */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const db = new Database(path, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  // Free pages go back to the file system only in this mode (retention releases them in slices);
  // it takes effect here for a new file, and through useIncrementalVacuum() for an older one.
  // Only asked of an empty file: on an existing one the pragma wants the write lock, and a start
  // while another program holds it must come up degraded, not fail.
  if ((db.pragma('page_count', { simple: true }) as number) === 0) db.pragma('auto_vacuum = INCREMENTAL');
  // WAL lets readers page the log while the ingest writes; NORMAL keeps every commit across a
  // process crash (what "acknowledged" promises) without an fsync per request.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Checkpoints normally run on the checkpointer thread (checkpointer.ts). Under a steady stream of
  // commits its PASSIVE rounds never see the WAL fully copied, so the WAL never starts over and
  // grows without bound; this inline one (about 16 MB) then finishes the job on the main thread,
  // with most frames already copied by the worker, and the next commit starts the WAL over.
  db.pragma('wal_autocheckpoint = 4096');
  // Without it the WAL file keeps its high-water size for ever once a burst (a migration, a huge
  // transaction) has grown it: after each complete checkpoint the next writer cuts it back to this.
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? BUSY_TIMEOUT_MS}`);
  registerBodyFunctions(db);
  migrate(db);
  return db;
}

export type VacuumMode = 'incremental' | 'converted' | 'too_big';

/**
 * Files made before retention have auto_vacuum NONE: deleting rows leaves free pages inside the
 * file, which never shrinks. Switching needs one full VACUUM (a rewrite of the used pages, holding
 * the write lock), done here while nothing else runs, and only when the data is small enough;
 * a bigger file keeps its size (retention reuses its free pages) until a start finds it small.
 */
export function useIncrementalVacuum(db: Db, maxBytes = VACUUM_AT_START_MAX_BYTES): VacuumMode {
  if ((db.pragma('auto_vacuum', { simple: true }) as number) === 2) return 'incremental';
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const used = ((db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number)) * pageSize;
  if (used > maxBytes) return 'too_big';
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)');
  return 'converted';
}

/**
 * Cuts the WAL file back to nothing when no one is using it, without waiting: busy means another
 * time. Call it between tasks, never inside a transaction. True when it was cut.
 */
export function truncateWal(db: Db): boolean {
  if (!db.open) return false;
  const previous = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return r?.busy === 0;
  } catch {
    return false;
  } finally {
    db.pragma(`busy_timeout = ${previous}`);
  }
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `the data file was written by a newer Hookbench (schema ${current}; this build knows ${MIGRATIONS.length})`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}

/**
 * A second connection to a log the engine has open, for reading only (the read worker's): WAL lets
 * it read while the engine writes. It never migrates; the engine's connection did that before.
 */
export function openReadOnly(path: string, options: OpenOptions = {}): Db {
  const db = new Database(path, { readonly: true, fileMustExist: true, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
  // Off the engine's thread a wait for a lock stalls no one; a reader rarely meets one in WAL mode.
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 1_000}`);
  // The Deliveries view asks the same count again every 500 ms while a filter is on: with the
  // pages it read last time still in the connection's own cache, a text count through the index
  // checks its candidates about a third faster (10M: 32 to 23 ms to reach 10,001 "Completed").
  db.pragma(`cache_size = -${READ_CACHE_KIB}`);
  registerBodyFunctions(db);
  return db;
}

/** The read connection's page cache, in KiB (SQLite's default is 2,000): memory only it uses, filled as it reads. */
export const READ_CACHE_KIB = 65_536;

/**
 * Runs fn (which may await) inside one read transaction, so every statement it runs sees the same
 * snapshot: what was committed when its first statement ran, and nothing committed after. Only for
 * a connection nothing else uses meanwhile (the read worker's, one call at a time).
 */
export async function inReadSnapshot<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  db.exec('BEGIN');
  try {
    return await fn();
  } finally {
    if (db.inTransaction) db.exec('COMMIT');
  }
}

/**
 * Runs fn in a write transaction: its own, or the caller's when one is open, without a savepoint.
 * SQLite keeps a savepoint's original pages in a statement journal that goes to a temporary file
 * once it passes 64 KiB; a commit of 50 messages passed it every time, and those writes took about
 * a third of ingest's rate (docs/latency.md, change 14). So a caller that lets fn join its
 * transaction must roll the whole of it back when fn throws: nothing fn wrote is undone alone.
 */
export function joinTransaction<T>(db: Db, fn: () => T): T {
  return db.inTransaction ? fn() : db.transaction(fn)();
}
