/**
 * Standard Webhooks signing: `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. The key is the shared
 * secret's UTF-8 bytes, the same key X-Signature uses; receivers configure it in its `whsec_` form
 * (standardWebhooksSecret). The id names the delivery, so every retry of one delivery carries the
 * same id (a receiver deduplicates on it) while the timestamp is each attempt's own. Pure.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SchemeCheck } from '../../../src-shared/api';
import type { ReceivedFlat, ReceivedVerdict, SignatureInput } from './signers';
import { headerValue } from './signature';

export const WEBHOOK_ID = 'webhook-id';
export const WEBHOOK_TIMESTAMP = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE = 'webhook-signature';
/** How far a received timestamp may be from the receiver's clock, as the reference libraries allow. */
export const TIMESTAMP_TOLERANCE_S = 5 * 60;

export function webhookIdOf(deliveryId: number): string {
  return `msg_hookbench_${deliveryId}`;
}

/** The base64 signature (without `v1,`) of one request. */
export function standardSignature(id: string, timestamp: string, body: Uint8Array, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

export function signStandard(input: { body: Uint8Array; secret: string; deliveryId: number; at: number }): Record<string, string> {
  const id = webhookIdOf(input.deliveryId);
  const timestamp = String(Math.floor(input.at / 1000));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${standardSignature(id, timestamp, input.body, input.secret)}`,
  };
}

/** Whether one of the space-separated `v1,…` signatures is the expected one; constant-time per candidate. */
function anyMatches(header: string, expected: string): boolean {
  const want = Buffer.from(expected, 'base64');
  let found = false;
  for (const part of header.trim().split(/\s+/)) {
    const comma = part.indexOf(',');
    if (comma < 0 || part.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(part.slice(comma + 1), 'base64');
    if (given.length === want.length && timingSafeEqual(given, want)) found = true;
  }
  return found;
}

/** Verifies a request as a receiver would, timestamp included; null when it carries no Standard Webhooks header. */
export function verifyStandardReceived(input: ReceivedFlat): ReceivedVerdict | null {
  const id = headerValue(input.headers, WEBHOOK_ID);
  const timestamp = headerValue(input.headers, WEBHOOK_TIMESTAMP);
  const signature = headerValue(input.headers, WEBHOOK_SIGNATURE);
  if (id === null && timestamp === null && signature === null) return null;
  const verdict = (ok: boolean, reason: string): ReceivedVerdict => ({ scheme: 'standard-webhooks', header: WEBHOOK_SIGNATURE, ok, reason });
  if (id === null || timestamp === null || signature === null) {
    const missing = [id === null && WEBHOOK_ID, timestamp === null && WEBHOOK_TIMESTAMP, signature === null && WEBHOOK_SIGNATURE].filter(Boolean).join(', ');
    return verdict(false, `missing ${missing}`);
  }
  if (!/^\d{1,12}$/.test(timestamp.trim())) return verdict(false, `${WEBHOOK_TIMESTAMP} "${timestamp}" is not Unix seconds`);
  const skew = Math.floor(input.now / 1000) - Number(timestamp.trim());
  if (skew > TIMESTAMP_TOLERANCE_S) return verdict(false, `${WEBHOOK_TIMESTAMP} is ${skew} s old; more than ${TIMESTAMP_TOLERANCE_S} s is refused as a replay`);
  if (-skew > TIMESTAMP_TOLERANCE_S) return verdict(false, `${WEBHOOK_TIMESTAMP} is ${-skew} s in the future; more than ${TIMESTAMP_TOLERANCE_S} s is refused`);
  if (!input.secret) return verdict(false, 'no secret to check with');
  return anyMatches(signature, standardSignature(id, timestamp.trim(), input.body, input.secret))
    ? verdict(true, 'v1 signature matches the id, timestamp and raw body with this secret')
    : verdict(false, 'no v1 signature matches the id, timestamp and raw body with this secret');
}

/** Checks what was sent against the stored body and the current secret (the timestamp is history, not checked). */
export function checkStandard(input: SignatureInput): SchemeCheck {
  const secret = input.secret ? input.secret : null;
  const base = { scheme: 'standard-webhooks' as const, header: WEBHOOK_SIGNATURE };
  if (input.sentHeaders === null) {
    return { ...base, state: 'not_sent', expected: null, sent: null, explanation: 'nothing sent yet' };
  }
  const id = headerValue(input.sentHeaders, WEBHOOK_ID);
  const timestamp = headerValue(input.sentHeaders, WEBHOOK_TIMESTAMP);
  const sent = headerValue(input.sentHeaders, WEBHOOK_SIGNATURE);
  if (secret === null) {
    return { ...base, state: 'no_secret', expected: null, sent, explanation: 'the destination has no shared secret now, so webhook-signature cannot be checked' };
  }
  if (sent === null || id === null || timestamp === null) {
    return {
      ...base,
      state: 'mismatch',
      expected: null,
      sent,
      explanation: 'sent without the Standard Webhooks headers: the destination signed with X-Signature only, or had no secret, when this attempt went out',
    };
  }
  if (input.body === null) return { ...base, state: 'mismatch', expected: null, sent, explanation: 'cannot be recomputed: the stored body is missing' };
  const expected = `v1,${standardSignature(id, timestamp, input.body, secret)}`;
  return anyMatches(sent, expected.slice(3))
    ? { ...base, state: 'valid', expected, sent, explanation: `the HMAC-SHA256 of "${id}.${timestamp}." and the stored body with the current secret matches webhook-signature` }
    : {
        ...base,
        state: 'mismatch',
        expected,
        sent,
        explanation: 'webhook-signature is not the HMAC-SHA256 of the id, timestamp and stored body with the current secret; the secret was likely changed after sending',
      };
}
