import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealerFrom, secretStorageFrom, type StringEncryptor } from '../../electron/secret-sealer';
import { startHarness, configWith } from '../testing/harness';
import { Receiver } from '../testing/receiver';
import { SEALED_PREFIX } from './config-store';
import type { LogInspector } from './inspect';

/** A stand-in for safeStorage: real AES-256-GCM under a key held in memory, as a keychain would hold it. */
function aesEncryptor(key = randomBytes(32), backend = 'gnome_libsecret'): StringEncryptor {
  return {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => backend,
    encryptString(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), data]);
    },
    decryptString(sealed) {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

const SECRET = 's3cret'; // what configWith gives the destination
const hmac = (secret: string, body: Buffer): string => createHmac('sha1', secret).update(body).digest('hex');
const storedSecret = (h: { inspect: LogInspector }): string | null => h.inspect.value<string | null>('SELECT shared_secret FROM destinations');

describe('shared secret sealed at rest', () => {
  test('the column holds only the sealed form; reading opens it; the webhook is signed with the plain secret', async () => {
    const receiver = await new Receiver().start();
    const h = await startHarness(configWith(receiver.url), { secrets: sealerFrom(aesEncryptor()) });
    try {
      const stored = storedSecret(h) ?? '';
      assert.ok(stored.startsWith(SEALED_PREFIX), `stored as ${stored}`);
      assert.ok(!stored.includes(SECRET) && !stored.includes(Buffer.from(SECRET).toString('base64')), 'the plain secret is not in the file');
      assert.equal(h.engine.stores.config.listDestinations()[0]?.sharedSecret, SECRET);

      const res = await h.post('/v1/batch', { batch: [{ type: 'track', userId: 'u1', event: 'Sealed', messageId: 'seal-1' }] });
      assert.equal(res.status, 200);
      await receiver.waitFor(1);
      const got = receiver.received[0];
      assert.ok(got);
      assert.equal(got.headers['x-signature'], hmac(SECRET, got.body));
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('the same keychain opens it after a restart; without it the secret reads as none, never as the sealed text', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-seal-'));
    const encryptor = aesEncryptor();
    try {
      const first = await startHarness(configWith('http://127.0.0.1:9/hook'), { dataDir, secrets: sealerFrom(encryptor) });
      await first.close();

      const again = await startHarness({ sources: [], destinations: [] }, { dataDir, secrets: sealerFrom(encryptor) });
      assert.equal(again.engine.stores.config.listDestinations()[0]?.sharedSecret, SECRET);
      await again.close();

      const otherKeychain = await startHarness({ sources: [], destinations: [] }, { dataDir, secrets: sealerFrom(aesEncryptor()) });
      assert.equal(otherKeychain.engine.stores.config.listDestinations()[0]?.sharedSecret, null);
      await otherKeychain.close();

      const headless = await startHarness({ sources: [], destinations: [] }, { dataDir });
      assert.equal(headless.engine.stores.config.listDestinations()[0]?.sharedSecret, null);
      await headless.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a plain row written without a sealer still reads, and is sealed when next saved', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-seal-'));
    try {
      const headless = await startHarness(configWith('http://127.0.0.1:9/hook'), { dataDir });
      assert.equal(storedSecret(headless), SECRET);
      await headless.close();

      const desktop = await startHarness({ sources: [], destinations: [] }, { dataDir, secrets: sealerFrom(aesEncryptor()) });
      try {
        assert.equal(desktop.engine.stores.config.listDestinations()[0]?.sharedSecret, SECRET);
        desktop.engine.applyConfig(configWith('http://127.0.0.1:9/hook', { sharedSecret: 'n3w' }));
        assert.ok(storedSecret(desktop)?.startsWith(SEALED_PREFIX));
        assert.equal(desktop.engine.stores.config.listDestinations()[0]?.sharedSecret, 'n3w');
      } finally {
        await desktop.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('no secret stays no secret, and a system without encryption keeps secrets plain', async () => {
    const sealed = await startHarness(configWith('http://127.0.0.1:9/hook', { sharedSecret: null }), { secrets: sealerFrom(aesEncryptor()) });
    try {
      assert.equal(storedSecret(sealed), null);
      assert.equal(sealed.engine.stores.config.listDestinations()[0]?.sharedSecret, null);
    } finally {
      await sealed.close();
    }
    const unavailable = sealerFrom({ ...aesEncryptor(), isEncryptionAvailable: () => false });
    assert.equal(unavailable, undefined);
  });

  test("Linux's basic_text backend (a key everyone knows) is not sealing: new secrets are stored plain, earlier sealed ones still open", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-seal-'));
    const key = randomBytes(32);
    try {
      const sealedBefore = await startHarness(configWith('http://127.0.0.1:9/hook'), { dataDir, secrets: sealerFrom(aesEncryptor(key, 'gnome_libsecret'), 'linux') });
      assert.ok(storedSecret(sealedBefore)?.startsWith(SEALED_PREFIX));
      await sealedBefore.close();

      const basic = secretStorageFrom(aesEncryptor(key, 'basic_text'), 'linux');
      assert.equal(basic.atRest.sealed, false);
      assert.match(basic.atRest.reason, /not encrypted: no keychain .* backend is basic_text.*plain text in hookbench\.sqlite/);
      const h = await startHarness({ sources: [], destinations: [] }, { dataDir, secrets: basic.sealer, secretsAtRest: basic.atRest });
      try {
        assert.equal(h.engine.stores.config.listDestinations()[0]?.sharedSecret, SECRET, 'the earlier sealed value still opens');
        h.engine.applyConfig(configWith('http://127.0.0.1:9/hook', { sharedSecret: 'n3w' }));
        assert.equal(storedSecret(h), 'n3w', 'stored plain, not pretend-sealed');
        assert.deepEqual(h.engine.secretsAtRest, basic.atRest);
      } finally {
        await h.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('what Configure is told: sealed with a real keychain (and always on macOS and Windows), plain otherwise', () => {
    for (const backend of ['gnome_libsecret', 'kwallet', 'kwallet6']) assert.equal(secretStorageFrom(aesEncryptor(undefined, backend), 'linux').atRest.sealed, true, backend);
    for (const backend of ['basic_text', 'unknown']) assert.equal(secretStorageFrom(aesEncryptor(undefined, backend), 'linux').atRest.sealed, false, backend);
    assert.equal(secretStorageFrom(aesEncryptor(undefined, 'basic_text'), 'darwin').atRest.sealed, true);
    assert.equal(secretStorageFrom(aesEncryptor(undefined, 'basic_text'), 'win32').atRest.sealed, true);
    const none = secretStorageFrom({ ...aesEncryptor(), isEncryptionAvailable: () => false }, 'darwin');
    assert.deepEqual([none.sealer, none.atRest.sealed], [undefined, false]);
  });
});
