/**
 * Fills a log with many deliveries through the store's own write paths (commitRequest, startRound,
 * finishRounds), in large transactions: the rows are exactly what ingest and the scheduler write,
 * only faster than real traffic. Used by the UI benchmark and by the query-plan tests.
 */
import type { InboundMessage } from '../../src-shared/events';
import type { LogStore } from '../../src-main/engine/store/log-store';

export interface SeedOptions {
  sourceId: number;
  destinationId: number;
  /** Where the seeded attempts say they went. */
  url: string;
  /** Time of the newest seeded message; older ones go back one second each. */
  now: number;
  /** Messages per transaction. */
  batch?: number;
}

const TYPES = ['track', 'identify', 'page', 'screen', 'group', 'alias'] as const;
const EVENTS = ['Order Completed', 'Product Viewed', 'Signed Up', 'Checkout Started', 'Cart Viewed'];

/** What the seeded row ends as, by its index: mostly succeeded, some failed, retrying and discarded. */
export function seededOutcome(i: number): 'succeeded' | 'failed' | 'retrying' | 'discarded' {
  if (i % 50 === 7) return 'failed';
  if (i % 100 === 13) return 'retrying';
  if (i % 200 === 21) return 'discarded';
  return 'succeeded';
}

/** Seeds `count` messages, one delivery each, every one attempted once (failed ones three times). */
export function seedDeliveries(log: LogStore, count: number, o: SeedOptions): void {
  // LogStore.listDeliveries reads at most 1,000 rows at once, and each batch's ids are read back with it.
  const batch = Math.min(o.batch ?? 1000, 1000);
  let firstId = 0;
  for (let start = 0; start < count; start += batch) {
    const n = Math.min(batch, count - start);
    const receivedAt = o.now - (count - start);
    const items = Array.from({ length: n }, (_, k) => {
      const i = start + k;
      const type = TYPES[i % TYPES.length] as (typeof TYPES)[number];
      const message: InboundMessage = {
        type,
        messageId: `seed-${i}`,
        userId: `user_${i % 5000}`,
        anonymousId: i % 3 === 0 ? `anon-${i}` : null,
        // What ingest would accept: each type with the fields its payload needs.
        ...(type === 'track' ? { event: EVENTS[i % EVENTS.length] as string } : {}),
        ...(type === 'group' ? { groupId: `group_${i % 50}` } : {}),
        ...(type === 'alias' ? { previousId: `anon-${i}` } : {}),
        ...(type === 'page' || type === 'screen' ? { name: 'Home' } : {}),
        properties: { i },
        context: { library: { name: 'seed', version: '1' } },
        integrations: {},
        timestamp: new Date(receivedAt).toISOString(),
        receivedAt: new Date(receivedAt).toISOString(),
      };
      return { message, json: JSON.stringify(message), destinationIds: [o.destinationId] };
    });
    const record = { sourceId: o.sourceId, path: '/v1/batch', receivedAt, httpStatus: 200, bytes: 0, userAgent: 'seed' };
    log.commitRequest(record, o.sourceId, items, [], 24 * 3600 * 1000);
    const deliveries = log.listDeliveries({ limit: n });
    if (start === 0) firstId = deliveries[deliveries.length - 1]?.id ?? 1;
    attemptAll(log, deliveries.map((d) => d.id).reverse(), firstId, o, receivedAt);
  }
}

function attemptAll(log: LogStore, ids: number[], firstId: number, o: SeedOptions, at: number): void {
  const body = new TextEncoder().encode('{"seeded":true}');
  const rounds = (i: number): number => (seededOutcome(i) === 'failed' ? 3 : 1);
  for (let round = 1; round <= 3; round++) {
    const these = ids.filter((id) => rounds(id - firstId) >= round);
    if (these.length === 0) break;
    const attemptIds = log.startRound(
      these.map((id) => ({
        deliveryId: id,
        body,
        firstAttemptAt: at,
        round,
        attempts: [{ deliveryId: id, round, url: o.url, startedAt: at + round, requestHeaders: { 'User-Agent': 'Segment.io/1.0' } }],
      })),
    );
    const finished = these.map((id, k) => {
      const outcome = seededOutcome(id - firstId);
      const ok = outcome === 'succeeded';
      const last = round === rounds(id - firstId);
      return {
        attempt: {
          attemptId: attemptIds[k]?.[0] as number,
          verdict: ok ? 'succeeded' : 'retryable',
          httpStatus: ok ? 200 : 500,
          timings: { totalMs: 3 + ((id * 7) % 40) },
          responseHeaders: {},
          responseBody: new Uint8Array(),
          responseBytes: 0,
          responseTruncated: false,
          errorKind: ok ? null : 'http',
          errorText: ok ? null : 'HTTP 500',
          failure: ok ? null : { kind: 'http' as const, status: 500, statusText: null },
          retryAfterMs: null,
        },
        update: {
          deliveryId: id,
          status: last ? outcome : ('retrying' as const),
          // Retrying rows are due far in the future, so a server started on the seed stays idle.
          nextAttemptAt: last && outcome !== 'retrying' ? null : at + 365 * 24 * 3600 * 1000,
          pendingUrls: null,
          lastHttpStatus: ok ? 200 : 500,
          lastError: ok ? null : 'HTTP 500',
          decision: null,
          finishedAt: last && outcome !== 'retrying' ? at + round : null,
        },
      };
    });
    log.finishRounds(
      finished.map((f) => f.attempt),
      finished.map((f) => f.update),
    );
  }
}
