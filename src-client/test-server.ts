/** A real HTTP server on 127.0.0.1:0 that records every request, for the client tests. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isJsonObject, type JsonObject } from '../src-shared/json';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
  body: string;
  json: JsonObject;
  batch: JsonObject[];
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (to exercise timeouts). */
  hang?: boolean;
}

export type Responder = (req: RecordedRequest, index: number) => Reply;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  respond: Responder;
  /** All batch items received, in arrival order. */
  items(): JsonObject[];
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const ok: Responder = () => ({ status: 200, body: '{"success":true}' });

export async function startServer(respond: Responder = ok): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const state: TestServer = {
    url: '',
    requests,
    respond,
    items: () => requests.flatMap((r) => r.batch),
    async waitForRequests(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} requests, got ${requests.length} within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 2));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = raw.toString('utf8');
      let json: JsonObject = {};
      try {
        const parsed: unknown = JSON.parse(body);
        if (isJsonObject(parsed)) json = parsed;
      } catch {
        // recorded as {}
      }
      const batch = Array.isArray(json.batch) ? json.batch.filter(isJsonObject) : [];
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        bytes: raw.length,
        body,
        json,
        batch,
      };
      requests.push(recorded);
      const reply = state.respond(recorded, requests.length - 1);
      if (reply.hang) return;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** Lets pending I/O run for a moment (to assert that nothing was sent). */
export function settle(ms = 30): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls until cond() holds (real time, bounded). */
export async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}
