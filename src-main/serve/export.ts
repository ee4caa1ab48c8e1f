/**
 * Export and import of the message log over HTTP and the CLI. GET /api/export streams the pages
 * of engine/export/page.ts (the same the UI reads through the engine API), never the whole log in
 * memory; `hookbench import` sends a file's messages through the Tracking API, parsed and batched
 * by src-shared/import-file.ts (the same the UI's import uses).
 */
import type { ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { messageListSchema } from '../../src-shared/assertions';
import { ValidationError } from '../../src-shared/settings';
import type { Assertions } from '../engine/assertions/service';
import type { ExportFormat } from '../../src-shared/api';
import { EXPORT_CONTENT_TYPES, EXPORT_PAGE, exportPage } from '../engine/export/page';
import {
  addBatch,
  batchItems,
  emptyTally,
  importRequestHeaders,
  INGEST_RESULT_HEADER,
  parseIngestResult,
  readImportFile,
  skippedWords,
  type ImportTally,
} from '../../src-shared/import-file';

export const exportQuerySchema = messageListSchema.safeExtend({
  format: z.enum(['ndjson', 'csv', 'har'], { error: 'must be ndjson, csv or har' }).optional(),
});

const FILE_NAMES: Record<ExportFormat, string> = { ndjson: 'hookbench-messages.ndjson', csv: 'hookbench-messages.csv', har: 'hookbench-attempts.har' };

/** Streams the export; the filter is checked before the first byte, so a bad one is still a 400. */
export async function streamExport(assertions: Assertions, query: Record<string, string>, res: ServerResponse): Promise<void> {
  const parsed = exportQuerySchema.safeParse(query);
  if (!parsed.success) {
    throw new ValidationError(parsed.error.issues.map((i) => ({ field: i.path.join('.') || (i.code === 'unrecognized_keys' ? i.keys.join(', ') : '(query)'), message: i.message })));
  }
  const { format = 'ndjson', after, limit, ...filter } = parsed.data;
  let left = limit ?? Number.POSITIVE_INFINITY;
  const read = (from: number, first: boolean) =>
    exportPage(assertions, { format, filter, after: from, limit: Math.min(EXPORT_PAGE, left), first, final: left <= EXPORT_PAGE });
  // The first page is read before the headers go: an unknown marker is refused as a 400.
  let page = await read(after ?? 0, true);
  res.writeHead(200, {
    'content-type': EXPORT_CONTENT_TYPES[format],
    'content-disposition': `attachment; filename="${FILE_NAMES[format]}"`,
    'cache-control': 'no-store',
  });
  for (;;) {
    // Backpressure: a slow reader pauses the reads instead of piling pages up in memory.
    if (!res.write(page.text)) await new Promise((resolve) => res.once('drain', resolve));
    if (res.destroyed) return;
    left -= page.items;
    if (page.next === null) break;
    page = await read(page.next, false);
  }
  res.end();
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
  let tally: ImportTally = { ...emptyTally(), skipped: skipped.length };
  for (const batch of batchItems(messages)) {
    const res = await fetch(new URL('/v1/batch', target.server), {
      method: 'POST',
      headers: importRequestHeaders(target.writeKey, 'hookbench-import'),
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
