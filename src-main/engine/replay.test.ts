import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { ManualClock } from './clock';
import { createEngineApi } from './api';
import { startHarness, configWith } from './testing/harness';
import { Receiver, status } from './testing/receiver';
import { waitUntil } from './testing/wait';
import { ValidationError } from '../../src-shared/settings';

const hmac = (body: Buffer): string => createHmac('sha1', 's3cret').update(body).digest('hex');

test('replay: as it was, edited and re-signed, and to another URL; each linked to its original', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const receiver = await new Receiver().start();
  const local = await new Receiver().start('/local');
  receiver.respond(status(500));
  const h = await startHarness(configWith(receiver.url), { clock });
  const api = createEngineApi(h.engine);
  try {
    await h.post('/v1/track', { userId: 'u', event: 'Order Completed', messageId: 'rp-1', properties: { total: 1 } });
    await receiver.waitFor(1);
    const original = await waitUntil(() => h.engine.stores.log.listDeliveries({ limit: 1 }).find((d) => d.status === 'retrying'), 'the first failure');
    const firstBytes = receiver.received[0]!.body;

    // The receiver is fixed; replay as it was: the same bytes, the same signature.
    receiver.respond(status(200));
    const asWas = await api.replayDelivery({ id: original.id });
    assert.equal(asWas.replayOf, original.id);
    assert.equal(asWas.edited, false);
    await receiver.waitFor(2);
    assert.deepEqual(receiver.received[1]!.body, firstBytes);
    assert.equal(receiver.received[1]!.headers['x-signature'], hmac(firstBytes));
    await waitUntil(() => h.engine.stores.log.getDelivery(asWas.id)?.status === 'succeeded', 'the replay to succeed');

    // Edit and replay: the edited bytes go out exactly as given, signed anew; the original keeps its bytes.
    const edited = '{"version":1,"type":"track","userId":"u","event":"Order Refunded","messageId":"rp-1"}';
    const re = await api.replayDelivery({ id: original.id, body: edited });
    assert.equal(re.edited, true);
    await receiver.waitFor(3);
    assert.equal(receiver.received[2]!.body.toString('utf8'), edited);
    assert.equal(receiver.received[2]!.headers['x-signature'], hmac(Buffer.from(edited)));
    assert.deepEqual(Buffer.from(h.engine.stores.log.getDelivery(original.id)!.body!), firstBytes, 'the original keeps its bytes');

    // Replay to another URL, such as a local receiver.
    const elsewhere = await api.replayDelivery({ id: original.id, targetUrl: local.url });
    await local.waitFor(1);
    assert.deepEqual(local.received[0]!.body, firstBytes);
    assert.equal(local.received[0]!.url, '/local');
    assert.equal(receiver.received.length, 3, 'nothing extra went to the destination');
    assert.equal((await api.getDelivery(elsewhere.id))?.replayOf, original.id);
  } finally {
    await h.close();
    await Promise.all([receiver.close(), local.close()]);
  }
});

test('replay refuses what it cannot send, naming the field', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  const api = createEngineApi(h.engine);
  try {
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'rp-2' });
    const [d] = h.engine.stores.log.listDeliveries({ limit: 1 });
    const fields = async (input: Parameters<typeof api.replayDelivery>[0]): Promise<string[]> => {
      try {
        await api.replayDelivery(input);
        return [];
      } catch (err) {
        assert.ok(err instanceof ValidationError, String(err));
        return err.errors.map((e) => `${e.field}: ${e.message}`);
      }
    };
    assert.deepEqual(await fields({ id: 999_999 }), ['replay.id: no delivery with id 999999']);
    assert.match((await fields({ id: d!.id, body: '{"broken":' }))[0] ?? '', /^replay\.body: is not valid JSON/);
    assert.deepEqual(await fields({ id: d!.id, body: '[1]' }), ['replay.body: must be a JSON object']);
    assert.deepEqual(await fields({ id: d!.id, targetUrl: 'ftp://x/' }), ['replay.targetUrl: must use http or https, not ftp']);
  } finally {
    await h.close();
    await receiver.close();
  }
});
