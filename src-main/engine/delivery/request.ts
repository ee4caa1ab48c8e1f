/**
 * The request headers for one webhook entry (DESIGN.md "Delivery rules"). Pure.
 */
import { RESERVED_HEADERS, WEBHOOK_USER_AGENT, type WebhookEntry } from '../../../src-shared/settings';
import { signBody } from './signature';

/**
 * The entry's static headers come first, then the headers the destination owns. Validation already
 * refuses static headers named like the reserved ones; they are skipped here as well so that a row
 * written before that rule (or by hand) can never send two Content-Types or a forged X-Signature.
 */
export function buildRequestHeaders(
  entry: WebhookEntry,
  body: Uint8Array,
  sharedSecret: string | null,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(entry.headers)) {
    if ((RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase())) continue;
    headers[name] = value;
  }
  headers['Content-Type'] = 'application/json';
  headers['User-Agent'] = WEBHOOK_USER_AGENT;
  // An empty secret signs nothing useful (anyone can compute it), so it counts as "not set".
  if (sharedSecret) headers['X-Signature'] = signBody(body, sharedSecret);
  return headers;
}
