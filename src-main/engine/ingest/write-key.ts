import type { IncomingHttpHeaders } from 'node:http';

/**
 * The write key from Basic auth (user name, empty password, with or without the colon) or from the
 * body's writeKey field (docs/tracking-api.md). Clients differ; neither is required if the other is there.
 */
export function writeKeyFrom(headers: IncomingHttpHeaders, body: Record<string, unknown>): string | null {
  const auth = headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Basic\s+(.+)$/i.exec(auth.trim());
    if (m) {
      const decoded = Buffer.from(m[1] as string, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const user = colon === -1 ? decoded : decoded.slice(0, colon);
      if (user !== '') return user;
    }
  }
  return typeof body.writeKey === 'string' && body.writeKey !== '' ? body.writeKey : null;
}
