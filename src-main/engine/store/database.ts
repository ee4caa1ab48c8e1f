import Database from 'better-sqlite3';
import { MIGRATIONS } from './schema';

export type Db = Database.Database;

export interface OpenOptions {
  /** Path to a better_sqlite3.node built for the running ABI (Electron ships its own). */
  nativeBinding?: string;
}

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
  db.pragma('busy_timeout = 5000');
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
