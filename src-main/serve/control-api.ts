/**
 * The headless transport of the engine contract: POST /api/call for commands and queries, GET
 * /api/live for live events as Server-Sent Events, behind the checks of auth.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine } from '../engine';
import { createEngineApi } from '../engine/api';
import type { ApiResponse, EngineApi, LiveEvent } from '../../src-shared/api';
import { dispatchCall } from '../engine/api/dispatch';
import { checkApiRequest, type AuthContext } from './auth';
import { createAssertions } from '../engine/assertions/service';
import { ASSERTION_ROUTES, handleAssertions } from './assert-http';

export { createEngineApi };

const MAX_CALL_BYTES = 1024 * 1024;
const HEARTBEAT_MS = 15_000;

function sendJson(res: ServerResponse, status: number, body: ApiResponse): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, code: string, message: string): void => sendJson(res, status, { ok: false, error: { code, message } });

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_CALL_BYTES) {
        resolve(null);
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export interface ControlApi {
  readonly api: EngineApi;
  /** Handles any /api/* request; auth is checked here, before anything else. */
  handle(req: IncomingMessage, res: ServerResponse, auth: AuthContext): void;
  /**
   * Tells every open live stream that the engine stopped and ends it, so that the server can close;
   * a live stream asked for afterwards gets only that event.
   */
  close(): void;
}

export function createControlApi(engine: Engine, options: { ingestUrl?: () => string | null } = {}): ControlApi {
  const streams = new Set<(event: LiveEvent) => void>();
  const closers = new Set<() => void>();
  let stopped = false;
  const assertions = createAssertions(engine);
  const api = createEngineApi(engine, {
    ...options,
    onConfig: (what) => {
      for (const send of streams) send({ type: 'config', what });
    },
  });

  async function call(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // JSON only: a cross-site form post cannot send application/json without a preflight.
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      return fail(res, 415, 'unsupported_media_type', 'POST /api/call takes Content-Type: application/json');
    }
    const body = await readBody(req);
    if (body === null) return fail(res, 413, 'too_large', `a call is at most ${MAX_CALL_BYTES} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return fail(res, 400, 'bad_request', 'the body is not valid JSON; send { "method": NAME, "params": … }');
    }
    const outcome = await dispatchCall(api, parsed);
    sendJson(res, outcome.status, outcome.response);
  }

  function live(req: IncomingMessage, res: ServerResponse): void {
    const send = (event: LiveEvent): void => {
      res.write(`data: ${JSON.stringify(event)}\n\n`);
    };
    const unsubscribe = engine.onLive(send);
    streams.add(send);
    // Comments keep proxies and idle timers from closing a quiet stream.
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const cleanup = (): void => {
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(send);
      closers.delete(end);
    };
    const end = (): void => {
      cleanup();
      send({ type: 'stopped' });
      res.end();
    };
    closers.add(end);
    req.on('close', cleanup);
    res.on('close', cleanup);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // A stream's socket is never reused: when it ends (the engine stopping), the socket closes
      // with it instead of idling in keep-alive and holding the server open.
      connection: 'close',
      'x-accel-buffering': 'no',
    });
    // Subscribed before the first byte, so a client that has the headers misses no event.
    res.write(': connected\n\n');
    if (stopped) end();
  }

  return {
    api,
    handle(req, res, auth) {
      const verdict = checkApiRequest(auth, {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        host: req.headers.host,
        origin: req.headers.origin,
        authorization: req.headers.authorization,
      });
      if (!verdict.ok) return fail(res, verdict.status, verdict.code, verdict.message);
      const path = (req.url ?? '/').split('?')[0];
      if (path === '/api/call') {
        if (req.method !== 'POST') return fail(res, 405, 'method_not_allowed', 'use POST /api/call');
        call(req, res).catch((err: unknown) => fail(res, 500, 'internal', (err as Error).message));
        return;
      }
      if (path === '/api/live') {
        if (req.method !== 'GET') return fail(res, 405, 'method_not_allowed', 'use GET /api/live');
        return live(req, res);
      }
      if (handleAssertions(assertions, req, res, path ?? '')) return;
      fail(res, 404, 'not_found', `${req.method} ${path} is not a control API endpoint (POST /api/call, GET /api/live, ${ASSERTION_ROUTES.join(', ')})`);
    },
    close() {
      stopped = true;
      assertions.close();
      for (const end of [...closers]) end();
    },
  };
}
