import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ManualClock } from '../clock';
import { startHarness, configWith, WRITE_KEY } from '../testing/harness';
import { Receiver } from '../testing/receiver';

const fixture = readFileSync(new URL('./fixtures/analytics-go-v2.batch.json', import.meta.url));

test('analytics-go v2 bytes are accepted whole and forwarded with the documented shapes', async () => {
  const receiver = await new Receiver().start();
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:03.000Z'));
  const h = await startHarness(configWith(receiver.url), { clock });
  try {
    const res = await fetch(`${h.server.url}/v1/batch`, {
      method: 'POST',
      headers: {
        'user-agent': 'analytics-go (version: 2.1.0)',
        'content-type': 'application/json',
        authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`,
      },
      body: new Uint8Array(fixture),
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '{"success":true}');
    const [request] = h.inspect.all('SELECT items, accepted, dropped, user_agent FROM requests') as Record<string, unknown>[];
    assert.deepEqual(request, { items: 5, accepted: 5, dropped: 0, user_agent: 'analytics-go (version: 2.1.0)' });
    await receiver.waitFor(5);
    const byType = Object.fromEntries(
      receiver.received.map((r) => JSON.parse(r.body.toString()) as Record<string, unknown>).map((p) => [String(p.type), p]),
    ) as Record<string, Record<string, unknown>>;
    // sentAt 12:00:00, received 12:00:03: every timestamp moves 3 s later (skew correction).
    assert.equal(byType.identify?.timestamp, '2026-11-22T11:59:53.000Z');
    assert.deepEqual(byType.page?.properties, { path: '/pricing', referrer: 'https://www.google.com/', title: 'Pricing', url: 'https://example.com/pricing' });
    assert.equal(byType.page?.name, 'Pricing');
    assert.deepEqual(byType.track?.properties, { plan: 'Enterprise', seats: '12' });
    assert.equal(byType.alias?.['Previous ID'], 'anon-7');
    assert.equal(byType.alias?.['User ID'], '019mr8mf4r');
    for (const p of Object.values(byType)) {
      assert.deepEqual((p.context as Record<string, unknown>).library, { name: 'analytics-go', version: '2.1.0' });
    }
  } finally {
    await h.close();
    await receiver.close();
  }
});
