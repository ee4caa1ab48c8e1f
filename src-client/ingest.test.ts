import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analytics, LIBRARY_NAME, LIBRARY_VERSION, MAX_BATCH_BYTES, MAX_MESSAGE_BYTES, type AnalyticsDeliveryError, type DroppedMessage } from './index';
import { INGEST_LIMITS } from '../src-shared/events';
import { startHarness, configWith, WRITE_KEY } from '../src-main/engine/testing/harness';
import { Receiver } from '../src-main/engine/testing/receiver';
import { systemClock } from '../src-main/engine/clock';

test('the client library against the real Hookbench ingest: batched, accepted, delivered', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url), { clock: systemClock });
  try {
    const analytics = new Analytics({ writeKey: WRITE_KEY, endpoint: h.server.url, flushAt: 20 });
    const errors: unknown[] = [];
    analytics.on('error', (e) => errors.push(e));
    for (let i = 0; i < 45; i++) analytics.track({ userId: `u${i}`, event: 'Clicked', properties: { i } });
    analytics.identify({ userId: 'u1', traits: { plan: 'pro' }, timestamp: new Date('2026-01-02T03:04:05.678Z') });
    analytics.alias({ userId: 'u1', previousId: 'anon-1' });
    await analytics.close();
    assert.deepEqual(errors, []);
    const requests = h.inspect.all('SELECT items, accepted, dropped FROM requests ORDER BY id') as { items: number; accepted: number; dropped: number }[];
    assert.deepEqual(requests.map((r) => r.items), [20, 20, 7], 'flushAt 20 batches, then the rest on close');
    assert.equal(requests.reduce((n, r) => n + r.dropped, 0), 0);
    await receiver.waitFor(47);
    const identify = receiver.received.map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>).find((p) => p.type === 'identify');
    // Skew correction (receivedAt − (sentAt − timestamp)) moves it by the transit time only.
    const drift = Date.parse(String(identify?.timestamp)) - Date.parse('2026-01-02T03:04:05.678Z');
    assert.ok(drift >= 0 && drift < 2000, `a historical timestamp survives the trip (moved ${drift} ms)`);
    const stored = h.inspect.get("SELECT json FROM messages WHERE type = 'identify'") as { json: string };
    assert.equal((JSON.parse(stored.json) as { originalTimestamp: string }).originalTimestamp, '2026-01-02T03:04:05.678Z');
    const lib = (identify?.context as { library?: { name?: string } }).library;
    assert.equal(lib?.name, 'hookbench-client', 'batch-level context.library is merged into each message');
  } finally {
    await h.close();
    await receiver.close();
  }
});

/** The JSON the client makes of track({ userId: 'u', event: 'Big', properties: { filler }, timestamp, messageId }). */
function bigTrackBytes(filler: number, messageId: string, timestamp: string): number {
  return Buffer.byteLength(
    JSON.stringify({ type: 'track', event: 'Big', userId: 'u', properties: { filler: 'x'.repeat(filler) }, timestamp, messageId }),
  );
}

test('the client and the ingest share one batch limit, and the client fills a request to exactly that limit', () => {
  assert.equal(MAX_BATCH_BYTES, INGEST_LIMITS.maxBatchBytes);
  assert.equal(MAX_MESSAGE_BYTES, INGEST_LIMITS.maxMessageBytes);
  assert.equal(MAX_BATCH_BYTES, 512_000, "Segment's 500 KB, as analytics-node and the other SDKs count it");
});

test('the largest batch the client can build is accepted by the real ingest: nothing refused, nothing lost', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url), { clock: systemClock });
  try {
    const timestamp = '2026-01-02T03:04:05.678Z';
    // Envelope of the client's request body: {"batch":[…],"sentAt":"<24 chars>","context":{library}}.
    const envelope =
      Buffer.byteLength(`{"batch":[],"sentAt":"","context":${JSON.stringify({ library: { name: LIBRARY_NAME, version: LIBRARY_VERSION } })}}`) + 24;
    const ids = Array.from({ length: 40 }, (_, i) => `big-${String(i).padStart(3, '0')}`);
    // 15 messages just under 32 KB, then one sized so that the first request is exactly the limit.
    const fillers = ids.map(() => 32_000);
    const first15 = ids.slice(0, 15).reduce((n, id, i) => n + bigTrackBytes(fillers[i] as number, id, timestamp) + 1, envelope);
    const room = MAX_BATCH_BYTES - first15; // what is left for message 16's JSON
    const base16 = bigTrackBytes(0, ids[15] as string, timestamp);
    assert.ok(room - base16 > 0 && room <= MAX_MESSAGE_BYTES, `message 16 gets ${room} bytes`);
    fillers[15] = room - base16;

    const errors: AnalyticsDeliveryError[] = [];
    const drops: DroppedMessage[] = [];
    const analytics = new Analytics({ writeKey: WRITE_KEY, endpoint: h.server.url, flushAt: ids.length, maxInFlight: 1 });
    analytics.on('error', (e) => errors.push(e)).on('drop', (d) => drops.push(d));
    ids.forEach((messageId, i) =>
      analytics.track({ userId: 'u', event: 'Big', properties: { filler: 'x'.repeat(fillers[i] as number) }, timestamp, messageId }),
    );
    await analytics.close();

    assert.deepEqual(errors.map((e) => e.reason), []);
    assert.deepEqual(drops, []);
    const requests = h.inspect.all('SELECT http_status, bytes, items FROM requests ORDER BY id') as {
      http_status: number;
      bytes: number;
      items: number;
    }[];
    assert.deepEqual(requests.map((r) => r.http_status), requests.map(() => 200), 'no request refused');
    assert.equal(requests[0]?.bytes, MAX_BATCH_BYTES, 'the first request is exactly the limit');
    assert.equal(requests[0]?.items, 16);
    assert.ok(requests.every((r) => r.bytes <= MAX_BATCH_BYTES));
    const stored = h.inspect.all('SELECT message_id FROM messages ORDER BY message_id') as { message_id: string }[];
    assert.deepEqual(stored.map((m) => m.message_id), ids);
    assert.deepEqual(analytics.stats(), { queued: 0, pending: 0, sent: 40, failed: 0, dropped: 0, requests: requests.length });
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a batch the ingest refuses reaches drop and error with every message in it', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url), { clock: systemClock });
  try {
    const errors: AnalyticsDeliveryError[] = [];
    const drops: DroppedMessage[] = [];
    // A write key no source has: the real ingest answers 200 with success false, which is not retried.
    const analytics = new Analytics({ writeKey: 'wk_nobody', endpoint: h.server.url, flushAt: 30 });
    analytics.on('error', (e) => errors.push(e)).on('drop', (d) => drops.push(d));
    const ids = Array.from({ length: 30 }, (_, i) => `refused-${i}`);
    for (const messageId of ids) analytics.track({ userId: 'u', event: 'Lost', properties: { filler: 'x'.repeat(30_000) }, messageId });
    await analytics.close();

    assert.ok(errors.length >= 2, `30 messages of 30 KB take more than one request, got ${errors.length} errors`);
    for (const e of errors) {
      assert.equal(e.status, 200);
      assert.equal(e.retryable, false);
      assert.equal(e.attempts, 1);
      assert.match(e.reason, /wk_nobody/);
    }
    const inErrors = errors.flatMap((e) => e.batch.messages.map((m) => m.messageId)).sort();
    assert.deepEqual(inErrors, [...ids].sort());
    assert.deepEqual(drops.map((d) => d.message.messageId).sort(), [...ids].sort());
    for (const d of drops) {
      assert.equal(d.reason, 'refused');
      assert.match(d.detail, /HTTP 200: .*unknown_write_key/);
      assert.ok(d.error && errors.includes(d.error));
    }
    assert.deepEqual(analytics.stats(), { queued: 0, pending: 0, sent: 0, failed: 30, dropped: 0, requests: errors.length });
    const refused = h.inspect.get("SELECT COUNT(*) AS n FROM requests WHERE error_code = 'unknown_write_key'") as { n: number };
    assert.equal(refused.n, errors.length);
  } finally {
    await h.close();
    await receiver.close();
  }
});
