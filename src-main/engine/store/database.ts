import Database from 'better-sqlite3';
import { MIGRATIONS } from './schema';

export type Db = Database.Database;

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
  // WAL lets readers page the log while the ingest writes; NORMAL keeps every commit across a
  // process crash (what "acknowledged" promises) without an fsync per request.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Checkpoints normally run on the checkpointer thread (checkpointer.ts); this inline one is only
  // a safety net should that thread fall behind, bounding the WAL to about 200 MB.
  db.pragma('wal_autocheckpoint = 50000');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? BUSY_TIMEOUT_MS}`);
  migrate(db);
  return db;
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
