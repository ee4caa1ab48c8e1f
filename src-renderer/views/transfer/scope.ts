/**
 * What "the current filter" of Deliveries or Inbound means for an export. An export reads
 * messages with the assertions API's message filter; a view's filter maps onto it in part, and the
 * UI says which parts apply and which do not, rather than exporting something else silently.
 */
import type { MessageFilterInput } from '../../../src-shared/assertions';
import type { DeliveryFilter, ExportFormat, RequestFilter } from '../../../src-shared/api';
import type { Source } from '../../../src-shared/settings';

export interface ExportScope {
  filter: MessageFilterInput;
  /** The parts of the view's filter the export applies, in words. */
  applied: string[];
  /** The parts it cannot apply, in words. */
  ignored: string[];
}

const TIME = 'time range (when the message was received)';

/** Pure: the Deliveries filter as an export's message filter. */
export function scopeOfDeliveries(f: DeliveryFilter): ExportScope {
  const filter: MessageFilterInput = {};
  const applied: string[] = [];
  const ignored: string[] = [];
  if (f.type) {
    filter.type = f.type;
    applied.push(`type ${f.type}`);
  }
  const statuses = f.status === undefined ? [] : Array.isArray(f.status) ? f.status : [f.status];
  const [status] = statuses;
  if (statuses.length === 1 && status !== undefined) {
    filter.deliveryStatus = status;
    applied.push(`status ${status.replace('_', ' ')} (messages with a delivery in it)`);
  } else if (statuses.length > 1) {
    ignored.push('status (only one status can apply)');
  }
  if (f.violations) {
    filter.violations = f.violations;
    applied.push(f.violations === 'any' ? 'violating the tracking plan' : 'passing the tracking plan');
  }
  if (f.from || f.to) {
    if (f.from) filter.since = f.from;
    if (f.to) filter.until = f.to;
    applied.push(TIME);
  }
  if (f.url) ignored.push('URL');
  if (f.text) ignored.push('search');
  if (f.replayed !== undefined) ignored.push('replayed');
  return { filter, applied, ignored };
}

/** Pure: the Inbound filter as an export's message filter (a source by its name). */
export function scopeOfInbound(f: RequestFilter, sources: Source[]): ExportScope {
  const filter: MessageFilterInput = {};
  const applied: string[] = [];
  const ignored: string[] = [];
  if (f.sourceId !== undefined) {
    const name = sources.find((s) => s.id === f.sourceId)?.name;
    if (name !== undefined) {
      filter.source = name;
      applied.push(`source ${name}`);
    } else {
      ignored.push('source (no longer exists)');
    }
  }
  if (f.from || f.to) {
    if (f.from) filter.since = f.from;
    if (f.to) filter.until = f.to;
    applied.push(TIME);
  }
  // Messages come only from accepted calls: "accepted" changes nothing, "refused" has none to export.
  if (f.status === 'accepted') applied.push('accepted calls');
  if (f.status === 'refused') ignored.push('status refused (refused calls carry no messages)');
  if (f.path) ignored.push('path');
  return { filter, applied, ignored };
}

export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = { ndjson: 'ndjson', csv: 'csv', har: 'har' };
export const EXPORT_MIME: Record<ExportFormat, string> = { ndjson: 'application/x-ndjson', csv: 'text/csv', har: 'application/json' };
export const FORMAT_LABELS: Record<ExportFormat, string> = { ndjson: 'NDJSON (messages as received)', har: 'HAR 1.2 (webhook attempts)', csv: 'CSV (one row per message)' };

/** Pure: hookbench-2026-11-23-144005.ndjson, in local time. */
export function exportFileName(now: Date, format: ExportFormat): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}-${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
  return `hookbench-${date}.${EXPORT_EXTENSIONS[format]}`;
}
