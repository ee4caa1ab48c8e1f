/**
 * The assertions API over HTTP, for test suites and CI scripts (behind the control API's token):
 *   GET  /api/messages        matching messages, oldest first
 *   GET  /api/messages/wait   long-poll until `count` match or `timeout` seconds pass
 *   GET  /api/deliveries      matching deliveries, oldest first
 *   GET  /api/violations      messages with tracking-plan violations, per type and event
 *   POST /api/reset           {"clear": true} or {"mark": NAME | true}
 *   GET  /api/export          matching messages as NDJSON (as stored) or CSV, streamed
 * Filters are query parameters; an answer is the result object itself, a refusal
 * `{"error": {code, message, fields?}}` with a 4xx naming each bad field.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { deliveryListSchema, markerQuerySchema, messageListSchema, resetSchema, waitSchema } from '../../src-shared/assertions';
import { fieldErrorsOf, ValidationError, type FieldError } from '../../src-shared/settings';
import type { Assertions } from '../engine/assertions/service';
import { StorageFaultError } from '../engine/store/storage-fault';
import { streamExport } from './export';

const MAX_RESET_BYTES = 4096;

export const ASSERTION_ROUTES = ['/api/messages', '/api/messages/wait', '/api/deliveries', '/api/violations', '/api/reset', '/api/export'] as const;

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

const refuse = (res: ServerResponse, status: number, code: string, message: string, fields?: FieldError[]): void =>
  send(res, status, { error: fields ? { code, message, fields } : { code, message } });

/** Query parameters as an object; a parameter given twice is refused rather than one copy picked. */
function queryOf(url: string): Record<string, string> {
  const params = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const out: Record<string, string> = {};
  const twice: FieldError[] = [];
  for (const [key, value] of params) {
    // The token may ride in the query for GET (see auth.ts); it is not a filter.
    if (key === 'token') continue;
    if (key in out) twice.push({ field: key, message: 'is given more than once; give it once' });
    out[key] = value;
  }
  if (twice.length > 0) throw new ValidationError(twice);
  return out;
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(fieldErrorsOf(result.error, ''));
  return result.data;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_RESET_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_RESET_BYTES) return reject(new ValidationError([{ field: 'body', message: `must be at most ${MAX_RESET_BYTES} bytes` }]));
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new ValidationError([{ field: 'body', message: 'is not valid JSON; send {"clear": true} or {"mark": "NAME"}' }]));
      }
    });
    req.on('error', reject);
  });
}

function failed(res: ServerResponse, err: unknown): void {
  if (err instanceof ValidationError) return refuse(res, 400, err.code, err.message, err.errors);
  if (err instanceof StorageFaultError) return refuse(res, 503, err.fault.code, err.message);
  refuse(res, 500, 'internal', err instanceof Error ? err.message : String(err));
}

/** Handles an assertions route (auth already checked); false when the path is not one of them. */
export function handleAssertions(assertions: Assertions, req: IncomingMessage, res: ServerResponse, path: string): boolean {
  if (!(ASSERTION_ROUTES as readonly string[]).includes(path)) return false;
  const method = req.method ?? 'GET';
  const wanted = path === '/api/reset' ? 'POST' : 'GET';
  if (method !== wanted) {
    refuse(res, 405, 'method_not_allowed', `use ${wanted} ${path}`);
    return true;
  }
  const url = req.url ?? path;
  if (path === '/api/export') {
    (async () => streamExport(assertions, queryOf(url), res))().catch((err: unknown) => {
      // Once streaming, a failure can only cut the response short.
      if (res.headersSent) res.destroy();
      else failed(res, err);
    });
    return true;
  }
  const run = async (): Promise<unknown> => {
    switch (path) {
      case '/api/messages':
        return assertions.messages(parse(messageListSchema, queryOf(url)));
      case '/api/deliveries':
        return assertions.deliveries(parse(deliveryListSchema, queryOf(url)));
      case '/api/violations': {
        const { marker } = parse(markerQuerySchema, queryOf(url));
        return { counts: await assertions.violationCounts(marker) };
      }
      case '/api/messages/wait': {
        const input = parse(waitSchema, queryOf(url));
        // A client that gives up stops the wait: nothing is left listening for it.
        const abort = new AbortController();
        res.on('close', () => abort.abort());
        return assertions.wait(input, abort.signal);
      }
      default: {
        if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
          req.resume();
          throw new ValidationError([{ field: 'content-type', message: 'must be application/json' }]);
        }
        return assertions.reset(parse(resetSchema, await readJson(req)));
      }
    }
  };
  run().then(
    (result) => send(res, 200, result),
    (err: unknown) => failed(res, err),
  );
  return true;
}

