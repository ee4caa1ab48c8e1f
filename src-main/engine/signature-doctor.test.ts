/**
 * The signature doctor against real deliveries: a receiver written as Segment's documentation
 * shows (HMAC over JSON.stringify(req.body)) beside one that signs the raw bytes, and the doctor
 * asked about what the first one computed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { startHarness, configWith } from './testing/harness';
import { Receiver, type Received } from './testing/receiver';
import { createEngineApi } from './api';
import { dispatchCall } from './api/dispatch';

const SECRET = 's3cret';

/** Segment's documented check: the HMAC of JSON.stringify of the parsed body. */
function segmentExample(r: Received): { computed: string; ok: boolean } {
  const computed = createHmac('sha1', SECRET).update(JSON.stringify(JSON.parse(r.body.toString('utf8')))).digest('hex');
  return { computed, ok: computed === r.headers['x-signature'] };
}
/** The check over the raw bytes. */
function rawBytes(r: Received): boolean {
  const digest = createHmac('sha1', SECRET).update(r.body).digest();
  const given = Buffer.from(String(r.headers['x-signature']), 'hex');
  return given.length === digest.length && timingSafeEqual(given, digest);
}

test('Segment’s documented example passes on ingested events (Hookbench re-serialises them once) and fails on an edited replay; the doctor says why', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  try {
    // An SDK that escapes slashes, writes 1.0 and escapes é: the ingest parses it, and the delivery is written once by JSON.stringify.
    const raw = '{"batch":[{"type":"track","userId":"u1","event":"Bought","messageId":"d-1","properties":{"price":1.0,"name":"caf\\u00e9","url":"https:\\/\\/shop.test\\/a"}}]}';
    assert.equal((await h.post('/v1/batch', null, { raw })).status, 200);
    await receiver.waitFor(1);
    const ingested = receiver.received[0]!;
    assert.match(ingested.body.toString('utf8'), /"price":1,"name":"café","url":"https:\/\/shop.test\/a"/);
    assert.equal(segmentExample(ingested).ok, true, 'compact JSON.stringify output survives JSON.stringify(JSON.parse(...))');
    assert.equal(rawBytes(ingested), true);

    // A replay edited by hand keeps its bytes as typed: here Segment's example fails and the raw check passes.
    const api = createEngineApi(h.engine);
    const first = Number(h.inspect.value('SELECT id FROM deliveries ORDER BY id LIMIT 1'));
    const edited = '{"type":"track","userId":"u1","event":"Bought","properties":{"price":1.0,"name":"caf\\u00e9","url":"https:\\/\\/shop.test\\/a"}}';
    const replay = await api.replayDelivery({ id: first, body: edited });
    await receiver.waitFor(2);
    const got = receiver.received[1]!;
    assert.equal(got.body.toString('utf8'), edited);
    const segment = segmentExample(got);
    assert.equal(segment.ok, false, 'Segment’s example refuses a genuine delivery');
    assert.equal(rawBytes(got), true, 'the raw-bytes check accepts it');

    const bySignature = await api.diagnoseSignature({ id: replay.id, pasted: segment.computed });
    assert.equal(bySignature.verdict, 'differs');
    assert.deepEqual(bySignature.findings.map((f) => f.code), ['reserialised']);
    assert.match(bySignature.findings[0]!.detail, /Segment's documented example/);

    const byBody = await api.diagnoseSignature({ id: replay.id, pasted: JSON.stringify(JSON.parse(got.body.toString('utf8'))) });
    assert.equal(byBody.read, 'body');
    assert.deepEqual(byBody.findings.map((f) => f.code), ['unicode_escapes', 'escaped_slashes', 'number_format', 'json_stringify']);
    assert.deepEqual(byBody.findings.find((f) => f.code === 'number_format')?.examples[0], { path: '$.properties.price', ours: '1.0', theirs: '1' });

    const right = await api.diagnoseSignature({ id: replay.id, pasted: String(got.headers['x-signature']) });
    assert.equal(right.verdict, 'ok');

    // Refusals name the field.
    const empty = await dispatchCall(api, { method: 'diagnoseSignature', params: { id: replay.id, pasted: '  ' } });
    assert.equal(empty.status, 400);
    assert.deepEqual(empty.response.ok ? null : empty.response.error.fields, [{ field: 'doctor.pasted', message: 'is empty: paste a signature or a body' }]);
    const missing = await dispatchCall(api, { method: 'diagnoseSignature', params: { id: 999_999, pasted: 'abc' } });
    assert.deepEqual(missing.response.ok ? null : missing.response.error.fields, [{ field: 'doctor.id', message: 'no delivery with id 999999' }]);
  } finally {
    await h.close();
    await receiver.close();
  }
});
