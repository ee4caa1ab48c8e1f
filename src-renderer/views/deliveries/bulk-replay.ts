/**
 * "Replay failed in this filter": pages through the failed deliveries the current
 * filter lets through, newest first, and replays each as it was, one call at a time so that Cancel
 * stops after the call in flight. Takes the transport's call, so tests drive it over a real engine.
 */
import { MAX_PAGE_LIMIT, type DeliveryFilter, type DeliverySummary, type PageResult } from '../../../src-shared/api';
import type { Transport } from '../../transport';
import { filterParams } from './rows';

export interface BulkProgress {
  /** Deliveries handled so far (replayed or refused). */
  done: number;
  /** Failed deliveries in the filter when the run began (raised if more turn up on the way). */
  total: number;
  replayed: number;
  failed: number;
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
}

export type Call = Transport['call'];

export async function replayFailedInFilter(call: Call, filter: DeliveryFilter, options: BulkOptions = {}): Promise<BulkProgress> {
  const failedOnly: DeliveryFilter = { ...filterParams(filter), status: 'failed' };
  const pageSize = Math.min(options.pageSize ?? 100, MAX_PAGE_LIMIT);
  const cancelled = options.isCancelled ?? ((): boolean => false);
  const progress: BulkProgress = { done: 0, total: 0, replayed: 0, failed: 0, firstError: null, replayIds: [] };
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
        const replay = await call('replayDelivery', { id: original.id });
        progress.replayed++;
        progress.replayIds.push(replay.id);
      } catch (err) {
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
