import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESERVED_HEADERS, SIGNING_SCHEMES, validateDestinationInput } from '../../../src-shared/settings';
import { createEngine } from '../index';
import { LogInspector } from '../store/inspect';
import { signBody } from './signature';
import { signatureHeaders, signerFor, verifyReceived, xSignatureAndStandard } from './signers';
import { Webhook } from 'standardwebhooks';
import { standardWebhooksSecret } from '../../../src-shared/signing';

const body = Buffer.from('{"type":"track"}');

test('a destination signs with its scheme; without one, or gone, with X-Signature', () => {
  assert.equal(signerFor({ signing: 'x-signature' }).scheme, 'x-signature');
  assert.equal(signerFor(undefined).scheme, 'x-signature');
  assert.deepEqual(signatureHeaders(signerFor(undefined), 'k', { body, deliveryId: 7, at: 0 }), { 'X-Signature': signBody(body, 'k') });
  for (const secret of [null, '']) assert.deepEqual(signatureHeaders(signerFor(undefined), secret, { body, deliveryId: 7, at: 0 }), {});
});

test('the whsec_ form is the secret’s UTF-8 bytes in base64: the reference library keys its HMAC with those bytes', () => {
  for (const secret of ['s3cret', 'clé ☕', 'whsec_not-decoded']) {
    const shown = standardWebhooksSecret(secret);
    assert.ok(shown.startsWith('whsec_'));
    const headers = signatureHeaders(xSignatureAndStandard, secret, { body, deliveryId: 7, at: Date.now() });
    assert.doesNotThrow(() => new Webhook(shown).verify(body.toString('utf8'), headers), secret);
  }
  assert.equal(standardWebhooksSecret('s3cret'), `whsec_${Buffer.from('s3cret').toString('base64')}`);
});

test('the combined signer sets both header sets; webhook-id names the delivery, webhook-timestamp the attempt', () => {
  const a = signatureHeaders(signerFor({ signing: 'x-signature+standard-webhooks' }), 'k', { body, deliveryId: 7, at: 1_700_000_000_999 });
  const b = signatureHeaders(signerFor({ signing: 'x-signature+standard-webhooks' }), 'k', { body, deliveryId: 7, at: 1_700_000_060_000 });
  assert.equal(a['X-Signature'], signBody(body, 'k'));
  assert.equal(a['webhook-id'], b['webhook-id']);
  assert.equal(a['webhook-timestamp'], '1700000000');
  assert.equal(b['webhook-timestamp'], '1700000060');
  assert.notEqual(a['webhook-signature'], b['webhook-signature']);
});

test('verifyReceived: header names in any case, a missing part named, a future timestamp refused, several v1 signatures accepted', () => {
  const at = 1_700_000_000_000;
  const h = signatureHeaders(xSignatureAndStandard, 'k', { body, deliveryId: 3, at });
  const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
  assert.deepEqual(verifyReceived({ headers: upper, body, secret: 'k', now: at }).map((v) => v.ok), [true, true]);
  const rotated = { ...h, 'webhook-signature': `v1,AAAA ${h['webhook-signature']}` };
  assert.equal(verifyReceived({ headers: rotated, body, secret: 'k', now: at })[1]?.ok, true);
  const { 'webhook-id': _id, ...noId } = h;
  assert.match(verifyReceived({ headers: noId, body, secret: 'k', now: at })[1]?.reason ?? '', /missing webhook-id/);
  assert.match(verifyReceived({ headers: h, body, secret: 'k', now: at - 10 * 60_000 })[1]?.reason ?? '', /in the future/);
  assert.deepEqual(verifyReceived({ headers: { 'content-type': 'application/json' }, body, secret: 'k', now: at }), []);
});

test('every scheme’s headers are reserved, and an unknown scheme is refused by field', () => {
  for (const scheme of Object.values(SIGNING_SCHEMES)) for (const h of scheme.headers) assert.ok(RESERVED_HEADERS.includes(h), h);
  const d = { name: 'd', webhooks: [{ url: 'http://127.0.0.1:9/x', headers: {} }] };
  assert.deepEqual(validateDestinationInput({ ...d, signing: 'x-signature' }), []);
  assert.deepEqual(validateDestinationInput({ ...d, signing: 'rot13' }), [{ field: 'destination.signing', message: 'must be one of x-signature, x-signature+standard-webhooks' }]);
});

test('the scheme is stored with the destination; a save without one keeps it; one this build does not know signs the default way', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-signing-'));
  const engine = createEngine({ dataDir: dir });
  try {
    const destination = { name: 'd', enabled: true, sources: [], sharedSecret: 's', webhooks: [{ url: 'http://127.0.0.1:9/x', headers: {} }] };
    engine.stores.config.upsertDestination({ ...destination, signing: 'x-signature' }, 0);
    assert.equal(engine.stores.config.upsertDestination(destination, 1).signing, 'x-signature');
    assert.equal(engine.stores.config.listDestinations()[0]?.signing, 'x-signature');
    // As a newer build would leave it.
    const file = LogInspector.of(dir);
    try {
      file.run("UPDATE destinations SET signing = 'from-the-future'");
      assert.equal(engine.stores.config.upsertDestination(destination, 2).signing, 'x-signature', 'read as the default');
      assert.equal(file.value("SELECT signing FROM destinations WHERE name = 'd'"), 'from-the-future', 'kept as stored');
    } finally {
      file.close();
    }
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
