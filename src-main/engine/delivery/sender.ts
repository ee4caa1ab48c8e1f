/**
 * The I/O edge of delivery: one POST per AttemptRequest through a keep-alive undici Agent, always
 * answered with an AttemptResult (never a throw), so the scheduler only ever deals in data.
 *
 * Deadlines run on the injected clock, so tests and time-warp move them; durations are measured
 * with performance.now(), because a warped or manual clock says nothing about how long the network took.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import type { Clock, ClockTimer } from '../clock';
import { ConnectionGate, type GateOptions, type GatePass } from './connection-gate';
import { failureText, type AttemptFailure } from '../../../src-shared/delivery-outcomes';
import { RESPONSE_BODY_CAP, type AttemptRequest, type AttemptResult, type AttemptTimings, type Sender } from './types';

/**
 * Bytes of response body read at most. Beyond RESPONSE_BODY_CAP the bytes are only counted; past this
 * bound the response is cut off, so a receiver streaming forever cannot hold a connection or memory.
 */
export const RESPONSE_READ_LIMIT = 1024 * 1024;

export interface SenderOptions {
  clock: Clock;
  /** Extra CA certificate(s) to trust besides the system roots, e.g. a developer's local CA. */
  ca?: string | Buffer;
  /** How many attempts go to one origin at once before waiting for a free connection (connection-gate.ts). */
  gate?: GateOptions;
}

/** Connection phases of one freshly opened socket; handed to the first request written on it only. */
interface SocketTimings {
  dnsMs?: number;
  connectMs?: number;
  tlsMs?: number;
  claimed: boolean;
}

const SEND_HEADERS_CHANNEL = 'undici:client:sendHeaders';

export function createSender(opts: SenderOptions): Sender {
  const { clock } = opts;
  const socketTimings = new WeakMap<object, SocketTimings>();
  // undici keeps the body Buffer it was given as request.body; a fresh Buffer view per attempt is
  // therefore a key that tells which attempt a socket was used for.
  const attemptsByBody = new WeakMap<object, AttemptTrace>();

  const connector = buildConnector(
    // Passing `ca` replaces Node's trust store, so the system roots are passed along with the extra
    // CA. Made into one secure context here: given as `ca`, every new connection would parse the
    // hundred-odd roots again (about 25 ms of CPU a connection on this machine).
    opts.ca !== undefined ? { secureContext: createSecureContext({ ca: [...rootCertificates, opts.ca.toString()] }) } : {},
  );
  // buildConnector's function returns the socket it opens (its type says void); the socket is needed
  // to time its phases before undici sees it.
  const openSocket = connector as unknown as (o: buildConnector.Options, cb: buildConnector.Callback) => unknown;
  const connect: buildConnector.connector = (options, callback) => {
    const t0 = performance.now();
    const timings: SocketTimings = { claimed: false };
    const tls = options.protocol === 'https:';
    let lookedUpAt: number | undefined;
    let connectedAt: number | undefined;
    // undici writes the first request from inside this callback, so the last phase is closed here,
    // before handing the socket over, not in a listener that would run after the request went out.
    const socket = openSocket(options, (...args: Parameters<buildConnector.Callback>) => {
      if (args[0] === null) {
        const now = performance.now();
        if (!tls) timings.connectMs = now - (lookedUpAt ?? t0);
        else if (connectedAt !== undefined) timings.tlsMs = now - connectedAt;
      }
      callback(...args);
    });
    if (!(socket instanceof Socket)) return;
    socket.prependOnceListener('lookup', () => {
      lookedUpAt = performance.now();
      timings.dnsMs = lookedUpAt - t0;
    });
    if (tls) {
      socket.prependOnceListener('connect', () => {
        connectedAt = performance.now();
        timings.connectMs = connectedAt - (lookedUpAt ?? t0);
      });
    }
    socketTimings.set(socket, timings);
  };

  const gate = new ConnectionGate(opts.gate);
  // The capped lane (connection-gate.ts): the gate gives it no more attempts than it has connections.
  const shared = new Agent({ connect, connections: gate.limit });
  // The uncapped lane, for attempts beyond the limit; the gate counts its connections to know when
  // one is idle (undici's own count of free connections lags behind what it will hand out).
  const overflow = new Agent({
    connect: (options, callback) =>
      connect(options, (...args: Parameters<buildConnector.Callback>) => {
        if (args[0] === null) {
          // The same key as a URL's origin in send(): undici's `host` carries the port unless it is the default.
          const origin = `${options.protocol}//${options.host}`;
          gate.overflowOpened(origin);
          args[1].once('close', () => gate.overflowClosed(origin));
        }
        callback(...args);
      }),
  });

  // undici announces, synchronously, which socket a request's headers are written to, and the header
  // block it writes. A socket's connection phases belong to the first attempt written on it; later
  // ones reused it for free.
  const onSendHeaders = (message: unknown): void => {
    if (!isRecord(message) || !isRecord(message.request)) return;
    const body = message.request.body;
    const trace = isRecord(body) ? attemptsByBody.get(body) : undefined;
    if (trace && typeof message.headers === 'string') trace.sent = wireHeaders(message.headers, trace.bodyBytes);
    const attempt = trace?.timings;
    const socket = message.socket;
    const phases = attempt && isRecord(socket) ? socketTimings.get(socket) : undefined;
    if (!attempt || !phases || phases.claimed) return;
    phases.claimed = true;
    if (phases.dnsMs !== undefined) attempt.dnsMs = phases.dnsMs;
    if (phases.connectMs !== undefined) attempt.connectMs = phases.connectMs;
    if (phases.tlsMs !== undefined) attempt.tlsMs = phases.tlsMs;
  };
  diagnosticsChannel.subscribe(SEND_HEADERS_CHANNEL, onSendHeaders);

  async function send(req: AttemptRequest): Promise<AttemptResult> {
    const startedAt = clock.now();
    // Moved on past a wait at the gate: first byte and total are the receiver's time, not ours.
    let t0 = performance.now();
    const timings: AttemptTimings = { totalMs: 0 };
    let status: number | null = null;
    let responseHeaders: Record<string, string | string[]> = {};
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let responseBytes = 0;
    let failure: AttemptFailure | null = null;
    let timedOut = false;

    const aborter = new AbortController();
    let waitedMs = 0;
    const expire = (): void => {
      timedOut = true;
      aborter.abort(new Error(`deadline of ${req.timeoutMs} ms passed`));
    };
    // Set here, at the attempt's start, where the sending thread's clock takes deadlines. The
    // receiver's timeout counts from when the attempt went, so a wait at the connection gate (at
    // most its patience) is given back when the deadline comes.
    let deadline: ClockTimer = clock.setTimer(() => {
      if (waitedMs > 0) deadline = clock.setTimer(expire, waitedMs);
      else expire();
    }, req.timeoutMs);
    // A view of the caller's bytes (no copy) that is unique to this attempt; see attemptsByBody.
    const body = Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength);
    const trace: AttemptTrace = { timings, bodyBytes: body.byteLength, sent: null };
    attemptsByBody.set(body, trace);

    let pass: GatePass | null = null;
    try {
      const url = parseTarget(req.url);
      pass = await gate.enter(url.origin);
      // Under half a millisecond it went at once in all but the bookkeeping.
      if (pass.waitedMs >= 0.5) {
        timings.queuedMs = pass.waitedMs;
        waitedMs = Math.ceil(pass.waitedMs);
      }
      t0 = performance.now();
      const client = pass.lane === 'shared' ? shared : overflow;
      const res = await client.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: req.headers,
        body,
        signal: aborter.signal,
        // The injected clock is the only deadline; undici's own real-time timers would race it.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      timings.firstByteMs = performance.now() - t0;
      status = res.statusCode;
      responseHeaders = definedHeaders(res.headers);
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        responseBytes += chunk.length;
        if (keptBytes < RESPONSE_BODY_CAP) {
          const part = chunk.subarray(0, RESPONSE_BODY_CAP - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        // Leaving the loop destroys the body and its socket: nothing more is read.
        if (responseBytes >= RESPONSE_READ_LIMIT) break;
      }
    } catch (err) {
      failure = timedOut ? timeoutFailure(req.timeoutMs, status) : classifyError(err, req.url);
    } finally {
      deadline.cancel();
      attemptsByBody.delete(body);
      pass?.leave();
    }
    timings.totalMs = performance.now() - t0;

    if (failure === null && status !== null) failure = statusFailure(status, responseHeaders);
    return {
      url: req.url,
      startedAt,
      timings,
      status,
      responseHeaders,
      responseBody: Buffer.concat(kept, keptBytes),
      responseBytes,
      responseTruncated: responseBytes > keptBytes,
      errorKind: failure?.kind === 'recorded' ? null : (failure?.kind ?? null),
      errorText: failure ? failureText(failure) : null,
      failure,
      retryAfterMs: retryAfterOf(status, responseHeaders, clock.now()),
      sentHeaders: trace.sent,
    };
  }

  return {
    send,
    async close(options = {}) {
      diagnosticsChannel.unsubscribe(SEND_HEADERS_CHANNEL, onSendHeaders);
      gate.rejectAll(new Error('the sender was closed'));
      if (options.abort) await Promise.all([overflow.destroy(), shared.destroy()]);
      else await Promise.all([overflow.close(), shared.close()]);
    },
  };
}

/** What the sender learns about one attempt while undici sends it. */
interface AttemptTrace {
  timings: AttemptTimings;
  bodyBytes: number;
  /** The header lines as written on the socket; null until (and unless) they were written. */
  sent: [string, string][] | null;
}

/**
 * The header block undici wrote (request line, then `name: value` lines) as a list of pairs, in
 * order. undici appends Content-Length when it writes a Buffer body, after announcing the block,
 * so it is added here with the length it writes. Pure.
 */
export function wireHeaders(block: string, bodyBytes: number): [string, string][] {
  const pairs: [string, string][] = [];
  const lines = block.split('\r\n');
  for (const line of lines.slice(1)) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    pairs.push([line.slice(0, colon), line.slice(colon + 1).trim()]);
  }
  if (!pairs.some(([name]) => name.toLowerCase() === 'content-length')) pairs.push(['content-length', String(bodyBytes)]);
  return pairs;
}

class TargetError extends Error {
  readonly code = 'HOOKBENCH_BAD_URL';
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetError(`"${raw}" is not a valid URL; request not sent`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TargetError(`${url.protocol.replace(':', '')} URLs are not supported, only http and https; request not sent`);
  }
  return url;
}

/** Pure: the wait a 429 or 503 answer asks for in its Retry-After, in ms from `now`; null otherwise. */
export function retryAfterOf(status: number | null, headers: Record<string, string | string[]>, now: number): number | null {
  const value = status === 429 || status === 503 ? firstValue(headers['retry-after']) : undefined;
  return value === undefined ? null : parseRetryAfter(value, now);
}

/**
 * Retry-After as delay-seconds or an HTTP-date (RFC 9110 10.2.3), in ms from `now`; null when it is
 * neither. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string, now: number): number | null {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // All three HTTP-date forms start with a day name; Date.parse alone would accept "1.5" as a date.
  if (!/^[A-Za-z]{3}/.test(v)) return null;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function statusFailure(status: number, headers: Record<string, string | string[]>): AttemptFailure | null {
  if (status >= 200 && status < 300) return null;
  const statusText = STATUS_CODES[status] ?? null;
  if (status >= 300 && status < 400) return { kind: 'redirect', status, statusText, location: firstValue(headers.location) ?? null };
  return { kind: 'http', status, statusText };
}

function timeoutFailure(timeoutMs: number, status: number | null): AttemptFailure {
  return { kind: 'timeout', timeoutMs, status };
}

const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EADDRNOTAVAIL', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);
const PROTOCOL_CODES = new Set(['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_INFO']);

/** What a refused certificate means, in words a receiver's developer can act on. */
const CERT_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate refused',
  SELF_SIGNED_CERT_IN_CHAIN: 'certificate chain ends in a self-signed certificate that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate issuer is not trusted (the chain could not be verified)',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate issuer is unknown',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate issuer is not trusted (not a known CA)',
  CERT_HAS_EXPIRED: 'certificate has expired',
  CERT_NOT_YET_VALID: 'certificate is not valid yet',
  CERT_REVOKED: 'certificate has been revoked',
  CERT_UNTRUSTED: 'certificate is not trusted',
  CERT_REJECTED: 'certificate was rejected',
  CERT_SIGNATURE_FAILURE: 'certificate signature is invalid',
  ERR_TLS_CERT_ALTNAME_INVALID: 'certificate does not match the host name',
};

/** The most specific error code on an error, its cause, or the attempts inside an AggregateError. */
function errorCode(err: unknown, depth = 0): string | undefined {
  if (!isRecord(err) || depth > 3) return undefined;
  if (typeof err.code === 'string' && err.code !== 'UND_ERR') return err.code;
  if (Array.isArray(err.errors)) {
    for (const inner of err.errors) {
      const code = errorCode(inner, depth + 1);
      if (code) return code;
    }
  }
  return errorCode(err.cause, depth + 1);
}

function messageOf(err: unknown): string {
  return err instanceof Error && err.message ? err.message : String(err);
}

export function classifyError(err: unknown, url: string): AttemptFailure {
  if (err instanceof TargetError) return { kind: 'other', code: null, message: err.message };
  const code = errorCode(err) ?? '';
  let where = url;
  try {
    where = new URL(url).host;
  } catch {
    // keep the raw URL in the text
  }
  if (CONNECT_CODES.has(code)) {
    return { kind: 'connect', host: where, code };
  }
  if (DNS_CODES.has(code)) return { kind: 'dns', host: where, code };
  if (RESET_CODES.has(code)) return { kind: 'reset', code, message: messageOf(err) };
  const cert = CERT_PROBLEMS[code];
  if (cert) return { kind: 'tls', host: where, code, certificate: cert, message: messageOf(err) };
  if (code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.startsWith('ERR_OSSL_')) {
    return { kind: 'tls', host: where, code, certificate: null, message: messageOf(err) };
  }
  // undici 7 builds its HTTPParserError without the HPE_ code in places, so the name is checked too.
  const parserError = err instanceof Error && err.name === 'HTTPParserError';
  if (code.startsWith('HPE_') || PROTOCOL_CODES.has(code) || parserError) {
    return { kind: 'protocol', code: code || null, message: messageOf(err) };
  }
  // undici words a peer hang-up without a code on some paths.
  if (/other side closed|socket hang up/i.test(messageOf(err))) return { kind: 'reset', code: null, message: messageOf(err) };
  return { kind: 'other', code: code || null, message: messageOf(err) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function definedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}
