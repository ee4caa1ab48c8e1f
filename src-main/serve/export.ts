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
import { ValidationError } from '../../src-shared/settings';
import type { Assertions } from '../engine/assertions/service';
import type { AssertedMessage, MessageFilter } from '../../src-shared/assertions';
import { HAR_END, HAR_PREAMBLE, harEntry } from './har';
import {
  addBatch,
  batchItems,
  emptyTally,
  INGEST_RESULT_HEADER,
  parseIngestResult,
  readImportFile,
  skippedWords,
  type ImportTally,
} from '../../src-shared/import-file';

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

export interface ImportIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Sends a file's messages (NDJSON, or the Tracking API calls of a .har file) through a server's
 * Tracking API with a write key, batch by batch, saying how far it got. Returns the tally: what the
 * ingest accepted, dropped (invalid, duplicates) and refused, and the lines skipped.
 */
export async function importNdjson(file: string, target: { server: URL; writeKey: string }, io: ImportIo): Promise<ImportTally> {
  const { kind, messages, skipped } = readImportFile(file, readFileSync(file, 'utf8'));
  for (const s of skipped) io.err(`hookbench import: ${skippedWords(kind, s)}\n`);
  const auth = `Basic ${Buffer.from(`${target.writeKey}:`).toString('base64')}`;
  let tally: ImportTally = { ...emptyTally(), skipped: skipped.length };
  for (const batch of batchItems(messages)) {
    const res = await fetch(new URL('/v1/batch', target.server), {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', 'user-agent': 'hookbench-import' },
      body: JSON.stringify({ batch }),
      signal: AbortSignal.timeout(60_000),
    });
    const answer = (await res.json().catch(() => ({}))) as { success?: boolean; message?: string };
    tally = addBatch(
      tally,
      batch.length,
      res.status === 200 && answer.success === true
        ? { ok: true, result: parseIngestResult(res.headers.get(INGEST_RESULT_HEADER)) }
        : { ok: false, refusal: `${res.status} ${answer.message ?? ''}`.trim() },
    );
    io.err(`hookbench import: ${tally.sent + tally.refused} of ${messages.length} sent\n`);
  }
  return tally;
}
