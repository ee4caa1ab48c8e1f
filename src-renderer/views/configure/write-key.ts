/**
 * Random keys made in the browser (write keys, shared secrets), from crypto.getRandomValues so no
 * key ever depends on Math.random. Base62 keeps them safe inside quotes, URLs and Basic auth.
 */
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 62 × 4: bytes at or above it are drawn again, so every character is equally likely. */
const UNBIASED_LIMIT = 248;

export const WRITE_KEY_PREFIX = 'wk_';
export const WRITE_KEY_LENGTH = 24;

export type RandomBytes = (bytes: Uint8Array) => Uint8Array;

const cryptoBytes: RandomBytes = (bytes) => globalThis.crypto.getRandomValues(bytes);

/** `length` base62 characters, drawn without modulo bias. */
export function randomBase62(length: number, random: RandomBytes = cryptoBytes): string {
  let out = '';
  // Each byte is kept with probability 248/256, so a few refills at most; the bound only guards a broken source.
  for (let refills = 0; out.length < length; refills++) {
    if (refills > 64) throw new Error('the random source keeps answering out-of-range bytes');
    for (const byte of random(new Uint8Array(length * 2))) {
      if (byte < UNBIASED_LIMIT) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A fresh write key, e.g. wk_3fJ9aQ…: passes validateSourceInput's write-key rule. */
export function generateWriteKey(random: RandomBytes = cryptoBytes): string {
  return WRITE_KEY_PREFIX + randomBase62(WRITE_KEY_LENGTH, random);
}

/** A fresh shared secret for a destination. */
export function generateSecret(random: RandomBytes = cryptoBytes): string {
  return randomBase62(32, random);
}
