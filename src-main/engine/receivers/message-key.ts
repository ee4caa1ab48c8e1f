/**
 * The message a request at a test receiver carries, so a script can be counted per message: the
 * `webhook-id` header when present (Standard Webhooks gives every attempt of a message the same
 * one), else the JSON body's top-level `messageId` string (a Segment payload), else none.
 */

/** The request's message key from its header lines (as received) and body bytes; null for none. Pure. */
export function messageKeyOf(headers: readonly (readonly [string, string])[], body: Uint8Array): string | null {
  const header = headers.find(([name]) => name.toLowerCase() === 'webhook-id');
  const id = header?.[1].trim();
  if (id) return id;
  return messageIdOf(body);
}

function messageIdOf(body: Uint8Array): string | null {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  // Only an object can carry the field: anything else is not parsed at all.
  if (!text.trimStart().startsWith('{')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const value = (parsed as Record<string, unknown>).messageId;
  return typeof value === 'string' && value !== '' ? value : null;
}
