import type { Db } from './database';
import { storageFaultCode } from './storage-fault';

/**
 * Messages one shared transaction takes at most. Requests queued behind a stall would otherwise
 * commit as one long transaction, and the first of them would wait for the last before it is
 * acknowledged and its deliveries claimed; past this many the rest commit in the next turn of the
 * event loop, after the scheduler has started what the first ones made due. A count, not a time
 * budget: a wall-clock budget cuts transactions short whenever the machine is slow for another
 * reason, and then pays the per-transaction cost more often exactly when it can least afford it.
 */
export const MAX_MESSAGES_PER_COMMIT = 50;

/**
 * How many of the queued writes (their weights, oldest first) the next transaction takes: whole
 * writes while their total stays within maxWeight, and always at least one, however heavy.
 */
export function writesInNextCommit(weights: readonly number[], maxWeight: number): number {
  let total = 0;
  let taken = 0;
  for (const weight of weights) {
    if (taken > 0 && total + weight > maxWeight) break;
    total += weight;
    taken++;
  }
  return taken;
}

export type GroupCommit = <T>(write: () => T, weight?: number) => Promise<T>;

/**
 * Group commit: writes queued in the same turn of the event loop (concurrent ingest requests) run
 * in one SQLite transaction, each inside its own savepoint so that one failing write rolls back
 * alone. Every caller's promise settles only after the shared transaction has committed, so an
 * acknowledgement still means "on disk". A write's weight is the number of messages it carries;
 * one transaction takes at most maxWeight of them (writesInNextCommit).
 */
export function createGroupCommit(db: Db, options: { maxWeight?: number } = {}): GroupCommit {
  const maxWeight = options.maxWeight ?? MAX_MESSAGES_PER_COMMIT;
  let queue: { write: () => unknown; weight: number; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  const flush = (): void => {
    const taken = writesInNextCommit(
      queue.map((item) => item.weight),
      maxWeight,
    );
    const batch = queue.slice(0, taken);
    queue = queue.slice(taken);
    if (queue.length > 0) setImmediate(flush);
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
  return <T>(write: () => T, weight = 1): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ write, weight, resolve: resolve as (v: unknown) => void, reject });
    });
}
