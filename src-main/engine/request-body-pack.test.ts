/** An Inbound call's kept body, packed on disk: read back exactly, by Inbound and by a deletion's purge, on a real engine and its file. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createEngineApi } from './api';
import { startHarness, WRITE_KEY } from './testing/harness';
import { keptRequestBody, packRequestBody, REQUEST_BODY_DEFLATE_1, REQUEST_BODY_TEXT, requestBodyText } from './store/request-body-pack';

const CONFIG = { sources: [{ name: 'web', writeKey: WRITE_KEY }], destinations: [] };

/** A call as analytics.js sends one (about 900 bytes), none of its values in the dictionary. */
const browserCall = (i: number): Record<string, unknown> => ({
  type: 'track',
  event: `Checkout Step ${i}`,
  properties: { step: i, cart_id: `cart-${i * 7919}`, items: [{ sku: `sku-${i}`, qty: 2 }], note: 'Größe M — ✓' },
  context: {
    library: { name: 'analytics.js', version: 'next-1.81.0' },
    page: { path: '/checkout', referrer: 'https://duckduckgo.com/', search: '?step=2', title: 'Checkout · Shop', url: 'https://shop.example.org/checkout?step=2' },
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
    locale: 'de-DE',
    timezone: 'Europe/Vienna',
  },
  integrations: {},
  messageId: `ajs-next-${i}-5f0c2a9e4b7d41c3a8e2f6b1d9c07e35`,
  anonymousId: `9c1d7f2e-${i}-4a6b-8c3d-2e5f7a9b1c4d`,
  userId: `customer-${i}`,
  timestamp: '2026-11-28T13:37:00.123Z',
  sentAt: '2026-11-28T13:37:00.456Z',
  writeKey: WRITE_KEY,
  _metadata: { bundled: ['Segment.io'], unbundled: [], bundledIds: [] },
});

test('a kept body reads back as the text it was made from, for any text, packed only when that makes it smaller', () => {
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 2_000 }), fc.json()), (text) => {
      const kept = keptRequestBody(text);
      assert.equal(requestBodyText(kept.body, kept.format), text);
      if (kept.format === REQUEST_BODY_DEFLATE_1) assert.ok(kept.body.length < Buffer.byteLength(text));
      else assert.equal(kept.body, text);
    }),
    { numRuns: 400, seed: 30 },
  );
  assert.throws(() => requestBodyText(packRequestBody('{}'), 7), /unknown form/);
  // What it is for: a browser's call of about 900 bytes costs a fraction of that.
  const text = JSON.stringify(browserCall(1));
  const kept = keptRequestBody(text);
  assert.equal(kept.format, REQUEST_BODY_DEFLATE_1);
  assert.ok(kept.body.length < text.length / 2, `${kept.body.length} of ${text.length} bytes`);
});

test("Inbound shows a packed call's body exactly as received, and a row from before packing as it was", async () => {
  const h = await startHarness(CONFIG);
  const api = createEngineApi(h.engine);
  try {
    const single = browserCall(1);
    assert.equal((await h.post('/v1/t', single)).status, 200);
    const batch = { batch: Array.from({ length: 15 }, (_, i) => browserCall(100 + i)), sentAt: '2026-11-28T13:37:01.000Z' };
    assert.equal((await h.post('/v1/batch', batch)).status, 200);
    const [batchRow, singleRow] = (await api.listRequests({ limit: 2 })).items;
    assert.equal((await api.getRequest(singleRow!.id))?.body, JSON.stringify(single));
    assert.equal((await api.getRequest(batchRow!.id))?.body, JSON.stringify(batch));
    // On disk: packed, and much smaller than what came in.
    const stored = h.inspect.all<{ id: number; format: number; kept: number; bytes: number }>(
      'SELECT id, body_format AS format, length(body) AS kept, bytes FROM requests ORDER BY id',
    );
    assert.deepEqual(stored.map((r) => r.format), [REQUEST_BODY_DEFLATE_1, REQUEST_BODY_DEFLATE_1]);
    for (const r of stored) assert.ok(r.kept < r.bytes / 2, `call ${r.id}: ${r.kept} bytes kept of ${r.bytes}`);
    // A log from before keeps its bodies as text in the same column: read as they are.
    h.inspect.run('UPDATE requests SET body = ?, body_format = ? WHERE id = ?', JSON.stringify(single), REQUEST_BODY_TEXT, singleRow!.id);
    assert.equal((await api.getRequest(singleRow!.id))?.body, JSON.stringify(single));
  } finally {
    await h.close();
  }
});
