/** The Deliveries list's numbers in plain words. Pure. */
import type { DeliveryCounts, DeliverySummary } from '../../../src-shared/api';
import { timeOf } from '../../shared/format';

const n = (x: number): string => x.toLocaleString('en-US');
const plural = (x: number, one: string, many: string): string => `${n(x)} ${x === 1 ? one : many}`;

export function countWords(counts: DeliveryCounts | null, filtered: boolean): string {
  if (!counts) return '…';
  if (!filtered) return plural(counts.total, 'delivery', 'deliveries');
  // A capped count stopped at its limit: more match, and counting them all would read the whole log.
  return `${n(counts.matching)}${counts.capped ? '+' : ''} of ${plural(counts.total, 'delivery', 'deliveries')}`;
}

export function hiddenWords(counts: DeliveryCounts | null): string {
  if (!counts) return '';
  const hidden = n(Math.max(0, counts.total - counts.matching));
  return counts.capped ? `at most ${hidden} hidden by the filter` : `${hidden} hidden by the filter`;
}

export function lastStatusWords(row: Pick<DeliverySummary, 'lastHttpStatus' | 'lastError'>): string {
  if (row.lastHttpStatus !== null) return String(row.lastHttpStatus);
  return row.lastError ? 'error' : '—';
}

/** Beside a retrying status: when the next round is due. */
export function nextAttemptWords(row: Pick<DeliverySummary, 'status' | 'nextAttemptAt'>): string | null {
  if (row.status !== 'retrying' || !row.nextAttemptAt) return null;
  return `next ${timeOf(row.nextAttemptAt).slice(0, 8)}`;
}

export function bulkSummaryWords(b: { state: string; done: number; total: number; replayed: number; failed: number; firstError: string | null }): string {
  const head = b.state === 'cancelled' ? `Cancelled after ${n(b.done)} of ${n(b.total)}: ` : b.total === 0 ? 'No failed delivery in this filter. ' : '';
  if (b.total === 0 && b.state !== 'cancelled') return head.trim();
  const body = `replayed ${n(b.replayed)}, failed ${n(b.failed)}`;
  const text = head ? `${head}${body}` : body.charAt(0).toUpperCase() + body.slice(1);
  return b.firstError ? `${text}. First error: ${b.firstError}` : `${text}.`;
}

/** Under "No delivery matches this filter". */
export function noMatchWords(counts: DeliveryCounts | null): string {
  const lead = !counts || counts.total === 0 ? '' : counts.total === 1 ? 'The only delivery is hidden by it. ' : `All ${n(counts.total)} deliveries are hidden by it. `;
  return `${lead}Loosen the filter, or clear it to see every delivery.`;
}
