import { statfsSync } from 'node:fs';
import type { Db } from './database';
import { statement } from './statements';

/** Below this much free space the disk counts as full, even if SQLite could still squeeze a small write into its WAL. */
export const MIN_FREE_BYTES = 1024 * 1024;

export interface StorageProbe {
  /**
   * Throws the storage error that stops a write now (a lock, a full disk, an I/O error), or
   * returns. waitMs bounds the wait for a lock (0: fail at once, the probe simply runs again later).
   */
  check(now: number, waitMs: number): void;
}

function diskFull(folder: string, free: number): Error {
  return Object.assign(new Error(`${free} bytes free in ${folder}; Hookbench needs at least ${MIN_FREE_BYTES}`), { code: 'ENOSPC' });
}

/**
 * A small real write (one settings row, committed) plus a look at the free space. It answers "can
 * the log take writes again?" without waiting for the next ingest call or delivery to try.
 */
export function createStorageProbe(db: Db, dataDir: string, minFreeBytes = MIN_FREE_BYTES): StorageProbe {
  const write = statement(
    db,
    `INSERT INTO settings (key, value) VALUES ('storage.probe', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
  );
  const probe = db.transaction((at: string) => write.run(at));
  return {
    check(now, waitMs) {
      const fs = statfsSync(dataDir);
      const free = Number(fs.bavail) * Number(fs.bsize);
      if (free < minFreeBytes) throw diskFull(dataDir, free);
      const usual = db.pragma('busy_timeout', { simple: true }) as number;
      db.pragma(`busy_timeout = ${waitMs}`);
      try {
        probe.immediate(new Date(now).toISOString());
      } finally {
        db.pragma(`busy_timeout = ${usual}`);
      }
    },
  };
}
