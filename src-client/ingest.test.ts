import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Analytics } from './index';
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
    const requests = h.engine.db.prepare('SELECT items, accepted, dropped FROM requests ORDER BY id').all() as { items: number; accepted: number; dropped: number }[];
    assert.deepEqual(requests.map((r) => r.items), [20, 20, 7], 'flushAt 20 batches, then the rest on close');
    assert.equal(requests.reduce((n, r) => n + r.dropped, 0), 0);
    await receiver.waitFor(47);
    const identify = receiver.received.map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>).find((p) => p.type === 'identify');
    // Skew correction (receivedAt − (sentAt − timestamp)) moves it by the transit time only.
    const drift = Date.parse(String(identify?.timestamp)) - Date.parse('2026-01-02T03:04:05.678Z');
    assert.ok(drift >= 0 && drift < 2000, `a historical timestamp survives the trip (moved ${drift} ms)`);
    const stored = h.engine.db.prepare("SELECT json FROM messages WHERE type = 'identify'").get() as { json: string };
    assert.equal((JSON.parse(stored.json) as { originalTimestamp: string }).originalTimestamp, '2026-01-02T03:04:05.678Z');
    const lib = (identify?.context as { library?: { name?: string } }).library;
    assert.equal(lib?.name, 'hookbench-client', 'batch-level context.library is merged into each message');
  } finally {
    await h.close();
    await receiver.close();
  }
});
