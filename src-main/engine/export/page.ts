/**
 * The log's export, one page at a time: NDJSON is each message as stored, one per line (what an
 * import sends back through the Tracking API); CSV is one row of its main fields per message; HAR
 * is every webhook attempt of their deliveries. A page is a piece of the file: the first carries the
 * CSV header or HAR's opening, the last HAR's closing, so the pages joined in order are the file.
 * The streamed HTTP export and the UI's export (through the engine API) both read these pages.
 */
import { readFileSync } from 'node:fs';
import type { AssertedMessage, MessageFilter } from '../../../src-shared/assertions';
import type { ExportFormat, ExportPage } from '../../../src-shared/api';
import type { Assertions } from '../assertions/service';
import { HAR_END, HAR_PREAMBLE, harEntry } from './har';

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Messages (or attempts) read per page when the caller does not say. */
export const EXPORT_PAGE = 1000;

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

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  har: 'application/json',
};

export interface PageRequest {
  format: ExportFormat;
  filter: MessageFilter;
  /** Row id to read after (a message's for NDJSON and CSV, an attempt's for HAR). */
  after: number;
  limit: number;
  /** The first page of the file: it opens the document. */
  first: boolean;
  /** The last page wanted (a cap was reached): it closes the document whatever follows. */
  final?: boolean;
}

/** One page of the export: read from the log, formatted. */
export async function exportPage(assertions: Assertions, r: PageRequest): Promise<ExportPage> {
  if (r.format === 'har') {
    const page = await assertions.attempts({ ...r.filter, after: r.after, limit: r.limit });
    const next = r.final === true ? null : page.next;
    const entries = page.attempts.map((a, i) => `${r.first && i === 0 ? '' : ','}${JSON.stringify(harEntry(a))}`).join('');
    return {
      text: `${r.first ? HAR_PREAMBLE(VERSION) : ''}${entries}${next === null ? HAR_END : ''}`,
      items: page.attempts.length,
      next,
    };
  }
  const page = await assertions.messages({ ...r.filter, after: r.after, limit: r.limit });
  const lines = page.messages.map((m) => (r.format === 'csv' ? csvLine(m) : `${JSON.stringify(m.message)}\n`)).join('');
  return {
    text: `${r.first && r.format === 'csv' ? `${CSV_COLUMNS.join(',')}\r\n` : ''}${lines}`,
    items: page.messages.length,
    next: r.final === true ? null : page.next,
  };
}
