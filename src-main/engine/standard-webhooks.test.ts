import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from './clock';
import { startHarness, configWith, type Harness } from './testing/harness';
import { Receiver, status, type Received } from './testing/receiver';
import { waitUntil } from './testing/wait';
import { createEngineApi } from './api';
import { standardWebhooksSecret } from '../../src-shared/signing';
import { verifyReceived } from './delivery/signers';

const SECRET = 's3cret';
const BOTH = { signing: 'x-signature+standard-webhooks' as const };
const hmac = (body: Buffer): string => createHmac('sha1', SECRET).update(body).digest('hex');

/** The headers as a plain record, as a framework hands them to the reference library. */
function plain(r: Received): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) if (typeof v === 'string') out[k] = v;
  return out;
}

async function send(h: Harness, messageId: string, properties: Record<string, unknown> = { total: 9.5, name: 'café ☕', path: '/a/b' }): Promise<void> {
  const res = await h.post('/v1/batch', { batch: [{ type: 'track', userId: 'u1', event: 'Order Completed', messageId, properties }] });
  assert.equal(res.status, 200);
}

describe('Standard Webhooks beside X-Signature', () => {
  test('the reference library verifies a real delivery and each retry; the id stays, the timestamp is each attempt’s', async () => {
    const receiver = await new Receiver().start();
    receiver.respond(status(500));
    const clock = new ManualClock(Date.now());
    const h = await startHarness(configWith(receiver.url, BOTH), { clock });
    try {
      await send(h, 'sw-1');
      await receiver.waitFor(1);
      const firstAt = clock.now();
      receiver.respond(status(200));
      await waitUntil(() => h.inspect.value<string>('SELECT status FROM deliveries') === 'retrying', 'the delivery to wait for its retry');
      clock.advance(3_000);
      await receiver.waitFor(2);
      const [first, second] = receiver.received as [Received, Received];

      const wh = new Webhook(standardWebhooksSecret(SECRET));
      for (const r of [first, second]) {
        assert.deepEqual(wh.verify(r.body.toString('utf8'), plain(r)), JSON.parse(r.body.toString('utf8')), 'the reference library accepts it');
        assert.equal(r.headers['x-signature'], hmac(r.body), 'X-Signature is still sent, unchanged');
        assert.match(String(r.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
      }
      assert.equal(first.headers['webhook-id'], second.headers['webhook-id'], 'one delivery, one webhook-id across retries');
      assert.equal(first.headers['webhook-timestamp'], String(Math.floor(firstAt / 1000)));
      assert.ok(Number(second.headers['webhook-timestamp']) > Number(first.headers['webhook-timestamp']), 'the retry carries its own time');
      assert.deepEqual(first.body, second.body);

      assert.throws(() => new Webhook(standardWebhooksSecret('not-the-secret')).verify(first.body.toString('utf8'), plain(first)), /No matching signature/);
      const tampered = first.body.toString('utf8').replace('café', 'cafe');
      assert.throws(() => wh.verify(tampered, plain(first)), /No matching signature/);

      // The seam's entry point for receivers says the same.
      const now = Date.now();
      assert.deepEqual(
        verifyReceived({ headers: first.headers, body: first.body, secret: SECRET, now }).map((v) => [v.scheme, v.ok]),
        [['x-signature', true], ['standard-webhooks', true]],
      );
      assert.deepEqual(
        verifyReceived({ headers: first.headers, body: first.body, secret: 'nope', now }).map((v) => [v.scheme, v.ok]),
        [['x-signature', false], ['standard-webhooks', false]],
      );

      // The detail's check covers both schemes.
      const api = createEngineApi(h.engine);
      const id = Number(h.inspect.value('SELECT id FROM deliveries'));
      const detail = await api.getDelivery(id);
      assert.equal(detail?.signature.state, 'valid');
      assert.deepEqual(detail?.signature.parts?.map((p) => [p.scheme, p.state]), [['x-signature', 'valid'], ['standard-webhooks', 'valid']]);
      await api.saveDestination({ ...configWith(receiver.url, BOTH).destinations[0]!, sharedSecret: 'rotated' });
      const after = await api.getDelivery(id);
      assert.equal(after?.signature.state, 'mismatch');
      assert.deepEqual(after?.signature.parts?.map((p) => p.state), ['mismatch', 'mismatch']);
      assert.match(after?.signature.explanation ?? '', /X-Signature/);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a stale timestamp is refused by the reference library and by verifyReceived', async () => {
    const receiver = await new Receiver().start();
    // The engine's clock runs ten minutes behind the receiver's: every attempt looks old on arrival.
    const h = await startHarness(configWith(receiver.url, BOTH), { clock: new ManualClock(Date.now() - 10 * 60_000) });
    try {
      await send(h, 'sw-stale');
      await receiver.waitFor(1);
      const got = receiver.received[0]!;
      assert.throws(() => new Webhook(standardWebhooksSecret(SECRET)).verify(got.body.toString('utf8'), plain(got)), /timestamp too old/);
      const verdicts = verifyReceived({ headers: got.headers, body: got.body, secret: SECRET, now: Date.now() });
      assert.deepEqual(verdicts.map((v) => [v.scheme, v.ok]), [['x-signature', true], ['standard-webhooks', false]]);
      assert.match(verdicts[1]!.reason, /s old/);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a destination on X-Signature alone sends no Standard Webhooks header and the same bytes as before', async () => {
    const receiver = await new Receiver().start();
    const h = await startHarness(configWith(receiver.url), { clock: new ManualClock(Date.now()) });
    try {
      await send(h, 'x-only');
      await receiver.waitFor(1);
      const got = receiver.received[0]!;
      assert.equal(got.headers['x-signature'], hmac(got.body));
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) assert.equal(got.headers[name], undefined, name);
      assert.deepEqual(verifyReceived({ headers: got.headers, body: got.body, secret: SECRET, now: Date.now() }).map((v) => v.scheme), ['x-signature']);
    } finally {
      await h.close();
      await receiver.close();
    }
  });
});
