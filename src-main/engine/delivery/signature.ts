/**
 * X-Signature: lowercase hex HMAC-SHA1 of the exact body bytes, keyed with the shared secret
 * (spec "Authentication"; wire-facts 18). Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const SHA1_HEX = /^[0-9a-f]{40}$/;

export function signBody(body: Uint8Array, secret: string): string {
  return createHmac('sha1', secret).update(body).digest('hex');
}

/**
 * Checks a received X-Signature the way a receiver should. The spec allows "lowercase-or-plain" hex,
 * so case is ignored; the comparison is on the decoded bytes and constant-time so a caller probing
 * with guesses learns nothing from timing.
 */
export function verifySignature(body: Uint8Array, secret: string, header: string): boolean {
  const given = header.trim().toLowerCase();
  if (!SHA1_HEX.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(signBody(body, secret), 'hex'));
}
