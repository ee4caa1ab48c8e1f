import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Engine } from '../engine';
import { ingestPath } from '../engine/ingest/handler';
import { IngestError } from '../engine/ingest/errors';
import { analyticsNextDir, answerPreflight, apiHostOf, corsHeaders, sdkRouteOf, serveSdkFile } from './browser-sdk';
import { checkIngestHost, generateToken, type AuthContext } from './auth';
import { createControlApi } from './control-api';
import { DEFAULT_UI_DIR, isUiPath, serveUi } from './static';
import { listenReceiversTls, type ReceiversTlsServer } from './receivers-tls';

export interface RunningServer {
  server: Server;
  url: string;
  /** The control API's per-launch token. */
  token: string;
  /** https://host:port of the test receivers' HTTPS listener; null without one. */
  receiversTlsUrl: string | null;
  /**
   * Stops taking connections and ends the live streams (each told the engine stopped). Requests in
   * flight get graceMs to finish; then every connection still open is cut, so that an idle
   * keep-alive socket or a slow client cannot hold the stop.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

const DEFAULT_CLOSE_GRACE_MS = 500;

function sendJson(res: import('node:http').ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * `ok` and `deliveries` as before (ok: the engine can write its log), plus `status` and the
 * `problem` with its code and advice while degraded. Counts come from a read, which a damaged file
 * can also fail: then they are left out rather than failing the health check itself.
 */
function healthOf(engine: Engine): Record<string, unknown> {
  let deliveries: Record<string, number> | null = null;
  try {
    deliveries = engine.stores.log.countDeliveriesByStatus();
  } catch (err) {
    engine.health.fault(err);
  }
  const health = engine.health.current();
  return { ok: health.status === 'ok', status: health.status, problem: health.problem, deliveries };
}

export interface ListenOptions {
  /** Generated when absent; the control API refuses every call without it. */
  token?: string;
  /** The built renderer to serve at / and /assets/*; out/renderer/ when absent. */
  uiDir?: string;
  /**
   * Also serve the test receivers over HTTPS on this port (0 picks a free one), with a self-signed
   * certificate kept in the data folder. No HTTPS listener when absent.
   */
  receiversTlsPort?: number;
}

/** One port for everything: the Tracking API under /v1/, the control API under /api/, a health check, and the built UI. */
export function listen(engine: Engine, host: string, port: number, options: ListenOptions = {}): Promise<RunningServer> {
  const token = options.token ?? generateToken();
  let ingestUrl: string | null = null;
  const control = createControlApi(engine, { ingestUrl: () => ingestUrl });
  const uiDir = options.uiDir ?? DEFAULT_UI_DIR;
  const sdkDir = analyticsNextDir();
  // Known once bound (port 0 picks one); before that, /api/ falls through to the 404 below.
  let auth: AuthContext | null = null;
  let closing = false;
  const server = createServer((req, res) => {
    // A request on a kept-alive socket while stopping is served, and its socket closed after it.
    if (closing) res.setHeader('connection', 'close');
    const url = req.url ?? '/';
    if (url.startsWith('/receivers/')) return engine.receivers.handle(req, res, { tls: false });
    const path = ingestPath(url);
    const sdk = path ? null : sdkRouteOf(url);
    if (path || sdk) {
      const cors = corsHeaders(req.headers.origin);
      const verdict = auth ? checkIngestHost(auth, req.headers.host) : { ok: true as const };
      if (!verdict.ok) {
        const body = new IngestError(verdict.status, verdict.code, verdict.message).toBody();
        res.writeHead(verdict.status, { ...cors, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        req.resume();
        return;
      }
      if (req.method === 'OPTIONS') return answerPreflight(req, res, path ? 'POST, OPTIONS' : 'GET, HEAD, OPTIONS');
      for (const [name, value] of Object.entries(cors)) res.setHeader(name, value);
      if (path) return engine.handleIngest(req, res, path);
      if (sdk?.kind === 'settings') return engine.handleSdkSettings(req, res, sdk.writeKey, apiHostOf(req.headers.host, ingestUrl ? new URL(ingestUrl).host : '127.0.0.1'));
      if (sdk) {
        serveSdkFile(sdkDir, sdk, req, res).catch(() => {
          if (!res.headersSent) sendJson(res, 500, { success: false, code: 'internal', message: 'could not read the analytics.js bundle' });
          else res.destroy();
        });
        return;
      }
    }
    if ((url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) && auth) return control.handle(req, res, auth);
    if (isUiPath(url)) {
      serveUi(uiDir, req, res).catch(() => {
        if (!res.headersSent) sendJson(res, 500, { success: false, code: 'internal', message: 'could not read the UI files' });
        else res.destroy();
      });
      return;
    }
    if (url === '/healthz') return sendJson(res, 200, healthOf(engine));
    sendJson(res, 404, {
      success: false,
      code: 'not_found',
      message: `${req.method} ${url} is not a Hookbench endpoint; the Tracking API is POST /v1/batch (or /v1/track, /v1/identify, …)`,
    });
  });
  // analytics-go v2 has no client timeout: never let a stalled client hold a socket for ever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 10_000;
  const bound = new Promise<RunningServer>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      auth = { token, listenHosts: [host, address.address], port: address.port };
      // The client library posts to the bound address; a wildcard host is reached through loopback.
      const wildcard = address.address === '0.0.0.0' || address.address === '::';
      ingestUrl = `http://${wildcard ? '127.0.0.1' : shownHost}:${address.port}`;
      resolve({
        server,
        url: `http://${shownHost}:${address.port}`,
        token,
        receiversTlsUrl: null,
        close: ({ graceMs = DEFAULT_CLOSE_GRACE_MS } = {}) =>
          new Promise<void>((done) => {
            closing = true;
            const cut = setTimeout(() => server.closeAllConnections(), graceMs);
            server.close(() => {
              clearTimeout(cut);
              done();
            });
            control.close();
            server.closeIdleConnections();
          }),
      });
    });
  });
  return bound.then(async (running) => {
    const httpPort = (server.address() as AddressInfo).port;
    let tls: ReceiversTlsServer | null = null;
    if (options.receiversTlsPort !== undefined) {
      try {
        tls = await listenReceiversTls(engine, host, options.receiversTlsPort);
      } catch (err) {
        await running.close({ graceMs: 0 });
        throw err;
      }
    }
    engine.receivers.setUrls({ http: ingestUrl, https: tls?.url ?? null, ports: tls ? [httpPort, tls.port] : [httpPort] });
    if (!tls) return running;
    const tlsServer = tls;
    return {
      ...running,
      receiversTlsUrl: tlsServer.url,
      close: async (closeOptions) => {
        await Promise.all([running.close(closeOptions), tlsServer.close()]);
      },
    };
  });
}
