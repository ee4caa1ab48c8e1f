/**
 * Who may drive the headless control API (DESIGN.md: security posture). Any web page the user
 * visits can reach 127.0.0.1, so /api/* demands three things: the per-launch token (a page cannot
 * read it), a Host naming this server (a DNS-rebound name fails), and, when the browser sends one, our
 * own Origin. The Tracking API (/v1/*) is not guarded here: SDKs carry a write key, not a token.
 * Pure functions apart from generateToken, so that every verdict is a row in a table test.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export interface AuthContext {
  token: string;
  /** The address given to listen() and the one it resolved to (e.g. localhost → 127.0.0.1). */
  listenHosts: string[];
  port: number;
}

export interface ApiRequestHeaders {
  method: string;
  url: string;
  host?: string | undefined;
  origin?: string | undefined;
  authorization?: string | undefined;
}

export type AuthVerdict = { ok: true } | { ok: false; status: 401 | 403; code: string; message: string };

export function generateToken(): string {
  return randomBytes(24).toString('base64url');
}

/** HOOKBENCH_TOKEN for tests and CI; refused when short enough to guess or unsafe in a URL. */
export function tokenFromEnv(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[A-Za-z0-9_-]{16,200}$/.test(value)) {
    throw new Error('HOOKBENCH_TOKEN must be 16 to 200 characters of letters, digits, _ and -');
  }
  return value;
}

/** `host:port` as a Host header names it: IPv6 literals in brackets, lower case. */
function authority(host: string, port: number): string {
  const h = host.toLowerCase();
  return h.includes(':') && !h.startsWith('[') ? `[${h}]:${port}` : `${h}:${port}`;
}

export function allowedHosts(ctx: Pick<AuthContext, 'listenHosts' | 'port'>): Set<string> {
  return new Set([...ctx.listenHosts, 'localhost', '127.0.0.1'].map((h) => authority(h, ctx.port)));
}

export function allowedOrigins(ctx: Pick<AuthContext, 'listenHosts' | 'port'>): Set<string> {
  return new Set([...allowedHosts(ctx)].map((a) => `http://${a}`));
}

/** The bearer token, or for GET the `token` query parameter (EventSource cannot set headers). */
export function presentedToken(req: Pick<ApiRequestHeaders, 'method' | 'url' | 'authorization'>): string | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.authorization ?? '');
  if (bearer) return bearer[1] ?? null;
  if (req.method !== 'GET') return null;
  const query = req.url.indexOf('?');
  if (query === -1) return null;
  return new URLSearchParams(req.url.slice(query + 1)).get('token');
}

/** Constant-time whatever the lengths: both sides are hashed to the same size first. */
export function tokensMatch(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export function checkApiRequest(ctx: AuthContext, req: ApiRequestHeaders): AuthVerdict {
  // Host and Origin first: a rebound or cross-site caller learns nothing about the token check.
  if (req.host === undefined || !allowedHosts(ctx).has(req.host.toLowerCase())) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden_host',
      message: `Host "${req.host ?? ''}" is not this server; use http://127.0.0.1:${ctx.port} or http://localhost:${ctx.port}`,
    };
  }
  if (req.origin !== undefined && !allowedOrigins(ctx).has(req.origin.toLowerCase())) {
    return { ok: false, status: 403, code: 'forbidden_origin', message: `Origin "${req.origin}" may not call the control API` };
  }
  const token = presentedToken(req);
  if (token === null || !tokensMatch(token, ctx.token)) {
    return {
      ok: false,
      status: 401,
      code: 'unauthorized',
      message: 'the control API needs the launch token (Authorization: Bearer TOKEN); hookbench serve prints it on stderr',
    };
  }
  return { ok: true };
}
