import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { concatBodies, createBodyPacker, PACK_OFF_THREAD_MIN_BODIES, PACK_OFF_THREAD_MIN_IN_FLIGHT, packOffThread, splitAt } from './body-packer';

const BUSY = PACK_OFF_THREAD_MIN_IN_FLIGHT;
import { packBody, unpackBody } from './body-pack';

const webhookish = (i: number): { body: Buffer; json: string } => {
  const json = JSON.stringify({ type: 'track', event: 'Order Completed', userId: `user-${i}`, messageId: `m-${i}`, properties: { total: i * 1.5, sku: 'é-ü-✓' } });
  return { body: Buffer.from(`{"version":1,${json.slice(1)}`), json };
};

test('bodies joined into one buffer come apart into the same bytes, whatever their sizes', () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 30 }), (bodies) => {
      const { bytes, ends } = concatBodies(bodies);
      assert.deepEqual(
        splitAt(bytes, ends).map((b) => Buffer.from(b)),
        bodies.map((b) => Buffer.from(b)),
      );
    }),
    { numRuns: 200, seed: 14 },
  );
});

test("the packing thread packs a request's bodies into the bytes the commit would have packed, in order", async () => {
  const errors: string[] = [];
  const packer = createBodyPacker({ onError: (m) => errors.push(m) });
  try {
    assert.equal(await packer.ready(), true);
    const items = Array.from({ length: 25 }, (_, i) => webhookish(i));
    // An empty body and one of 64 KB travel too.
    items.push({ body: Buffer.alloc(0), json: '{}' }, { body: Buffer.alloc(65_536, 'x'), json: '{"x":1}' });
    const packed = await packer.pack(items, BUSY);
    assert.ok(packed !== null);
    assert.equal(packed.length, items.length);
    packed.forEach((p, i) => {
      assert.deepEqual(p, packBody(items[i]!.body, items[i]!.json), `body ${i}`);
      assert.deepEqual(unpackBody(p, items[i]!.json), items[i]!.body);
    });
    // Requests in flight together each get their own bodies back.
    const many = await Promise.all(Array.from({ length: 8 }, (_, r) => packer.pack(Array.from({ length: 5 }, (_, i) => webhookish(r * 10 + i)), BUSY)));
    assert.ok(many.every((p) => p?.length === 5));
    many.forEach((p, r) => p!.forEach((b, i) => assert.deepEqual(unpackBody(b, webhookish(r * 10 + i).json), webhookish(r * 10 + i).body)));
    assert.equal(packer.packed(), items.length + 8 * 5, 'every body counted once');
    assert.deepEqual(errors, []);
  } finally {
    await packer.stop();
  }
});

test('bodies go to the thread only when the request has several and the engine has several requests in hand', () => {
  assert.equal(packOffThread(1, 1), false, "an SDK's single call");
  assert.equal(packOffThread(20, 1), false, 'a batch while the engine is quiet');
  assert.equal(packOffThread(20, 2), false);
  assert.equal(packOffThread(3, 16), false, 'three bodies: the trip costs about what packing them does');
  assert.equal(packOffThread(4, 3), true);
  assert.equal(packOffThread(100, 16), true, 'batches queueing behind the engine');
});

test('a small request, a request with few others in flight, a request before the thread is up and one after it stopped are left to the commit (null)', async () => {
  const packer = createBodyPacker();
  const few = Array.from({ length: PACK_OFF_THREAD_MIN_BODIES - 1 }, (_, i) => webhookish(i));
  const enough = Array.from({ length: PACK_OFF_THREAD_MIN_BODIES }, (_, i) => webhookish(i));
  // The first big request starts the thread and does not wait for it.
  assert.equal(await packer.pack(enough, BUSY), null);
  assert.equal(await packer.ready(), true);
  assert.equal(await packer.pack(few, BUSY), null);
  assert.equal(packer.packed(), 0);
  assert.notEqual(await packer.pack(enough, BUSY), null);
  assert.equal(await packer.pack(enough, BUSY - 1), null, 'a request with few others in flight');
  const inFlight = packer.pack(enough, BUSY);
  await packer.stop();
  assert.equal(await inFlight, null, 'a request the thread had not answered when it stopped');
  assert.equal(await packer.pack(enough, BUSY), null);
  assert.equal(await packer.ready(), false);
});
