import type { Db } from './database';
import { storageFaultCode } from './storage-fault';

/**
 * Group commit: writes queued in the same turn of the event loop (concurrent ingest requests) run
 * in one SQLite transaction, each inside its own savepoint so that one failing write rolls back
 * alone. Every caller's promise settles only after the shared transaction has committed, so an
 * acknowledgement still means "on disk".
 */
export function createGroupCommit(db: Db): <T>(write: () => T) => Promise<T> {
  let queue: { write: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  const flush = (): void => {
    const batch = queue;
    queue = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      db.transaction(() => {
        for (const item of batch) {
          try {
            // A db.transaction() inside a transaction is a savepoint in better-sqlite3.
            outcomes.push({ ok: true, value: db.transaction(item.write)() });
          } catch (error) {
            // A machine fault (disk full, I/O error) may have rolled back the whole transaction
            // under the savepoint: the batch fails together, and no caller is told "committed".
            if (storageFaultCode(error) !== null) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    });
  };
  return <T>(write: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ write, resolve: resolve as (v: unknown) => void, reject });
    });
}
