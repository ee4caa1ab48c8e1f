/**
 * Fills a log with many deliveries through the store's own write paths (commitRequest, startRound,
 * finishRounds), in large transactions: the rows are exactly what ingest and the scheduler write,
 * only faster than real traffic. Used by the UI benchmark and by the query-plan tests.
 */
import type { InboundMessage } from '../../src-shared/events';
import type { HookbenchConfig } from '../../src-main/engine/config';
import type { LogStore } from '../../src-main/engine/store/log-store';
import { webhookBodyOf } from '../../src-main/engine/delivery/payloads';

export interface SeedOptions {
  sourceId: number;
  destinationId: number;
  /** Where the seeded attempts say they went. */
  url: string;
  /** Time of the newest seeded message; older ones go back one second each. */
  now: number;
  /** Messages per transaction. */
  batch?: number;
  /**
   * Messages the size and mix of real traffic (realisticMessage) and each delivery's body the bytes
   * the real payload mapping makes of it, instead of small uniform ones.
   */
  realistic?: boolean;
  /** Called after each committed batch with the number of messages seeded so far. */
  onBatch?: (seeded: number) => void;
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

const REAL_TYPES = [...Array(12).fill('track'), 'identify', 'identify', 'identify', 'page', 'page', 'page', 'screen', 'group', 'alias'] as const;
const REAL_EVENTS = [
  'Order Completed', 'Product Viewed', 'Product Added', 'Signed Up', 'Checkout Started', 'Cart Viewed', 'Products Searched',
  'Payment Info Entered', 'Coupon Applied', 'Product Clicked', 'Promotion Viewed', 'Application Opened', 'Subscription Started',
];
const AGENTS = [
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
];

/** Users in a log of `count` messages: about 200 messages each, as an active product's users send. */
export const usersFor = (count: number): number => Math.max(10, Math.floor(count / 200));

/** The messageId of the i-th realistic message, as analytics.js makes them (random-looking, unique). */
/**
 * The seeded log's source and destination (with its shared secret), delivering to `url`; and a
 * retention far beyond the seed, so nothing seeded is pruned under a benchmark's feet.
 */
export const scaleConfig = (url: string): HookbenchConfig => ({
  sources: [{ name: 'scale', writeKey: 'wk_scale' }],
  destinations: [{ name: 'sink', enabled: true, sources: ['scale'], sharedSecret: 'scale-secret', webhooks: [{ url, headers: {} }] }],
  retention: { days: 3650, megabytes: 1024 * 1024 },
});

export const seededMessageId = (i: number): string => `ajs-next-${i.toString(36)}-${((i * 2654435761) >>> 0).toString(16)}`;

/**
 * One message as a browser or server SDK sends it (about 900 bytes of JSON): mostly tracks, a
 * userId on four in five (the rest anonymous only), an anonymousId on all, context with library,
 * page, user agent, IP and locale, a handful of properties.
 */
export function realisticMessage(i: number, count: number, receivedAt: number): InboundMessage {
  const type = REAL_TYPES[i % REAL_TYPES.length] as (typeof REAL_TYPES)[number];
  const user = (i * 7919) % usersFor(count);
  const known = i % 5 !== 4;
  const event = REAL_EVENTS[(i * 31) % REAL_EVENTS.length] as string;
  const iso = new Date(receivedAt).toISOString();
  const path = ['/', '/pricing', '/products/sku-' + (i % 977), '/cart', '/checkout'][i % 5] as string;
  return {
    type,
    messageId: seededMessageId(i),
    userId: known ? `user_${user}` : null,
    anonymousId: `anon-${(user * 40503) >>> 0}-${user % 97}`,
    ...(type === 'track' ? { event } : {}),
    ...(type === 'group' ? { groupId: `group_${user % 50}`, traits: { name: `Company ${user % 50}`, plan: 'team' } } : {}),
    ...(type === 'identify' ? { traits: { email: `user_${user}@example.com`, plan: ['free', 'pro', 'team'][user % 3], firstName: 'Ada', createdAt: iso } } : {}),
    ...(type === 'alias' ? { previousId: `anon-${(user * 40503) >>> 0}-${user % 97}` } : {}),
    ...(type === 'page' || type === 'screen' ? { name: path === '/' ? 'Home' : path.slice(1) } : {}),
    properties:
      type === 'track'
        ? { order_id: `o-${i}`, revenue: (i % 500) + 0.99, currency: 'USD', product_id: `sku-${i % 977}`, quantity: 1 + (i % 3), coupon: i % 7 === 0 ? 'SPRING' : null }
        : { path, url: `https://shop.example.com${path}`, title: 'Example Shop', referrer: 'https://www.google.com/' },
    context: {
      library: { name: 'analytics.js', version: 'next-1.72.0' },
      page: { path, url: `https://shop.example.com${path}`, referrer: 'https://www.google.com/', title: 'Example Shop', search: '' },
      userAgent: AGENTS[i % AGENTS.length] as string,
      ip: `203.0.113.${i % 250}`,
      locale: 'en-US',
      timezone: 'Europe/Berlin',
    },
    integrations: {},
    timestamp: iso,
    sentAt: iso,
    receivedAt: iso,
  } as InboundMessage;
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
      if (o.realistic) {
        const message = realisticMessage(i, count, receivedAt);
        return { message, json: JSON.stringify(message), body: webhookBody(message), destinationIds: [o.destinationId] };
      }
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
    const bodies = o.realistic ? new Map(deliveries.map((d, k) => [d.id, bodyOf(items[n - 1 - k])])) : null;
    attemptAll(log, deliveries.map((d) => d.id).reverse(), firstId, o, receivedAt, bodies);
    o.onBatch?.(start + n);
  }
}

/** What the destination would send: the mapped payload, or (an anonymous alias, which mapping refuses) the message. */
const webhookBody = (message: InboundMessage): Uint8Array => webhookBodyOf(message) ?? new TextEncoder().encode(JSON.stringify(message));
const bodyOf = (item: { body?: Uint8Array } | undefined): Uint8Array => item?.body ?? new TextEncoder().encode('{}');

const REAL_HEADERS = { 'User-Agent': 'Segment.io/1.0', 'Content-Type': 'application/json', 'X-Signature': '3f1c2e0b9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b' };
const SEEDED_BODY = new TextEncoder().encode('{"seeded":true}');

function attemptAll(log: LogStore, ids: number[], firstId: number, o: SeedOptions, at: number, bodies: Map<number, Uint8Array> | null): void {
  const rounds = (i: number): number => (seededOutcome(i) === 'failed' ? 3 : 1);
  for (let round = 1; round <= 3; round++) {
    const these = ids.filter((id) => rounds(id - firstId) >= round);
    if (these.length === 0) break;
    const attemptIds = log.startRound(
      these.map((id) => ({
        deliveryId: id,
        body: bodies?.get(id) ?? SEEDED_BODY,
        firstAttemptAt: at,
        round,
        attempts: [{ deliveryId: id, round, url: o.url, startedAt: at + round, requestHeaders: o.realistic ? REAL_HEADERS : { 'User-Agent': 'Segment.io/1.0' } }],
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
