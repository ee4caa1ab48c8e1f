/**
 * The shared secret at rest, sealed with the operating system's keychain through Electron's
 * safeStorage. Kept free of electron: main.ts passes safeStorage in.
 */
import type { SecretSealer } from '../engine/store/config-store';
import type { SecretsAtRest } from '../../src-shared/api';

/** The part of Electron's safeStorage this needs. */
export interface StringEncryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: which store holds the key (basic_text, gnome_libsecret, kwallet, kwallet5, kwallet6, unknown). */
  getSelectedStorageBackend?(): string;
}

export interface SecretStorage {
  /** undefined: secrets are stored plain and nothing sealed before can be opened. */
  sealer: SecretSealer | undefined;
  atRest: SecretsAtRest;
}

const PLAIN_FILE = 'they are stored as plain text in hookbench.sqlite, a file only your user account can read';

function sealer(encryptor: StringEncryptor): Required<SecretSealer> {
  return {
    seal: (plain) => encryptor.encryptString(plain).toString('base64'),
    open: (sealed) => encryptor.decryptString(Buffer.from(sealed, 'base64')),
  };
}

/**
 * Seals only when a real keychain holds the key. On Linux without Secret Service or KWallet,
 * safeStorage still "encrypts", with its basic_text backend, under a key written in Chromium's
 * source: that would only look sealed, so secrets are then stored plain and the user is told.
 * Values sealed that way earlier can still be opened (the key is the same everywhere), and are
 * written plain when next saved. macOS (Keychain) and Windows (DPAPI) always have a real one.
 */
export function secretStorageFrom(encryptor: StringEncryptor, platform: NodeJS.Platform = process.platform): SecretStorage {
  if (!encryptor.isEncryptionAvailable()) {
    return { sealer: undefined, atRest: { sealed: false, reason: `Shared secrets are not encrypted: this system offers no keychain, so ${PLAIN_FILE}.` } };
  }
  if (platform === 'linux') {
    const backend = encryptor.getSelectedStorageBackend?.() ?? 'unknown';
    if (!/^(gnome_libsecret|kwallet\d*)$/.test(backend)) {
      const { open } = sealer(encryptor);
      return {
        sealer: { open },
        atRest: {
          sealed: false,
          reason: `Shared secrets are not encrypted: no keychain (Secret Service or KWallet) is running (Electron's storage backend is ${backend}), so ${PLAIN_FILE}.`,
        },
      };
    }
  }
  return { sealer: sealer(encryptor), atRest: { sealed: true, reason: 'Shared secrets are encrypted with the system keychain before they are stored.' } };
}

/** The sealer alone: undefined when the system offers no encryption (the store then keeps plain text, as headless mode does). */
export function sealerFrom(encryptor: StringEncryptor, platform: NodeJS.Platform = process.platform): SecretSealer | undefined {
  return secretStorageFrom(encryptor, platform).sealer;
}
