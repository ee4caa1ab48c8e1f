/**
 * The request headers for one webhook entry. Pure.
 */
import { RESERVED_HEADERS, WEBHOOK_USER_AGENT, type WebhookEntry } from '../../../src-shared/settings';

/**
 * The entry's static headers come first, then the headers the destination owns, its signer's last
 * (signatureHeaders in signers.ts). Validation already refuses static headers named like the
 * reserved ones; they are skipped here as well so that a row written before that rule (or by hand)
 * can never send two Content-Types or a forged signature.
 */
export function buildRequestHeaders(entry: WebhookEntry, signature: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(entry.headers)) {
    if (RESERVED_HEADERS.includes(name.toLowerCase())) continue;
    headers[name] = value;
  }
  headers['Content-Type'] = 'application/json';
  headers['User-Agent'] = WEBHOOK_USER_AGENT;
  return Object.assign(headers, signature);
}
