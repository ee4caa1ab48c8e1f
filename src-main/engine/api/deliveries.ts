/**
 * The Deliveries view's queries (src-shared/api.ts: listDeliveries, getDeliverySummaries,
 * countDeliveries): filtered, keyset-paged, newest first. Params arrive from a transport, so each
 * is checked here and refused by field name whatever the static types say.
 */
import {
  COUNT_LIMIT,
  DEFAULT_PAGE_LIMIT,
  type DeliveryCounts,
  type DeliveryFilter,
  type DeliverySummary,
  type PageResult,
} from '../../../src-shared/api';
import { parseOrThrow } from '../../../src-shared/settings';
import { deliveryFilterSchema, deliveryPageSchema, idsSchema } from './params';
import { hasTimeRange, indexableText, type DeliveryQueryFilter, type DeliveryQueryPage, type DeliveryViewStore, type SummaryRow } from '../store/delivery-views';
import { toSummary } from './views';
import type { OffThreadReads } from '../reads/off-thread';
import type { Clock } from '../clock';

export { MAX_NEEDLE_LENGTH } from './params';

export type ParsedFilter = DeliveryQueryFilter;
export type ParsedPage = DeliveryQueryPage;

/** Pure: the filter as the query needs it (an empty box narrows nothing, a status list has no repeats). */
function filterOf(f: DeliveryFilter): ParsedFilter {
  const some = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
  const statuses = f.status === undefined ? null : [...new Set(Array.isArray(f.status) ? f.status : [f.status])];
  return {
    statuses,
    type: some(f.type),
    url: some(f.url),
    text: some(f.text),
    replayed: f.replayed ?? null,
    violations: f.violations ?? null,
    fromMs: f.from === undefined ? null : Date.parse(f.from),
    toMs: f.to === undefined ? null : Date.parse(f.to),
  };
}

/** Pure: a listDeliveries param as the query needs it, or a ValidationError naming each bad field. */
export function parseDeliveryPage(input: unknown): ParsedPage {
  const page = parseOrThrow(deliveryPageSchema.nullish(), input, 'page') ?? {};
  return {
    ...filterOf(page),
    beforeId: page.beforeId ?? null,
    afterId: page.afterId ?? null,
    limit: page.limit ?? DEFAULT_PAGE_LIMIT,
    oldest: page.oldest ?? false,
    ids: page.ids === undefined ? null : [...new Set(page.ids)],
  };
}

/** Pure: a countDeliveries param, or a ValidationError naming each bad field. */
export function parseDeliveryFilter(input: unknown): ParsedFilter {
  return filterOf(parseOrThrow(deliveryFilterSchema.nullish(), input, 'filter') ?? {});
}

/** Pure: getDeliverySummaries' ids, each a positive whole number, at most MAX_PAGE_LIMIT of them. */
export function parseIds(input: unknown): number[] {
  return [...new Set(parseOrThrow(idsSchema, input, 'ids'))];
}

/** How long one window of a wide read may hold the event loop. */
export const WINDOW_TARGET_MS = 5;
const FIRST_WINDOW = 2048;
const MIN_WINDOW = 256;
const MAX_WINDOW = 1 << 20;
/** The windows' sizing, for what counts them. */
export const ID_WINDOWS = { first: FIRST_WINDOW, max: MAX_WINDOW };

/**
 * Pure: whether a filter may have to read much of the log to fill a page or a count (free text,
 * a URL found in attempts): such reads go window by window, newest first, yielding between.
 */
export function readsWide(f: ParsedFilter): boolean {
  return f.text !== null || f.url !== null;
}

/** A wide read over this log: free text the trigram index cannot answer (yet), or a URL. */
function wideHere(views: DeliveryViewStore, f: ParsedFilter): boolean {
  return readsWide(f) && (f.url !== null || !views.usesTextIndex(f));
}

/**
 * How many delivery ids one call reads through the log for a text filter no index answers: 1.5 to
 * 2.2 µs an id on the 1M log on the shared machine (25,000 ids took 37 to 56 ms a call), so about
 * 20 to 35 ms. The call returns what it found there with where it stopped (PartialRead), and the
 * next goes on.
 */
export const TEXT_SCAN_BUDGET = 15_000;

/**
 * How long a count through the text index may walk it (ms), on the read worker: a needle whose
 * matches are rare among messages that share its trigrams can need the whole index, so past this
 * the count says how far it got (searchedTo) rather than make the view wait. Its probes and the
 * read of the deliveries made later come on top (a few ms), so the call stays under 50 ms.
 */
export const COUNT_BUDGET_MS = 20;

/**
 * How long (ms) a Deliveries page or count reads through the log for a filter no index serves (a
 * URL, a type, replays, violations: checked row by row) before it answers with what it found and
 * how far it got (PartialRead; a count says since when it counted). At 10M a violations filter
 * that nothing matched read every delivery, 5.8 s a page and 4.5 s a count, and the view's
 * counts every 500 ms queued behind one another on the read worker. The window it stops after,
 * the summaries and the trip to the worker come on top: 7–55 ms a call on that log
 * (bench/deliveries-filters.measure.ts).
 */
export const READ_BUDGET_MS = 20;

/**
 * Pure: whether a filter has a term that only reading the log can check (no index or tally serves
 * it). Replayed deliveries are found through the replays' index; those never replayed are not.
 */
export function checkedInLog(f: ParsedFilter): boolean {
  return f.url !== null || f.type !== null || f.replayed === false || f.violations !== null;
}

export interface DeliveryReadOptions {
  /** TEXT_SCAN_BUDGET unless a test reads a small log in small steps. */
  textScanBudget?: number;
  /** READ_BUDGET_MS unless set (Infinity: read the whole log, for tests that compare answers). */
  readBudgetMs?: number;
  /** COUNT_BUDGET_MS unless set: the engine's thread gives a count through the index one window's time. */
  countBudgetMs?: number;
  /** The clock a count's budget is read on (ms); performance.now unless a test drives it. */
  now?: () => number;
}

/**
 * How a page reads: through the indexes (status and time alone, or a text the index answers);
 * through the log in calls bounded by the ids they read (a text no index answers); or through the
 * log in calls bounded in time (a term checkedInLog, READ_BUDGET_MS).
 */
function pageRoute(views: DeliveryViewStore, p: ParsedPage): 'indexed' | 'bounded' | 'timed' {
  // Named ids: a seek each, whatever the filter.
  if ((p.ids ?? null) !== null) return 'indexed';
  if (p.text !== null && !views.pageUsesTextIndex(p)) return 'bounded';
  if (p.text !== null) return p.url !== null ? 'timed' : 'indexed';
  return checkedInLog(p) ? 'timed' : 'indexed';
}

/**
 * How a count with a text filter reads: through the index (a walk bounded in time), or through
 * the log in a bounded call, as the page does for a needle no index answers (too short, the index
 * catching up, or one that starts too many messageIds to take them as a set).
 */
function countRoute(views: DeliveryViewStore, f: ParsedFilter): 'index' | 'bounded' | null {
  if (f.text === null) return null;
  return views.pageUsesTextIndex(f) ? 'index' : 'bounded';
}

const isoOf = (ms: number): string => new Date(ms).toISOString();

/** Pure: the next window's size (in ids), so that it takes about WINDOW_TARGET_MS given how long the last one took. */
export function nextWindow(size: number, tookMs: number): number {
  const scaled = Math.round((size * WINDOW_TARGET_MS) / Math.max(tookMs, 0.05));
  return Math.min(MAX_WINDOW, Math.max(MIN_WINDOW, Math.min(scaled, size * 4)));
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads ids (afterId, beforeId) from `high` down to `floor` (or up, oldest first) through `read`,
 * which says when it has enough. How is the scan's business: in windows on the engine's thread, or
 * all at once where nothing else waits for the thread (the read worker).
 */
export type Scan = (floor: number, high: number, read: (afterId: number, beforeId: number) => boolean, oldest?: boolean) => Promise<void>;

/**
 * Windows of ids, newest first (oldest first with `oldest`), one statement each, giving the event
 * loop back after each, until `read` says stop.
 */
export const inWindows: Scan = (floor, high, read, oldest = false) => windowsFrom(FIRST_WINDOW, floor, high, read, oldest);

/**
 * The same, from the smallest window: for a read bounded in time, whose first window must not
 * take the whole budget where each row is dear (a URL checked against every attempt: about 13 µs
 * a delivery at 10M, so 2,048 of them took 25–28 ms).
 */
const fromSmallWindows: Scan = (floor, high, read, oldest = false) => windowsFrom(MIN_WINDOW, floor, high, read, oldest);

async function windowsFrom(first: number, floor: number, high: number, read: (afterId: number, beforeId: number) => boolean, oldest: boolean): Promise<void> {
  let size = first;
  if (oldest) {
    for (let after = floor; after + 1 < high; ) {
      const before = Math.min(high, after + 1 + size);
      const t = performance.now();
      const enough = read(after, before);
      size = nextWindow(size, performance.now() - t);
      after = before - 1;
      if (enough) return;
      await nextTurn();
    }
    return;
  }
  for (let before = high; before - 1 > floor; ) {
    const after = Math.max(floor, before - 1 - size);
    const t = performance.now();
    const enough = read(after, before);
    size = nextWindow(size, performance.now() - t);
    before = after + 1;
    if (enough) return;
    await nextTurn();
  }
}

/** The whole range in one statement: the same rows and counts as the windows, read in one go. */
export const atOnce: Scan = async (floor, high, read) => {
  if (high - 1 > floor) read(floor, high);
};

/**
 * The ids (afterId, beforeId) a time range spans, exclusive at both ends, or null when it spans
 * none: two binary searches by primary key, so neither end reads the rows outside the range.
 */
function timeBounds(views: DeliveryViewStore, f: ParsedFilter): { afterId: number; beforeId: number } | null {
  const range = views.idRange();
  if (range === null) return null;
  const first = (f.fromMs ?? null) === null ? range.low : views.idAtOrAfter(f.fromMs!);
  if (first === null) return null;
  const end = (f.toMs ?? null) === null ? null : views.idAtOrAfter(f.toMs!);
  const beforeId = end ?? range.high + 1;
  return first < beforeId ? { afterId: first - 1, beforeId } : null;
}

/** Summaries of listed rows, with the outcome per URL read for all of them at once. */
function withOutcomes(views: DeliveryViewStore, rows: SummaryRow[]): DeliverySummary[] {
  const outcomes = views.urlOutcomes(rows.map((r) => r.id));
  return rows.map((r) => toSummary(r, outcomes.get(r.id)));
}

/** The Deliveries view's reads over one connection, on already checked params. */
export interface DeliveryReads {
  list(p: ParsedPage): Promise<PageResult<DeliverySummary>>;
  count(f: ParsedFilter): Promise<DeliveryCounts>;
}

export function createDeliveryReads(views: DeliveryViewStore, scan: Scan = inWindows, options: DeliveryReadOptions = {}): DeliveryReads {
  const budget = options.textScanBudget ?? TEXT_SCAN_BUDGET;
  const countBudget = options.countBudgetMs ?? COUNT_BUDGET_MS;
  const readBudget = options.readBudgetMs ?? READ_BUDGET_MS;
  const now = options.now ?? ((): number => performance.now());
  const reads: DeliveryReads = {
    async list(input) {
      const p = { ...input };
      if (hasTimeRange(p)) {
        const bounds = timeBounds(views, p);
        if (bounds === null) return { items: [], nextBeforeId: null };
        p.afterId = Math.max(p.afterId ?? 0, bounds.afterId);
        p.beforeId = Math.min(p.beforeId ?? Number.MAX_SAFE_INTEGER, bounds.beforeId);
        if (p.beforeId - 1 <= p.afterId) return { items: [], nextBeforeId: null };
      }
      let rows: SummaryRow[];
      const route = pageRoute(views, p);
      const range = route === 'indexed' ? null : views.idRange();
      // Where a bounded read stopped short of the range: the lowest id it read past (newest first) or the highest (oldest first).
      let stop: number | null = null;
      if (range === null) rows = views.page(p);
      else {
        const found: SummaryRow[] = [];
        // Deliveries whose messages cannot carry violations are not read for them.
        const from = p.violations === 'any' ? views.violationsFrom() : range.low;
        if (from === null) return { items: [], nextBeforeId: null };
        // A URL only attempts carry: the deliveries outside its attempts' range are not read.
        const urls = views.urlIdRange(p) ?? { low: range.low, high: range.high };
        let floor = Math.max(p.afterId ?? 0, range.low - 1, from - 1, urls.low - 1);
        let high = Math.min(p.beforeId ?? Number.MAX_SAFE_INTEGER, range.high + 1, urls.high + 1);
        if (route === 'bounded' && high - 1 - floor > budget) {
          if (p.oldest) high = stop = floor + 1 + budget;
          else floor = stop = high - 1 - budget;
        }
        const began = now();
        // A read bounded in time goes window by window wherever it runs, so that it can stop between two.
        await (route === 'timed' ? fromSmallWindows : scan)(
          floor,
          high,
          (afterId, beforeId) => {
            const part = views.page({ ...p, afterId, beforeId, limit: p.limit - found.length });
            // Oldest first, each window's rows come before the next (newer) window's.
            found.push(...(p.oldest ? part.reverse() : part));
            if (found.length >= p.limit) return true;
            // Out of time with ids left to read: what was found, and where it stopped.
            const left = p.oldest ? beforeId < high : afterId > floor;
            if (route !== 'timed' || !left || now() - began < readBudget) return false;
            stop = p.oldest ? beforeId : afterId;
            return true;
          },
          p.oldest,
        );
        rows = p.oldest ? found.reverse() : found;
      }
      const last = rows[rows.length - 1];
      if (stop !== null && rows.length < p.limit) {
        // Read up to the budget without filling the page: say how far, and go on from there next call.
        if (p.oldest) {
          const newest = views.lastBelow(stop);
          return {
            items: withOutcomes(views, rows),
            nextBeforeId: null,
            partial: { searchedTo: isoOf(newest?.created_at ?? 0), resume: { afterId: stop - 1 } },
          };
        }
        const oldest = views.firstAtOrAbove(stop + 1);
        return {
          items: withOutcomes(views, rows),
          nextBeforeId: stop + 1,
          partial: { searchedTo: isoOf(oldest?.created_at ?? 0), resume: { beforeId: stop + 1 } },
        };
      }
      // The oldest page has nothing older than it.
      const more = !p.oldest && rows.length === p.limit && last;
      return { items: withOutcomes(views, rows), nextBeforeId: more ? last.id : null };
    },
    async count(f) {
      // With no message able to carry violations (the tallies say so), "violating it" matches
      // nothing and "passing it" is the filter without it: exact, from the status counts when that
      // is all the filter holds, rather than "10,000+" counted through the log.
      // The lowest delivery whose message may carry violations (1: the tallies rule nothing out).
      const violationsFrom = f.violations === null ? 1 : views.violationsFrom();
      if (violationsFrom === null) {
        if (f.violations === 'any') return { total: views.countStart(f).total, matching: 0 };
        return reads.count({ ...f, violations: null });
      }
      const timed = hasTimeRange(f);
      const route = countRoute(views, f);
      if (route === 'index') {
        const start = views.countStart(f);
        if (start.none) return { total: start.total, matching: 0 };
        const bounds = timed ? timeBounds(views, f) : null;
        if (timed && bounds === null) return { total: start.total, matching: 0 };
        const began = now();
        const { n, fromId } = views.countByIndex(f, bounds, () => now() - began >= countBudget);
        if (n > COUNT_LIMIT) return { total: start.total, matching: COUNT_LIMIT, capped: true };
        const searched = fromId === null ? {} : { searchedTo: isoOf(views.firstAtOrAbove(fromId)?.created_at ?? 0) };
        return { total: start.total, matching: n, ...searched };
      }
      const inLog = checkedInLog(f);
      const range = route === 'bounded' || wideHere(views, f) || timed || inLog ? views.idRange() : null;
      // Without a wide filter or a time range (or on an empty log) the count is from the status counts or one short read.
      if (range === null) return views.count(f);
      const start = views.countStart(f);
      if (start.none) return { total: start.total, matching: 0 };
      const bounds = timed ? timeBounds(views, f) : { afterId: range.low - 1, beforeId: range.high + 1 };
      if (bounds === null) return { total: start.total, matching: 0 };
      if (f.violations === 'any') bounds.afterId = Math.max(bounds.afterId, violationsFrom - 1);
      const urls = views.urlIdRange(f);
      if (urls !== null) {
        bounds.afterId = Math.max(bounds.afterId, urls.low - 1);
        bounds.beforeId = Math.min(bounds.beforeId, urls.high + 1);
        if (bounds.beforeId - 1 <= bounds.afterId) return { total: start.total, matching: 0 };
      }
      // A text no index answers counts the newest part of the range one call reads, and says so.
      const cut = route === 'bounded' && bounds.beforeId - 1 - bounds.afterId > budget ? bounds.beforeId - 1 - budget : null;
      if (cut !== null) bounds.afterId = cut;
      // Said so the UI can tell why a search is slower than usual for a while after an upgrade.
      const catchingUp = f.text !== null && indexableText(f.text) && !views.textIndexReady() ? { textIndexCatchingUp: true } : {};
      let matching = 0;
      // Bounded in time too when a term is checked row by row: then it says since when it counted.
      let stoppedAt: number | null = null;
      const began = now();
      await (inLog ? fromSmallWindows : scan)(bounds.afterId, bounds.beforeId, (afterId, beforeId) => {
        matching += views.countIn(f, afterId, beforeId);
        if (matching > COUNT_LIMIT) return true;
        if (!inLog || afterId <= bounds.afterId || now() - began < readBudget) return false;
        stoppedAt = afterId;
        return true;
      });
      if (matching > COUNT_LIMIT) return { total: start.total, matching: COUNT_LIMIT, capped: true, ...catchingUp };
      const from = stoppedAt ?? cut;
      const searched = from === null ? {} : { searchedTo: isoOf(views.firstAtOrAbove(from + 1)?.created_at ?? 0) };
      return { total: start.total, matching, ...catchingUp, ...searched };
    },
  };
  return reads;
}

/**
 * Pure: whether a page may have to read many rows to fill: a text or URL filter, or a type,
 * replay or violations filter (a rare value is searched for through the log). A page on status
 * or time alone is a few index seeks and stays on the engine's thread.
 */
export function pageReadsOffThread(p: ParsedPage): boolean {
  if ((p.ids ?? null) !== null) return false;
  return readsWide(p) || p.type !== null || p.replayed !== null || p.violations !== null;
}

/** Pure: whether a count reads the log at all (anything but statuses: those are counted by the log itself). */
export function countReadsOffThread(f: ParsedFilter): boolean {
  return readsWide(f) || f.type !== null || f.replayed !== null || f.violations !== null || hasTimeRange(f);
}

export interface DeliveryQueries {
  list(page: unknown): Promise<PageResult<DeliverySummary>>;
  summaries(ids: unknown): DeliverySummary[];
  count(filter: unknown): Promise<DeliveryCounts>;
}

/**
 * Params checked here; the reads that may take long go to the read worker when there is one
 * (`offThread`), the others, and every read while no worker is answering, run here.
 */
export function createDeliveryQueries(views: DeliveryViewStore, offThread?: OffThreadReads, clock?: Clock, readBudgetMs = READ_BUDGET_MS): DeliveryQueries {
  // On the engine's thread a count through the index walks no longer than a window of a wide
  // read, on the engine's clock.
  const here = createDeliveryReads(views, inWindows, { countBudgetMs: WINDOW_TARGET_MS, readBudgetMs, ...(clock ? { now: () => clock.now() } : {}) });
  // A count the read worker is still making is shared by the same count asked again meanwhile
  // (the Deliveries view in several windows, each asking every 500 ms while deliveries change):
  // each copy would queue behind the last on the worker, with every other long read behind them
  // (before counts were bounded in time, 24 of them at 4.5 s each froze the view for minutes).
  // The answer is as fresh as when the running count started.
  const countsRunning = new Map<string, Promise<DeliveryCounts>>();
  return {
    async list(input) {
      const p = parseDeliveryPage(input);
      if (offThread === undefined || !pageReadsOffThread(p)) return here.list(p);
      return offThread.run('deliveries.list', p, () => here.list(p));
    },
    summaries(input) {
      const ids = parseIds(input);
      if (ids.length === 0) return [];
      return withOutcomes(views, views.byIds(ids));
    },
    async count(input) {
      const f = parseDeliveryFilter(input);
      if (offThread === undefined || !countReadsOffThread(f)) return here.count(f);
      const key = JSON.stringify(f);
      const running = countsRunning.get(key);
      if (running) return running;
      const counted = offThread.run('deliveries.count', f, () => here.count(f)).finally(() => countsRunning.delete(key));
      countsRunning.set(key, counted);
      return counted;
    },
  };
}
