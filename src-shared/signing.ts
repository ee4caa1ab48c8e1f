/**
 * How a destination's one shared secret is written for each signing scheme. X-Signature keys its
 * HMAC with the secret's UTF-8 bytes; Standard Webhooks libraries take a key written as `whsec_`
 * followed by the key's bytes in base64. Both schemes use the same key bytes, so the `whsec_` form
 * is those UTF-8 bytes in base64: a receiver pastes it into `new Webhook(…)` as is, and a secret
 * that already looks like `whsec_…` is still just its own characters, never decoded.
 * Runs in the engine and in the window (no Node APIs).
 */
export const STANDARD_WEBHOOKS_SECRET_PREFIX = 'whsec_';

function base64OfUtf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The string a Standard Webhooks receiver configures for this shared secret. */
export function standardWebhooksSecret(sharedSecret: string): string {
  return STANDARD_WEBHOOKS_SECRET_PREFIX + base64OfUtf8(sharedSecret);
}
