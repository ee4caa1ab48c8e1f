/**
 * Who may drive the headless control API. Any web page the user
 * visits can reach 127.0.0.1, so /api/* demands three things: the per-launch token (a page cannot
 * read it), a Host naming this server (a DNS-rebound name fails), and, when the browser sends one, our
 * own Origin. The Tracking API (/v1/*) needs no token (SDKs carry a write key), only the Host check.
 * Pure functions apart from generateToken, so that every verdict is a row in a table test.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

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

export interface HostName {
  /** Lower case; an IPv6 address without its brackets, in its shortest form. */
  name: string;
  /** null when the header gives none. */
  port: number | null;
}

/**
 * The name and port of a Host header (or an Origin's authority), or null when it is not a plain
 * `host[:port]`: anything with user info, a path or spaces is refused rather than guessed at.
 */
export function parseHost(header: string): HostName | null {
  if (header === '' || /[@/\\?#\s]/.test(header)) return null;
  let url: URL;
  try {
    url = new URL(`http://${header}`);
  } catch {
    return null;
  }
  const name = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  // URL drops the scheme's default port; the header may still have named it.
  const port = url.port !== '' ? Number(url.port) : /:80$/.test(header) ? 80 : null;
  return { name, port };
}

/** localhost, *.localhost, 127.0.0.0/8 and ::1 (also as ::ffff:127.x.y.z): names only this machine answers to. */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  if (n === 'localhost' || n.endsWith('.localhost')) return true;
  if (isIPv4(n)) return n.startsWith('127.');
  if (!isIPv6(n)) return false;
  const canonical = new URL(`http://[${n}]`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

function sameName(a: string, b: string): boolean {
  const pa = parseHost(isIPv6(a) ? `[${a}]` : a);
  const pb = parseHost(isIPv6(b) ? `[${b}]` : b);
  return pa !== null && pb !== null && pa.name === pb.name;
}

/**
 * Whether a Host header names this server: a loopback name, or the address it was told to listen
 * on. A DNS-rebound page sends its own domain as Host, which is neither. With port 'same', the
 * header must also give the port the server listens on.
 */
export function hostNamesServer(ctx: Pick<AuthContext, 'listenHosts' | 'port'>, header: string | undefined, port: 'same' | 'any'): boolean {
  const host = header === undefined ? null : parseHost(header);
  if (host === null) return false;
  if (port === 'same' && host.port !== ctx.port) return false;
  return isLoopbackName(host.name) || ctx.listenHosts.some((h) => sameName(h, host.name));
}

/** Bound to a loopback address (listenHosts holds the name given and the address it resolved to). */
export function listensOnLoopback(ctx: Pick<AuthContext, 'listenHosts'>): boolean {
  return ctx.listenHosts.some(isLoopbackName);
}

const ACCEPTED_HOSTS = 'localhost, *.localhost, 127.0.0.0/8 or [::1]';

/**
 * The Tracking API takes SDK calls (a write key, no token), but a page the user visits could reach
 * a loopback listener through a DNS-rebound name: on loopback, a Host that does not name this
 * machine is refused. On another address the API is meant to be reached from elsewhere, under
 * whatever name the network gives it, so any Host is taken there.
 */
export function checkIngestHost(ctx: Pick<AuthContext, 'listenHosts' | 'port'>, host: string | undefined): AuthVerdict {
  if (!listensOnLoopback(ctx) || hostNamesServer(ctx, host, 'any')) return { ok: true };
  const given = ctx.listenHosts.filter((h) => !isLoopbackName(h));
  return {
    ok: false,
    status: 403,
    code: 'forbidden_host',
    message:
      `Host "${host ?? ''}" is not this machine: the Tracking API listens on loopback and takes only ${ACCEPTED_HOSTS}` +
      `${given.length > 0 ? ` or ${given.join(', ')}` : ''} as Host (send to http://127.0.0.1:${ctx.port})`,
  };
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

/** An http:// origin whose authority names this server, port included. */
function isOwnOrigin(ctx: Pick<AuthContext, 'listenHosts' | 'port'>, origin: string): boolean {
  const m = /^http:\/\/([^/]+)$/i.exec(origin);
  return m !== null && hostNamesServer(ctx, m[1], 'same');
}

export function checkApiRequest(ctx: AuthContext, req: ApiRequestHeaders): AuthVerdict {
  // Host and Origin first: a rebound or cross-site caller learns nothing about the token check.
  if (!hostNamesServer(ctx, req.host, 'same')) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden_host',
      message: `Host "${req.host ?? ''}" is not this server; use http://127.0.0.1:${ctx.port} or http://localhost:${ctx.port}`,
    };
  }
  if (req.origin !== undefined && !isOwnOrigin(ctx, req.origin)) {
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
