/**
 * "Replay failed in this filter": pages through the failed deliveries the current
 * filter lets through, newest first, and replays each as it was, one call at a time so that Cancel
 * stops after the call in flight. An original replayed before is left alone unless includeReplayed
 * is set: the page leaves it out, and the engine refuses it (unlessReplayed) should another window
 * replay it meanwhile. Takes the transport's call, so tests drive it over a real engine.
 */
import { MAX_PAGE_LIMIT, type DeliveryCounts, type DeliveryFilter, type DeliverySummary, type PageResult } from '../../../src-shared/api';
import type { Transport } from '../../transport';
import { ApiCallError } from '../../api-error';
import { filterParams } from './rows';

export interface BulkProgress {
  /** Deliveries handled so far (replayed or refused). */
  done: number;
  /** Failed deliveries in the filter when the run began (raised if more turn up on the way). */
  total: number;
  replayed: number;
  failed: number;
  /** Originals found already replayed when their turn came (replayed meanwhile, elsewhere). */
  skipped: number;
  /** The first refusal, in plain words, with the delivery it was for. */
  firstError: string | null;
  /** The new deliveries the replays made. */
  replayIds: number[];
}

export interface BulkOptions {
  onProgress?(progress: BulkProgress): void;
  /** Checked before each call: once true, the run stops and returns what it did. */
  isCancelled?(): boolean;
  pageSize?: number;
  /** Replay originals that were replayed before too; without it each is replayed at most once. */
  includeReplayed?: boolean;
}

/** The failed deliveries a bulk replay goes through: the filter's, failed, and unless asked, never replayed. */
export function bulkFilter(filter: DeliveryFilter, includeReplayed: boolean): DeliveryFilter {
  return { ...filterParams(filter), status: 'failed', ...(includeReplayed ? {} : { replayed: false }) };
}

/** How many failed deliveries the filter holds, and how many of them were replayed already: what the confirmation asks about. */
export async function bulkCounts(call: Call, filter: DeliveryFilter): Promise<{ fresh: number; alreadyReplayed: number; atLeast?: true }> {
  // A capped count, or one over the newest stretch of the log only (searchedTo: a short search, a
  // text count out of time, a read bounded in time): the replay goes through the whole filter, so
  // more may be replayed.
  const exact = (c: DeliveryCounts): boolean => c.capped !== true && c.searchedTo === undefined;
  const replayed = await call('countDeliveries', { ...bulkFilter(filter, true), replayed: true });
  // Those never replayed are every failed one less those replayed: both exact where the engine
  // counts them from the status counts and the replays' index, which it cannot do for "never
  // replayed" directly (each delivery would be checked, on a big log a count of the newest only).
  const all = await call('countDeliveries', bulkFilter(filter, true));
  if (exact(all) && exact(replayed)) return { fresh: all.matching - replayed.matching, alreadyReplayed: replayed.matching };
  const fresh = await call('countDeliveries', bulkFilter(filter, false));
  const atLeast = !exact(fresh) || !exact(replayed);
  return { fresh: fresh.matching, alreadyReplayed: replayed.matching, ...(atLeast ? { atLeast: true as const } : {}) };
}

const alreadyReplayed = (err: unknown): boolean => err instanceof ApiCallError && (err.fields ?? []).some((f) => f.field === 'replay.unlessReplayed');

export type Call = Transport['call'];

export async function replayFailedInFilter(call: Call, filter: DeliveryFilter, options: BulkOptions = {}): Promise<BulkProgress> {
  const includeReplayed = options.includeReplayed ?? false;
  const failedOnly = bulkFilter(filter, includeReplayed);
  const pageSize = Math.min(options.pageSize ?? 100, MAX_PAGE_LIMIT);
  const cancelled = options.isCancelled ?? ((): boolean => false);
  const progress: BulkProgress = { done: 0, total: 0, replayed: 0, failed: 0, skipped: 0, firstError: null, replayIds: [] };
  const report = (): void => options.onProgress?.({ ...progress, replayIds: [...progress.replayIds] });

  progress.total = (await call('countDeliveries', failedOnly)).matching;
  report();
  // Replays are newer than every failed delivery found at the start, and the cursor only moves
  // down, so a replay that fails on the way is never replayed again in the same run.
  let beforeId: number | null = null;
  for (let guard = 0; guard < 1_000_000 && !cancelled(); guard++) {
    const page: PageResult<DeliverySummary> = await call('listDeliveries', { ...failedOnly, limit: pageSize, ...(beforeId !== null ? { beforeId } : {}) });
    for (const original of page.items) {
      if (cancelled()) break;
      try {
        const replay = await call('replayDelivery', { id: original.id, ...(includeReplayed ? {} : { unlessReplayed: true }) });
        progress.replayed++;
        progress.replayIds.push(replay.id);
      } catch (err) {
        if (alreadyReplayed(err)) {
          progress.skipped++;
          progress.done++;
          report();
          continue;
        }
        progress.failed++;
        progress.firstError ??= `#${original.id}: ${err instanceof Error ? err.message : String(err)}`;
      }
      progress.done++;
      progress.total = Math.max(progress.total, progress.done);
      report();
    }
    if (page.nextBeforeId === null) break;
    beforeId = page.nextBeforeId;
  }
  return { ...progress, replayIds: [...progress.replayIds] };
}
