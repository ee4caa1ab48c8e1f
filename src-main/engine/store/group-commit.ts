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
 * in one SQLite transaction. Every caller's promise settles only after the shared transaction has
 * committed, so an acknowledgement still means "on disk". A write's weight is the number of
 * messages it carries; one transaction takes at most maxWeight of them (writesInNextCommit).
 *
 * The writes share the transaction without a savepoint each (database.ts, joinTransaction: a
 * savepoint's journal cost a third of ingest). So when one throws, the whole transaction rolls
 * back and each write of the batch runs again in a transaction of its own: the failing one fails
 * alone, the others commit. A write must therefore be safe to run twice when the first run was
 * rolled back, which a write whose only effects are its statements is.
 */
export function createGroupCommit(db: Db, options: { maxWeight?: number } = {}): GroupCommit {
  const maxWeight = options.maxWeight ?? MAX_MESSAGES_PER_COMMIT;
  let queue: QueuedWrite[] = [];
  const flush = (): void => {
    const taken = writesInNextCommit(
      queue.map((item) => item.weight),
      maxWeight,
    );
    const batch = queue.slice(0, taken);
    queue = queue.slice(taken);
    if (queue.length > 0) setImmediate(flush);
    let values: unknown[];
    try {
      values = db.transaction(() => batch.map((item) => item.write()))();
    } catch (error) {
      // A machine fault (disk full, I/O error) fails the batch together: no caller is told "committed".
      // A batch of one has already run alone.
      if (storageFaultCode(error) !== null || batch.length === 1) {
        for (const item of batch) item.reject(error);
        return;
      }
      for (const item of batch) commitAlone(db, item);
      return;
    }
    batch.forEach((item, i) => item.resolve(values[i]));
  };
  return <T>(write: () => T, weight = 1): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ write, weight, resolve: resolve as (v: unknown) => void, reject });
    });
}

interface QueuedWrite {
  write: () => unknown;
  weight: number;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

function commitAlone(db: Db, item: QueuedWrite): void {
  let value: unknown;
  try {
    value = db.transaction(item.write)();
  } catch (error) {
    item.reject(error);
    return;
  }
  item.resolve(value);
}
