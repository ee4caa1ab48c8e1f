/** The Deliveries list's numbers in plain words. Pure. */
import type { DeliveryCounts, DeliverySummary, UrlOutcome } from '../../../src-shared/api';
import { failureText, formatDuration, outcomeLabel } from '../../../src-shared/delivery-outcomes';
import { timeOf, whenOf } from '../../shared/format';

const n = (x: number): string => x.toLocaleString('en-US');
const plural = (x: number, one: string, many: string): string => `${n(x)} ${x === 1 ? one : many}`;

/**
 * Pure: the matching count to show beside `shown` listed rows. A count that stopped short counts
 * the newest stretch of the log only, while the list reads on by itself and may have found more
 * further down: the bar never says fewer than the list shows.
 */
export function shownMatching(counts: DeliveryCounts, shown: number): number {
  return counts.searchedTo && !counts.capped ? Math.max(counts.matching, shown) : counts.matching;
}

/** What the list holds, for judging a count beside it. */
export interface ListHeld {
  loaded: boolean;
  loading: boolean;
  hasOlder: boolean;
  searched: unknown;
  atOldest: boolean;
  newWhilePaused: number;
  shown: number;
}

/**
 * Pure: the counts as the bar and the empty list say them. Once the list holds every match (read
 * to its end, nothing stopped short, nothing held back while paused), a count that stopped short
 * ("0+ … counted since …", or capped) is replaced by what the list holds: exact. On a 10M log a
 * cold text count ran out of time while the list had read to its end and found nothing, and the
 * bar said "0+ … (counted since …)" beside "All 10,063,330 deliveries are hidden by it".
 */
export function countsBesideList(counts: DeliveryCounts | null, list: ListHeld): DeliveryCounts | null {
  if (!counts || !(counts.searchedTo || counts.capped)) return counts;
  const complete = list.loaded && !list.loading && !list.hasOlder && list.searched === null && !list.atOldest && list.newWhilePaused === 0;
  if (!complete || list.shown > counts.total) return counts;
  const { searchedTo: _searched, capped: _capped, ...exact } = counts;
  return { ...exact, matching: list.shown };
}

export function countWords(counts: DeliveryCounts | null, filtered: boolean, now: number = Date.now(), shown = 0): string {
  if (!counts) return '…';
  if (!filtered) return plural(counts.total, 'delivery', 'deliveries');
  const matching = shownMatching(counts, shown);
  // A capped count stopped at its limit: more match, and counting them all would read the whole log.
  const at = `${n(matching)}${counts.capped || counts.searchedTo ? '+' : ''} of ${plural(counts.total, 'delivery', 'deliveries')}`;
  // A count that stopped short (a search no index answers, or one through the index or the log that
  // ran out of time) counts only the newest stretch of the log; once the list has found more, its
  // rows are the lower bound, from further down than that stretch.
  const words = counts.searchedTo && !counts.capped && matching === counts.matching ? `${at} (counted since ${whenOf(counts.searchedTo, now)})` : at;
  // Right after an upgrade the search index is still taking in the old log: searches are slower until it is done.
  return counts.textIndexCatchingUp ? `${words} (search index catching up)` : words;
}

/** Under a search that stopped short: "Searched down to 14:02:11.250, no further yet." */
export function searchedWords(searched: { to: string; direction: 'older' | 'newer' }, now: number): string {
  return `Searched ${searched.direction === 'older' ? 'down' : 'up'} to ${whenOf(searched.to, now)}; the rest of the log is not searched yet.`;
}

export function hiddenWords(counts: DeliveryCounts | null, shown = 0): string {
  if (!counts) return '';
  const hidden = n(Math.max(0, counts.total - shownMatching(counts, shown)));
  return counts.capped || counts.searchedTo ? `at most ${hidden} hidden by the filter` : `${hidden} hidden by the filter`;
}

/** The Last column: the status the delivery ended on, else what went wrong in a word (timeout, refused, TLS…). */
export function lastStatusWords(row: Pick<DeliverySummary, 'lastHttpStatus' | 'lastError' | 'urls'>): string {
  if (row.lastHttpStatus !== null) return String(row.lastHttpStatus);
  const failed = [...row.urls].reverse().find((u) => u.state !== 'in_flight' && u.failure !== null);
  if (failed) return outcomeLabel(failed.httpStatus, failed.failure);
  return row.lastError ? 'error' : '—';
}

export type OutcomeTone = 'ok' | 'bad' | 'flying';

/** One URL's latest attempt as a row shows it: a word or two, a tone, and the whole story on hover. */
export function urlOutcomeWords(u: UrlOutcome, now: number): { label: string; tone: OutcomeTone; title: string } {
  if (u.state === 'in_flight') {
    return { label: 'waiting', tone: 'flying', title: `${u.url}: sent in round ${u.round}, no answer after ${secondsSince(u.startedAt, now)} s` };
  }
  const label = outcomeLabel(u.httpStatus, u.failure);
  const ok = u.failure === null && u.httpStatus !== null && u.httpStatus >= 200 && u.httpStatus < 300;
  const story = u.failure ? failureText(u.failure) : u.httpStatus === null ? 'no response' : `HTTP ${u.httpStatus}`;
  return { label, tone: ok ? 'ok' : 'bad', title: `${u.url}: ${story} (round ${u.round})` };
}

/** "127.0.0.1:9000/hook": a URL short enough for a row, scheme dropped. */
export function shortUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname === '/' ? '' : u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/** "3 s" under a minute, "2 min 5 s" past it. */
function waitedFor(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : formatDuration(s * 1000);
}

function secondsSince(iso: string, now: number): number {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? 0 : Math.max(0, Math.floor((now - at) / 1000));
}

/**
 * What an in-flight round waits for, e.g. "1 of 2 URLs answered; waiting for http://… (3 s)":
 * the URLs of the round still out and for how long; null when the delivery is not in flight or
 * nothing is known to be out.
 */
export function waitingWords(row: Pick<DeliverySummary, 'status' | 'urls'>, now: number): string | null {
  if (row.status !== 'in_flight') return null;
  const round = Math.max(0, ...row.urls.map((u) => u.round));
  const current = row.urls.filter((u) => u.round === round);
  const out = current.filter((u) => u.state === 'in_flight');
  if (out.length === 0) return null;
  const since = Math.min(...out.map((u) => Date.parse(u.startedAt)).filter((t) => !Number.isNaN(t)));
  const wait = `waiting for ${out.map((u) => u.url).join(', ')} (${Number.isFinite(since) ? waitedFor(now - since) : '0 s'})`;
  if (current.length === 1) return wait;
  return `${current.length - out.length} of ${current.length} URLs answered; ${wait}`;
}

/** "backend → Local receiver": where the delivery came from and goes to. */
export function routeWords(row: Pick<DeliverySummary, 'sourceName' | 'destinationName' | 'destinationId'>): string {
  return `${row.sourceName ?? 'unknown source'} → ${row.destinationName ?? `removed destination #${row.destinationId}`}`;
}

/** The Event column: the event of a track, the name of a page or screen. */
export function eventWords(row: Pick<DeliverySummary, 'event' | 'name'>): string {
  return row.event ?? row.name ?? '—';
}

/** Beside a retrying status: when the next round is due. */
export function nextAttemptWords(row: Pick<DeliverySummary, 'status' | 'nextAttemptAt'>, now: number = Date.now()): string | null {
  if (row.status !== 'retrying' || !row.nextAttemptAt) return null;
  // A retry window can cross midnight: another day's time comes with its date.
  const when = whenOf(row.nextAttemptAt, now);
  return `next ${when === timeOf(row.nextAttemptAt) ? when.slice(0, 8) : when}`;
}

export function bulkSummaryWords(b: {
  state: string;
  done: number;
  total: number;
  replayed: number;
  failed: number;
  skipped?: number;
  firstError: string | null;
}): string {
  const head = b.state === 'cancelled' ? `Cancelled after ${n(b.done)} of ${n(b.total)}: ` : b.total === 0 ? 'No failed delivery in this filter. ' : '';
  if (b.total === 0 && b.state !== 'cancelled') return head.trim();
  const skipped = b.skipped ? `, skipped ${n(b.skipped)} replayed meanwhile` : '';
  const body = `replayed ${n(b.replayed)}, failed ${n(b.failed)}${skipped}`;
  const text = head ? `${head}${body}` : body.charAt(0).toUpperCase() + body.slice(1);
  return b.firstError ? `${text}. First error: ${b.firstError}` : `${text}.`;
}

/** The question the bulk replay asks before it starts. */
export function bulkConfirmWords(c: { fresh: number; alreadyReplayed: number; atLeast?: boolean }, includeReplayed: boolean): string {
  const count = c.fresh + (includeReplayed ? c.alreadyReplayed : 0);
  if (count === 0 && c.atLeast) return 'No failed delivery in the part of the log searched so far; the replay searches the rest as it goes.';
  if (count === 0) {
    return c.alreadyReplayed === 0
      ? 'No failed delivery in this filter.'
      : `Every failed delivery in this filter was replayed already (${n(c.alreadyReplayed)}).`;
  }
  return `Replay ${c.atLeast ? 'at least ' : ''}${plural(count, 'failed delivery', 'failed deliveries')} in this filter, as they were?`;
}

/** Under "No delivery matches this filter". */
export function noMatchWords(counts: DeliveryCounts | null): string {
  const lead = !counts || counts.total === 0 ? '' : counts.total === 1 ? 'The only delivery is hidden by it. ' : `All ${n(counts.total)} deliveries are hidden by it. `;
  return `${lead}Loosen the filter, or clear it to see every delivery.`;
}
