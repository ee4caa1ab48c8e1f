/**
 * Export and import of the message log. GET /api/export streams the messages a filter matches,
 * oldest first, a page at a time (never the whole log in memory): NDJSON is each message as
 * stored, one per line, which is what `hookbench import` sends back through the Tracking API;
 * CSV is one row of its main fields per message; HAR has each webhook attempt of their deliveries. Formatting is pure (csvLine, batchesOf).
 */
import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { messageListSchema } from '../../src-shared/assertions';
import { TRACKING_LIMITS } from '../../src-shared/limits';
import { ValidationError } from '../../src-shared/settings';
import type { Assertions } from '../engine/assertions/service';
import type { AssertedMessage, MessageFilter } from '../../src-shared/assertions';
import { HAR_END, HAR_PREAMBLE, harEntry } from './har';
import { ingestCallOf } from '../engine/ingest/handler';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const PAGE = 1000;

export const exportQuerySchema = messageListSchema.safeExtend({
  format: z.enum(['ndjson', 'csv', 'har'], { error: 'must be ndjson, csv or har' }).optional(),
});

export const CSV_COLUMNS = ['id', 'receivedAt', 'type', 'event', 'userId', 'anonymousId', 'source', 'messageId', 'violations', 'deliveries'] as const;

/** Pure: one CSV field, quoted when it has to be (RFC 4180); a leading formula sign is neutralized for spreadsheets. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Pure: a message as one CSV line (CRLF-terminated). */
export function csvLine(m: AssertedMessage): string {
  const deliveries = m.deliveries.map((d) => `${d.destination ?? '?'}:${d.status}${d.httpStatus === null ? '' : `:${d.httpStatus}`}`).join(' ');
  const fields = [m.id, m.receivedAt, m.type, m.event, m.userId, m.anonymousId, m.source, m.messageId, m.violations.length, deliveries];
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** Streams the export; the filter is checked before the first byte, so a bad one is still a 400. */
export async function streamExport(assertions: Assertions, query: Record<string, string>, res: ServerResponse): Promise<void> {
  const parsed = exportQuerySchema.safeParse(query);
  if (!parsed.success) {
    throw new ValidationError(parsed.error.issues.map((i) => ({ field: i.path.join('.') || (i.code === 'unrecognized_keys' ? i.keys.join(', ') : '(query)'), message: i.message })));
  }
  const { format = 'ndjson', after, limit, ...filter } = parsed.data;
  if (format === 'har') return streamHar(assertions, filter, after ?? 0, limit ?? Number.POSITIVE_INFINITY, res);
  let next: number | null = after ?? 0;
  let left = limit ?? Number.POSITIVE_INFINITY;
  // The first page is read before the headers go: an unknown marker is refused as a 400.
  let page = assertions.messages({ ...filter, after: next, limit: Math.min(PAGE, left) });
  res.writeHead(200, {
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
    'content-disposition': `attachment; filename="hookbench-messages.${format}"`,
    'cache-control': 'no-store',
  });
  if (format === 'csv') res.write(`${CSV_COLUMNS.join(',')}\r\n`);
  for (;;) {
    for (const m of page.messages) {
      const line = format === 'csv' ? csvLine(m) : `${JSON.stringify(m.message)}\n`;
      // Backpressure: a slow reader pauses the reads instead of piling pages up in memory.
      if (!res.write(line)) await new Promise((resolve) => res.once('drain', resolve));
      if (res.destroyed) return;
    }
    left -= page.messages.length;
    next = page.next;
    if (next === null || left <= 0) break;
    page = assertions.messages({ ...filter, after: next, limit: Math.min(PAGE, left) });
  }
  res.end();
}

/** Every attempt of the matching messages' deliveries as a HAR 1.2 entry, in one streamed document. */
async function streamHar(assertions: Assertions, filter: MessageFilter, after: number, limit: number, res: ServerResponse): Promise<void> {
  let left = limit;
  let page = assertions.attempts({ ...filter, after, limit: Math.min(PAGE, left) });
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-disposition': 'attachment; filename="hookbench-attempts.har"',
    'cache-control': 'no-store',
  });
  res.write(HAR_PREAMBLE(VERSION));
  let first = true;
  for (;;) {
    for (const a of page.attempts) {
      const text = `${first ? '' : ','}${JSON.stringify(harEntry(a))}`;
      first = false;
      if (!res.write(text)) await new Promise((resolve) => res.once('drain', resolve));
      if (res.destroyed) return;
    }
    left -= page.attempts.length;
    if (page.next === null || left <= 0) break;
    page = assertions.attempts({ ...filter, after: page.next, limit: Math.min(PAGE, left) });
  }
  res.end(HAR_END);
}

/**
 * Pure: NDJSON text as batches for /v1/batch, each within the Tracking API's limits (items and
 * bytes, with room for the envelope). Lines that are not JSON objects are returned as skipped,
 * by line number, with the reason.
 */
export function batchesOf(text: string, maxItems = 100): { batches: unknown[][]; skipped: { line: number; reason: string }[]; messages: number } {
  const items: unknown[] = [];
  const skipped: { line: number; reason: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: 'not valid JSON' });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      skipped.push({ line: i + 1, reason: 'not a JSON object' });
      return;
    }
    items.push(value);
  });
  return { batches: batchItems(items, maxItems), skipped, messages: items.length };
}

/** Pure: messages as batches of at most maxItems, each under the batch byte limit (room left for the envelope). */
export function batchItems(items: unknown[], maxItems = 100): unknown[][] {
  const budget = TRACKING_LIMITS.maxBatchBytes - 1024;
  const batches: unknown[][] = [];
  let current: unknown[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length >= maxItems || (current.length > 0 && bytes + size > budget)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Pure: the Tracking API calls recorded in a HAR file (a browser's, say) as messages: each POST to
 * a Tracking API path with a JSON body; a batch gives its items, a single call its body with the
 * type its path names. Other entries are skipped, each named by its index and why.
 */
export function messagesOfHar(har: unknown): { messages: unknown[]; skipped: { line: number; reason: string }[] } {
  const entries = isObject(har) && isObject(har.log) && Array.isArray(har.log.entries) ? har.log.entries : null;
  if (entries === null) return { messages: [], skipped: [{ line: 0, reason: 'not a HAR file: no log.entries' }] };
  const messages: unknown[] = [];
  const skipped: { line: number; reason: string }[] = [];
  entries.forEach((entry: unknown, i) => {
    const request = isObject(entry) && isObject(entry.request) ? entry.request : null;
    const url = typeof request?.url === 'string' ? request.url : '';
    let path = '';
    try {
      path = new URL(url).pathname.replace(/^\/+/, '/').replace(/\/+$/, '');
    } catch {
      path = '';
    }
    const call = request?.method === 'POST' ? ingestCallOf(path) : null;
    if (call === null) {
      skipped.push({ line: i, reason: `entry ${i} is not a Tracking API call (${String(request?.method ?? '?')} ${url})` });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(isObject(request?.postData) && typeof request.postData.text === 'string' ? request.postData.text : '');
    } catch {
      skipped.push({ line: i, reason: `entry ${i} has no JSON body` });
      return;
    }
    if (!isObject(body)) {
      skipped.push({ line: i, reason: `entry ${i} has no JSON object as its body` });
      return;
    }
    if (call === 'batch') {
      if (Array.isArray(body.batch)) messages.push(...body.batch.filter(isObject));
      else skipped.push({ line: i, reason: `entry ${i} is a batch call without a batch list` });
      return;
    }
    messages.push({ ...body, type: body.type ?? call });
  });
  return { messages, skipped };
}

export interface ImportIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Sends NDJSON messages through a server's Tracking API with a write key, batch by batch, saying
 * how far it got. Returns what was accepted, refused (a batch answered other than 200) and skipped.
 */
export async function importNdjson(
  file: string,
  target: { server: URL; writeKey: string },
  io: ImportIo,
): Promise<{ sent: number; refused: number; skipped: number; refusals: string[] }> {
  const text = readFileSync(file, 'utf8');
  let parsed: { batches: unknown[][]; skipped: { line: number; reason: string }[]; messages: number };
  if (/\.har$/i.test(file)) {
    let har: unknown;
    try {
      har = JSON.parse(text);
    } catch (err) {
      throw new Error(`${file} is not valid JSON: ${(err as Error).message}`);
    }
    const { messages: items, skipped: notCalls } = messagesOfHar(har);
    parsed = { batches: batchItems(items), skipped: notCalls, messages: items.length };
  } else {
    parsed = batchesOf(text);
  }
  const { batches, skipped, messages } = parsed;
  for (const s of skipped) io.err(`hookbench import: ${/\.har$/i.test(file) ? '' : `line ${s.line} `}skipped: ${s.reason}\n`);
  const auth = `Basic ${Buffer.from(`${target.writeKey}:`).toString('base64')}`;
  let sent = 0;
  let refused = 0;
  const refusals: string[] = [];
  for (const batch of batches) {
    const res = await fetch(new URL('/v1/batch', target.server), {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ batch }),
      signal: AbortSignal.timeout(60_000),
    });
    const answer = (await res.json().catch(() => ({}))) as { success?: boolean; message?: string };
    if (res.status === 200 && answer.success === true) sent += batch.length;
    else {
      refused += batch.length;
      refusals.push(`${res.status} ${answer.message ?? ''}`.trim());
    }
    io.err(`hookbench import: ${sent + refused} of ${messages} sent\n`);
  }
  return { sent, refused, skipped: skipped.length, refusals };
}
