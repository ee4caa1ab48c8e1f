import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESERVED_HEADERS, SIGNING_SCHEMES, validateDestinationInput } from '../../../src-shared/settings';
import { createEngine } from '../index';
import { LogInspector } from '../store/inspect';
import { signBody } from './signature';
import { signatureHeaders, signerFor } from './signers';

const body = Buffer.from('{"type":"track"}');

test('a destination signs with its scheme; without one, or gone, with X-Signature', () => {
  assert.equal(signerFor({ signing: 'x-signature' }).scheme, 'x-signature');
  assert.equal(signerFor(undefined).scheme, 'x-signature');
  assert.deepEqual(signatureHeaders(signerFor(undefined), 'k', { body, deliveryId: 7, at: 0 }), { 'X-Signature': signBody(body, 'k') });
  for (const secret of [null, '']) assert.deepEqual(signatureHeaders(signerFor(undefined), secret, { body, deliveryId: 7, at: 0 }), {});
});

test('every scheme’s headers are reserved, and an unknown scheme is refused by field', () => {
  for (const scheme of Object.values(SIGNING_SCHEMES)) for (const h of scheme.headers) assert.ok(RESERVED_HEADERS.includes(h), h);
  const d = { name: 'd', webhooks: [{ url: 'http://127.0.0.1:9/x', headers: {} }] };
  assert.deepEqual(validateDestinationInput({ ...d, signing: 'x-signature' }), []);
  assert.deepEqual(validateDestinationInput({ ...d, signing: 'rot13' }), [{ field: 'destination.signing', message: 'must be one of x-signature' }]);
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
