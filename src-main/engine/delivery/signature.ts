/**
 * X-Signature: lowercase hex HMAC-SHA1 of the exact body bytes, keyed with the shared secret. The
 * default signer of a destination. Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SignatureCheck } from '../../../src-shared/api';
import type { SignatureInput, Signer } from './signers';

const SHA1_HEX = /^[0-9a-f]{40}$/;

export function signBody(body: Uint8Array, secret: string): string {
  return createHmac('sha1', secret).update(body).digest('hex');
}

/**
 * Checks a received X-Signature the way a receiver should. Hex digits may come in either case,
 * so case is ignored; the comparison is on the decoded bytes and constant-time so a caller probing
 * with guesses learns nothing from timing.
 */
export function verifySignature(body: Uint8Array, secret: string, header: string): boolean {
  const given = header.trim().toLowerCase();
  if (!SHA1_HEX.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(signBody(body, secret), 'hex'));
}

/** Header names are case-insensitive on the wire, so they are here too. */
export function headerValue(headers: Record<string, string>, name: string): string | null {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return null;
}

export function checkSignature(input: SignatureInput): SignatureCheck {
  // An empty secret signs nothing (signatureHeaders treats it as unset), so it is read the same way.
  const secret = input.secret ? input.secret : null;
  const expected = secret !== null && input.body !== null ? signBody(input.body, secret) : null;
  if (input.sentHeaders === null) {
    return {
      state: 'not_sent',
      expected,
      sent: null,
      explanation:
        secret === null
          ? 'nothing sent yet; the destination has no shared secret, so it will go out unsigned'
          : 'nothing sent yet; the first attempt will carry an X-Signature made with the current shared secret',
    };
  }
  const sent = headerValue(input.sentHeaders, 'x-signature');
  if (secret === null) {
    return sent === null
      ? { state: 'no_secret', expected: null, sent: null, explanation: 'the destination has no shared secret, so no X-Signature was sent' }
      : {
          state: 'no_secret',
          expected: null,
          sent,
          explanation: 'cannot be checked: an X-Signature was sent, but the destination has no shared secret now (it was removed after sending)',
        };
  }
  if (sent === null) {
    return {
      state: 'mismatch',
      expected,
      sent: null,
      explanation: 'sent without X-Signature: the destination had no shared secret then; the secret it has now was set after sending',
    };
  }
  if (input.body === null) {
    return { state: 'mismatch', expected: null, sent, explanation: 'cannot be recomputed: the stored body is missing' };
  }
  if (verifySignature(input.body, secret, sent)) {
    return { state: 'valid', expected, sent, explanation: 'the HMAC-SHA1 of the stored body with the current shared secret matches the X-Signature sent' };
  }
  return {
    state: 'mismatch',
    expected,
    sent,
    explanation:
      'the X-Signature sent is not the HMAC-SHA1 of the stored body with the current shared secret. ' +
      'Either the secret was changed after sending or the body differs from the bytes signed; Hookbench stores the exact bytes it signs, so a changed secret is the likely cause',
  };
}

export const xSignature: Signer = {
  scheme: 'x-signature',
  sign: ({ body, secret }) => ({ 'X-Signature': signBody(body, secret) }),
  check: checkSignature,
};
