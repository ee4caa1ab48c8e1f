import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Responder = (req: Received, res: ServerResponse) => void;

/**
 * A real HTTP receiver on 127.0.0.1 that records every request byte for byte. Its behaviour can
 * be switched mid-test (fail, hang, recover) with respond().
 */
export class Receiver {
  readonly received: Received[] = [];
  private responder: Responder = (_req, res) => res.end('ok');
  private waiters: { count: number; resolve: () => void }[] = [];
  private server: Server | null = null;
  url = '';

  async start(path = '/hook'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        this.received.push(r);
        this.waiters = this.waiters.filter((w) => {
          if (this.received.length < w.count) return true;
          w.resolve();
          return false;
        });
        this.responder(r, res);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  respond(responder: Responder): void {
    this.responder = responder;
  }

  /** Resolves once count requests in total have arrived. */
  waitFor(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Responds with a status (and optional headers and body). */
export const status =
  (code: number, headers: Record<string, string> = {}, body = ''): Responder =>
  (_req, res) => {
    res.writeHead(code, headers);
    res.end(body);
  };
