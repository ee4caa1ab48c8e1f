import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { concatBodies, createBodyPacker, PACK_OFF_THREAD_MIN_BODIES, splitAt } from './body-packer';
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
    const packed = await packer.pack(items);
    assert.ok(packed !== null);
    assert.equal(packed.length, items.length);
    packed.forEach((p, i) => {
      assert.deepEqual(p, packBody(items[i]!.body, items[i]!.json), `body ${i}`);
      assert.deepEqual(unpackBody(p, items[i]!.json), items[i]!.body);
    });
    // Requests in flight together each get their own bodies back.
    const many = await Promise.all(Array.from({ length: 8 }, (_, r) => packer.pack(Array.from({ length: 5 }, (_, i) => webhookish(r * 10 + i)))));
    many.forEach((p, r) => p!.forEach((b, i) => assert.deepEqual(unpackBody(b, webhookish(r * 10 + i).json), webhookish(r * 10 + i).body)));
    assert.deepEqual(errors, []);
  } finally {
    await packer.stop();
  }
});

test('a small request, a request before the thread is up and one after it stopped are left to the commit (null)', async () => {
  const packer = createBodyPacker();
  const few = Array.from({ length: PACK_OFF_THREAD_MIN_BODIES - 1 }, (_, i) => webhookish(i));
  const enough = Array.from({ length: PACK_OFF_THREAD_MIN_BODIES }, (_, i) => webhookish(i));
  // The first big request starts the thread and does not wait for it.
  assert.equal(await packer.pack(enough), null);
  assert.equal(await packer.ready(), true);
  assert.equal(await packer.pack(few), null);
  assert.notEqual(await packer.pack(enough), null);
  const inFlight = packer.pack(enough);
  await packer.stop();
  assert.equal(await inFlight, null, 'a request the thread had not answered when it stopped');
  assert.equal(await packer.pack(enough), null);
  assert.equal(await packer.ready(), false);
});
