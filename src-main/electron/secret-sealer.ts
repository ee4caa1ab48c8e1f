/**
 * The shared secret at rest, sealed with the operating system's keychain through Electron's
 * safeStorage (DESIGN.md: security posture). Kept free of electron: main.ts passes safeStorage in.
 */
import type { SecretSealer } from '../engine/store/config-store';

/** The part of Electron's safeStorage this needs. */
export interface StringEncryptor {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** A sealer over the encryptor, or undefined when the system offers no encryption (the store then keeps plain text, as headless mode does). */
export function sealerFrom(encryptor: StringEncryptor): SecretSealer | undefined {
  if (!encryptor.isEncryptionAvailable()) return undefined;
  return {
    seal: (plain) => encryptor.encryptString(plain).toString('base64'),
    open: (sealed) => encryptor.decryptString(Buffer.from(sealed, 'base64')),
  };
}
