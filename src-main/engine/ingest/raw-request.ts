/**
 * What Inbound keeps of a call as it arrived: its headers with credentials masked (the write key
 * is a secret the log otherwise never stores), and its body cut to a bound. Pure.
 */
import type { IncomingHttpHeaders } from 'node:http';

const MASKED = new Set(['authorization', 'proxy-authorization', 'cookie']);
/** Longest kept header value, in characters: a header is a line, not a document. */
export const MAX_HEADER_VALUE = 1024;

/** "Basic dGVzdDo=" → "Basic •••• (8 characters)": the scheme stays, the secret does not. */
export function maskCredential(value: string): string {
  const space = value.indexOf(' ');
  const scheme = space > 0 ? value.slice(0, space + 1) : '';
  const secret = space > 0 ? value.slice(space + 1) : value;
  return `${scheme}•••• (${secret.length} characters, not stored)`;
}

/** The headers as one JSON object, names lower case; repeated headers joined with ", ". */
export function headersText(headers: IncomingHttpHeaders): string {
  const kept: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    const masked = MASKED.has(name) ? maskCredential(value) : value;
    kept[name] = masked.length > MAX_HEADER_VALUE ? `${masked.slice(0, MAX_HEADER_VALUE)}… (${masked.length - MAX_HEADER_VALUE} more characters not stored)` : masked;
  }
  return JSON.stringify(kept);
}
