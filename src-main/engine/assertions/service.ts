/**
 * Assertions from a test suite: list what was received and delivered, wait until enough matches
 * (woken by the engine's live events, bounded by a timeout on the engine's clock), and reset (clear
 * the log, or mark a point to filter from). The transports check the input with the schemas of
 * src-shared/assertions.ts first.
 */
import type { z } from 'zod';
import {
  DEFAULT_ASSERT_LIMIT,
  DEFAULT_WAIT_SECONDS,
  type AssertedDeliveryRow,
  type AssertedMessage,
  type MarkerView,
  type Violation,
  type WaitResult,
  deliveryListSchema,
  messageFilterSchema,
  messageListSchema,
  resetSchema,
  waitSchema,
} from '../../../src-shared/assertions';
import type { ClearLogResult, ViolationCount } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import type { Engine } from '../index';
import { toIso } from '../ingest/timestamps';
import { byIndexThenRows, timesFilterSql, type AssertionDeliveryRow, type AssertionMessageRow, type CandidateBatch, type ExportAttemptRow, type IndexedCandidates, type MarkerRow, type MessageQueryFilter } from '../store/assertions';
import { closestMisses, type Criteria } from './match';
import { nextTimedSize, type TimedSlices } from '../sliced-work';
import { TALLY_BLOCK_IDS, type TallyBlock, type ViolationTally } from '../store/message-tallies';
import { isRareStatus } from '../store/rare-statuses';
import { planSegments, type Segment } from './tally-plan';

type FilterInput = z.output<typeof messageFilterSchema>;

/** How many of the newest messages in scope an unmet wait looks through for its near misses. */
const CLOSEST_CANDIDATES = 200;
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
/** The windows of message ids a count in steps reads, sized from the last one's time to hold the thread about 4 ms. */
export const COUNT_WINDOWS: TimedSlices = { first: 2_000, min: 500, max: 1_000_000, targetMs: 4 };
const CLOSEST_SHOWN = 5;
/** A wait's count again that took longer than this is followed by a pause as long. */
const LONG_COUNT_MS = 20;
/** Ranges shorter than this are read row by row: cheaper than reading the tallies. */
const TALLIED_RANGE_MIN = 2 * TALLY_BLOCK_IDS;

/**
 * Candidates a batch of a read through the search index takes (IndexedCandidates). Each is a row
 * read and checked (about 2.5 µs warm at 10M), besides the MATCH's own cost per batch, a seek per
 * segment and trigram (2 ms on the 1M log; up to 25 ms on a 10M log upgraded from before the
 * index's parts, whose one big part is never merged), which does not shrink with the range: the
 * batches are counted in candidates, not in ids.
 */
export const CANDIDATES_PER_BATCH = 2_000;
const SEARCH_INDEX_BATCHES: TimedSlices = { first: CANDIDATES_PER_BATCH, min: CANDIDATES_PER_BATCH, max: CANDIDATES_PER_BATCH, targetMs: 4 };
/**
 * Batches of candidates whose rows cost more than finding them (the messages with a delivery in
 * a rare status, scattered over the log: a page each when the file is cold, 65 ms a batch of
 * 2,000 on a 10M log just opened), sized by time.
 */
export const ROW_BATCHES: TimedSlices = { first: 250, min: 50, max: 50_000, targetMs: 4 };
/** Most messages within a filter's times read through their times' table (a few milliseconds to find, index only). */
export const TIME_CANDIDATES_AT_MOST = 5_000;
/**
 * Most entries of the messages' times an edge block is read through (one walk of them, index
 * only, a few milliseconds warm): a block of 16,384 messages, with room for what arrived among
 * them from elsewhere.
 */
export const EDGE_TIMES_AT_MOST = 2 * TALLY_BLOCK_IDS;
/**
 * Most messages within a filter's times counted from the messages' times alone: one walk of them,
 * index only, and the walk that finds more costs as much (50,000 entries took 7 ms warm and 40
 * ms cold on the 10M log). More are counted by the tallies, the edges from the times.
 */
export const TIMES_COUNTED_AT_MOST = TALLY_BLOCK_IDS;
/** Their batches: they arrived together, so their rows share pages, as a window of ids does (COUNT_WINDOWS). */
const TIME_BATCHES: TimedSlices = { first: 2_000, min: 250, max: 50_000, targetMs: 4 };
/**
 * Most candidates a page of deliveries takes as one set (a seek each in deliveries_message, a few
 * microseconds): its pages go by delivery id, and a replay's delivery comes long after its
 * message, so the set is of every candidate. A value with more reads the deliveries in windows.
 */
export const DELIVERY_CANDIDATES_AT_MOST = 5_000;
/** anonymousIds whose MATCH is kept (matchOf); past this many they are all chosen again. */
const KEPT_MATCHES = 256;

/**
 * A set of message ids that holds every match of a filter, read in batches (`batch`, inBatches)
 * and each checked by the filter's exact terms. The ids above `through` are not covered: they are
 * read row by row.
 */
interface Candidates {
  /** Up to `max` of the candidates in (after, through], ascending (from the read worker, for the search index's). */
  ids: (after: number, through: number, max: number) => number[] | Promise<number[]>;
  through: number;
  /** What each candidate is checked against: the filter, but what the candidates match exactly. */
  check: MessageQueryFilter;
  batches: TimedSlices;
  /**
   * The next batch of candidates in (after, through], at most `max`, checked by `check`: a page's
   * rows with a limit, a count without. Read whole where the candidates are (the search index's
   * and the times': on the read worker), or the ids handed over and checked here.
   */
  batch: (after: number, through: number, max: number, limit: number | null) => Promise<CandidateBatch>;
  /** Counts up to `max` candidates in (after, through] without handing their ids over, when the source can. */
  countIds?: (after: number, through: number, max: number) => { taken: number; last: number | null };
}


/** Whether a filter asks nothing of a message beyond its id: every candidate in range is then a match, unread. */
const asksNothing = (f: MessageQueryFilter): boolean => Object.values({ ...f, afterMessageId: null }).every((value) => value === null);

/** Lets the event loop take a turn (ingest, delivery) between steps of a read. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Milliseconds of reading left to a count made in steps, shared by every range it reads. */
interface Budget {
  ms: number;
}

/**
 * Reads the ids in (low, high] a window at a time (COUNT_WINDOWS), oldest or newest first, with a
 * turn of the event loop between windows, and stops once the budget is spent (after one window at
 * least) or `enough()` says so. Returns the edge it reached: `high` going up, `low` going down,
 * when it read the whole range.
 */
async function inIdWindows(
  range: { low: number; high: number; newestFirst: boolean },
  budget: Budget,
  read: (after: number, through: number) => void,
  enough: () => boolean = () => false,
): Promise<number> {
  let edge = range.newestFirst ? range.high : range.low;
  const done = (): boolean => (range.newestFirst ? edge <= range.low : edge >= range.high);
  let window = COUNT_WINDOWS.first;
  while (!done()) {
    const next = range.newestFirst ? Math.max(range.low, edge - window) : Math.min(range.high, edge + window);
    const t = performance.now();
    if (range.newestFirst) read(next, edge);
    else read(edge, next);
    const took = performance.now() - t;
    budget.ms -= took;
    window = nextTimedSize(COUNT_WINDOWS, window, took);
    edge = next;
    if (done() || budget.ms <= 0 || enough()) break;
    await nextTurn();
  }
  return edge;
}

/**
 * Reads the candidates in (low, high] a batch at a time (sized by `batches`), oldest first, with a
 * turn of the event loop between batches, and stops as inIdWindows does: `take` reads a batch and
 * says how many candidates it took and the last one's id. Returns the edge it reached: `high`
 * when it read every candidate.
 */
/** What a batch took: how many candidates, and the last one's id. */
interface Batch {
  taken: number;
  last: number | null;
}

async function inBatches(
  batches: TimedSlices,
  range: { low: number; high: number },
  budget: Budget,
  take: (after: number, through: number, max: number) => Batch | Promise<Batch>,
  enough: () => boolean = () => false,
): Promise<number> {
  let edge = range.low;
  let size = batches.first;
  while (edge < range.high) {
    const t = performance.now();
    const { taken, last } = await take(edge, range.high, size);
    const took = performance.now() - t;
    budget.ms -= took;
    edge = taken < size || last === null ? range.high : last;
    size = nextTimedSize(batches, size, took);
    if (edge >= range.high || budget.ms <= 0 || enough()) break;
    await nextTurn();
  }
  return edge;
}

const unbounded = (): Budget => ({ ms: Number.POSITIVE_INFINITY });

/**
 * How a page reads the rows of a segment, up to a limit: here, in windows of ids with a turn of
 * the event loop between them, or the whole segment in one call (on the read worker).
 */
type SegmentRead<T> = { inWindows: (after: number, through: number, limit: number) => T[] } | { whole: (after: number, through: number, limit: number) => Promise<T[]> };

/**
 * A keyset page (ids after `after`, oldest first, at most `limit`) read in windows of ids over
 * the segments that may hold a match, so that a filter that matches little or nothing walks the
 * log in steps instead of holding the engine's thread for one long scan. `next` is the last row's
 * id when the page is full. A segment `byCandidates` finds candidates for (a time filter's edge)
 * is read through them instead.
 */
async function pageInWindows<T extends { id: number }>(
  segments: readonly Segment[],
  limit: number,
  read: SegmentRead<T>,
  byCandidates?: {
    candidatesOf: (segment: Segment) => Promise<Candidates | null>;
    /** The candidates' matches in (low, high], oldest first, up to `limit`. */
    pageAmong: (candidates: Candidates, low: number, high: number, limit: number) => Promise<T[]>;
  },
): Promise<{ rows: T[]; next: number | null }> {
  const rows: T[] = [];
  const budget = unbounded();
  for (const segment of segments) {
    if (rows.length >= limit) break;
    const candidates = byCandidates === undefined ? null : await byCandidates.candidatesOf(segment);
    if (byCandidates !== undefined && candidates !== null) {
      rows.push(...(await byCandidates.pageAmong(candidates, segment.after, segment.through, limit - rows.length)));
      continue;
    }
    if ('whole' in read) {
      if (segment.through > segment.after) rows.push(...(await read.whole(segment.after, segment.through, limit - rows.length)));
      continue;
    }
    await inIdWindows(
      { low: segment.after, high: segment.through, newestFirst: false },
      budget,
      (from, through) => void rows.push(...read.inWindows(from, through, limit - rows.length)),
      () => rows.length >= limit,
    );
  }
  return { rows, next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null };
}

/** The whole range, read row by row. */
const wholeRange = (after: number, through: number): Segment[] => [{ after, through, blocks: [] }];

/**
 * Every read here that may scan the log runs in windows of ids with a turn of the event loop
 * between them (inIdWindows): a filter that matches nothing in a log of millions takes its time,
 * but never holds the engine's thread, and with it ingest, for longer than a window (about 4 ms).
 */
export interface Assertions {
  messages(input: z.output<typeof messageListSchema>): Promise<{ messages: AssertedMessage[]; next: number | null }>;
  /** How many messages the filter matches now (exact, counted in windows). */
  count(input: FilterInput): Promise<number>;
  /**
   * The same count made in windows of message ids with a turn of the event loop between them, so
   * that it never holds the engine's thread for long; undefined once it has counted for `budgetMs`
   * without reaching the newest message (a log too big to count for a progress bar).
   */
  countWithin(input: FilterInput, budgetMs: number): Promise<number | undefined>;
  deliveries(input: z.output<typeof deliveryListSchema>): Promise<{ deliveries: AssertedDeliveryRow[]; next: number | null }>;
  /** Attempts of the deliveries the filter matches (message fields over their message), oldest first. */
  attempts(input: z.output<typeof deliveryListSchema>): Promise<{ attempts: ExportAttemptRow[]; next: number | null }>;
  /** Resolves once `count` messages match or the timeout passes, or early when `signal` aborts. */
  wait(input: z.output<typeof waitSchema>, signal?: AbortSignal): Promise<WaitResult>;
  reset(input: z.output<typeof resetSchema>): Promise<{ marker: MarkerView } | { cleared: ClearLogResult; markers: number }>;
  /** Messages with violations, per type and event (after a marker when given), exact, counted in windows. */
  violationCounts(marker?: string): Promise<ViolationCount[]>;
  /**
   * The same over the whole log, counted newest first in windows of message ids with a turn of
   * the event loop between them, for at most `budgetMs` of counting: `from` is null when it
   * reached the oldest message, else the time of receipt of the oldest message it counted.
   */
  violationCountsWithin(budgetMs: number): Promise<{ counts: ViolationCount[]; from: number | null }>;
  /** Ends every wait in progress with what it has (the server is stopping). */
  close(): void;
}

function parseList<T>(text: string | null, keep: (v: unknown) => v is T): T[] {
  if (!text) return [];
  try {
    const list: unknown = JSON.parse(text);
    return Array.isArray(list) ? list.filter(keep) : [];
  } catch {
    return [];
  }
}

const isViolation = (v: unknown): v is Violation =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Violation).path === 'string' &&
  typeof (v as Violation).rule === 'string' &&
  typeof (v as Violation).message === 'string';

const isDelivery = (v: unknown): v is AssertedMessage['deliveries'][number] =>
  typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'number';

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A stored violations list, read defensively: a row written by hand or by an older build may hold anything. */
export const violationsOf = (text: string | null | undefined): Violation[] => parseList(text ?? null, isViolation);

export function toAssertedMessage(r: AssertionMessageRow): AssertedMessage {
  return {
    id: r.id,
    messageId: r.message_id,
    type: r.type,
    event: r.event,
    userId: r.user_id,
    anonymousId: r.anonymous_id,
    source: r.source,
    receivedAt: toIso(r.received_at),
    message: jsonOf(r.json),
    violations: violationsOf(r.violations),
    deliveries: parseList(r.deliveries, isDelivery),
  };
}

function toDeliveryRow(r: AssertionDeliveryRow): AssertedDeliveryRow {
  return {
    id: r.id,
    messageRowId: r.message_row_id,
    messageId: r.message_id,
    type: r.type,
    event: r.event,
    userId: r.user_id,
    anonymousId: r.anonymous_id,
    source: r.source,
    destination: r.destination,
    status: r.status,
    httpStatus: r.last_http_status,
    error: r.last_error,
    rounds: r.rounds,
    replayOf: r.replay_of,
    createdAt: toIso(r.created_at),
    finishedAt: r.finished_at === null ? null : toIso(r.finished_at),
  };
}

const toMarkerView = (m: MarkerRow): MarkerView => ({
  name: m.name,
  afterMessageId: m.message_id,
  afterDeliveryId: m.delivery_id,
  createdAt: toIso(m.created_at),
});

export function createAssertions(engine: Engine, random: () => number = Math.random): Assertions {
  const store = engine.stores.assertions;
  const tallies = engine.stores.tallies;

  /**
   * An anonymousId (no userId: a user's messages have their own index) is looked up through the
   * search index, which holds it as text: no index of its own, which every commit would pay for.
   */
  const indexedFor = async (filter: MessageQueryFilter): Promise<IndexedCandidates | null> => {
    if (filter.anonymousId === null || filter.userId !== null) return null;
    const match = await matchOf(filter.anonymousId);
    const index = engine.stores.searchIndex;
    return match === null ? null : { parts: index.parts(), match, through: index.through() };
  };
  /**
   * The candidates' ids in the search index, read on the read worker: one MATCH costs a seek per
   * segment and trigram whatever the range, tens of milliseconds on the big part of a log from
   * before the index's parts, which the engine's thread would spend stalled.
   */
  const indexedIds = (indexed: IndexedCandidates, after: number, through: number, max: number): Promise<number[]> =>
    engine.reads.run('assertions.candidates', { indexed, after, through, max }, async () => store.candidateIds(indexed, after, through, max));
  /**
   * A segment of a page of messages (one statement there, up to the page's size), and a walk of
   * the messages' times: reads of thousands of rows or entries that a cold page cache makes tens
   * of milliseconds, on the read worker.
   */
  const messagesIn = (filter: MessageQueryFilter, afterId: number, limit: number, throughId: number): Promise<AssertionMessageRow[]> =>
    engine.reads.run('assertions.messages', { filter, afterId, limit, throughId }, async () => {
      // No worker answering: here, in windows with a turn between them, as before it.
      const here = await pageInWindows(wholeRange(afterId, throughId), limit, { inWindows: (from, through, n) => store.messages(filter, from, n, through) });
      return here.rows;
    });
  const countReceived = (filter: MessageQueryFilter, since: number | null, until: number | null, afterId: number, throughId: number, max: number): Promise<number | null> =>
    engine.reads.run('assertions.countReceived', { filter, since, until, afterId, throughId, max }, async () => store.countReceived(filter, since, until, afterId, throughId, max));
  /** The ids of the messages received within times, from the messages' times (receivedIds): a walk of up to thousands of entries, on the read worker. */
  const receivedIds = (since: number | null, until: number | null, afterId: number, throughId: number, max: number): Promise<number[] | null> =>
    engine.reads.run('assertions.receivedIds', { since, until, afterId, throughId, max }, async () => store.receivedIds(since, until, afterId, throughId, max));
  /**
   * Candidates from the messages' times: found at once (ascending ids), handed out a batch at a
   * time, each batch's rows read and checked on the read worker (they arrived together, but a
   * batch is still up to thousands of rows).
   */
  const receivedAmong = (ids: readonly number[], through: number, check: MessageQueryFilter): Candidates => {
    const inRange = (after: number, to: number, max: number): number[] => ids.filter((id) => id > after && id <= to).slice(0, max);
    return {
      ids: inRange,
      batch: async (after, to, max, limit) => {
        const taken = inRange(after, to, max);
        const read = await engine.reads.run('assertions.among', { check, ids: taken, limit }, async () => store.among(check, taken, limit));
        return { taken: taken.length, last: taken.at(-1) ?? null, ...read };
      },
      through,
      check,
      batches: TIME_BATCHES,
    };
  };
  /** The candidates' matches in (low, high], oldest first, up to `limit`, batch by batch. */
  const pageAmong = async (candidates: Candidates, low: number, high: number, limit: number): Promise<AssertionMessageRow[]> => {
    const rows: AssertionMessageRow[] = [];
    const enough = (): boolean => rows.length >= limit;
    const take = async (from: number, to: number, max: number): Promise<Batch> => {
      const read = await candidates.batch(from, to, max, limit - rows.length);
      rows.push(...read.rows);
      return read;
    };
    await inBatches(candidates.batches, { low, high }, unbounded(), take, enough);
    return rows;
  };
  /** The candidates' matches in (low, high] counted into `add`, as pageAmong reads them, within the budget; the edge reached. */
  const countAmongCandidates = async (candidates: Candidates, low: number, high: number, budget: Budget, add: (n: number) => void): Promise<number> => {
    const take = async (from: number, to: number, max: number): Promise<Batch> => {
      const read = await candidates.batch(from, to, max, null);
      add(read.count);
      return read;
    };
    return inBatches(candidates.batches, { low, high }, budget, take);
  };
  /**
   * The MATCH for a value, kept: choosing it probes up to 16 trigrams in every part of the index
   * (on the read worker, for the same reason as the candidates), and a wait counts again at every
   * commit. Any MATCH chosen finds a superset of the value's messages, so one chosen earlier stays
   * right as the log changes; only how much it reads may drift.
   */
  const matches = new Map<string, string>();
  const matchOf = async (value: string): Promise<string | null> => {
    const kept = matches.get(value);
    if (kept !== undefined) return engine.stores.deliveryViews.textIndexReady() ? kept : null;
    const match = await engine.reads.run('assertions.match', { value }, async () => engine.stores.deliveryViews.exactValueMatch(value));
    if (match === null) return null;
    if (matches.size >= KEPT_MATCHES) matches.clear();
    matches.set(value, match);
    return match;
  };
  /**
   * Where a filter's messages can be found without reading the log: an anonymousId's candidates
   * in the search index, the few messages within its times (receivedFor), or the messages with a
   * delivery in a rare status (once their list is ready). A user's messages have an index of
   * their own, read row by row, so a userId goes that way. Null: read the log (by the tallies, in
   * windows).
   */
  const candidatesFor = async (filter: MessageQueryFilter, low: number, high: number, byTimes = true): Promise<Candidates | null> => {
    const indexed = await indexedFor(filter);
    if (indexed !== null) {
      return {
        ids: (after, through, max) => indexedIds(indexed, after, through, max),
        batch: (after, through, max, limit) =>
          engine.reads.run('assertions.candidateBatch', { indexed, after, through, max, check: filter, limit }, async () => store.candidateBatch(indexed, after, through, max, filter, limit)),
        through: indexed.through,
        check: filter,
        batches: SEARCH_INDEX_BATCHES,
      };
    }
    const received = byTimes ? await receivedFor(filter, low, high) : null;
    if (received !== null) return received;
    const status = filter.deliveryStatus;
    if (status === null || filter.userId !== null || !isRareStatus(status) || !engine.stores.rareStatuses.ready()) return null;
    // The triggers list a delivery in the transaction that moves it: nothing committed is left
    // out, and every listed message has a delivery in the status (a delivery's message is a
    // foreign key: it exists).
    const check = { ...filter, deliveryStatus: null };
    const ids = (after: number, through: number, max: number): number[] => store.rareStatusMessageIds(status, after, through, max);
    return {
      ids,
      // The list's batches are short: read and checked here.
      batch: async (after, through, max, limit) => store.batchAmong(check, ids(after, through, max), limit),
      countIds: (after, through, max) => store.rareStatusMessageCount(status, after, through, max),
      through: Number.POSITIVE_INFINITY,
      check,
      batches: ROW_BATCHES,
    };
  };

  /**
   * The messages received within the filter's times, when there are at most TIME_CANDIDATES_AT_MOST
   * of them and the ids asked about are more: a test's "since it started" on a big log. Found in
   * the messages' times (index only), so the log's rows are read only for them; the tallies
   * would read every row of the blocks the times' edges fall in (16,384 each). The ids past the
   * newest message now are read row by row.
   */
  const receivedFor = async (filter: MessageQueryFilter, low: number, high: number): Promise<Candidates | null> => {
    if ((filter.since === null && filter.until === null) || high - low <= TIME_CANDIDATES_AT_MOST || !engine.stores.messageTimes.ready()) return null;
    // The times hold what the follow-up has tallied; the last turn's commits are read row by row.
    const through = Math.min(store.lastMessageId(), tallies.range().through);
    const ids = await receivedIds(filter.since, filter.until, low, through, TIME_CANDIDATES_AT_MOST);
    return ids === null ? null : receivedAmong(ids, through, filter);
  };

  /** The filter's times, when it has some and asks only what the messages' times hold (and they are ready). */
  const countableTimes = (filter: MessageQueryFilter): boolean =>
    (filter.since !== null || filter.until !== null) && timesFilterSql(filter) !== null && engine.stores.messageTimes.ready();

  /**
   * A count within times that at most TIMES_COUNTED_AT_MOST messages fall in, from the messages'
   * times alone (no row read), for a filter on what they hold; the newest commits past them (not
   * taken in yet) row by row. Null when it does not apply; undefined when the budget ran out.
   */
  const countByTimes = async (filter: MessageQueryFilter, low: number, high: number, budgetMs: number): Promise<number | null | undefined> => {
    // A short range (a wait's new ids) is cheaper read row by row than a walk of the times.
    if (high - low <= TIME_CANDIDATES_AT_MOST || !countableTimes(filter)) return null;
    const covered = Math.max(low, Math.min(high, tallies.range().through));
    const counted = await countReceived(filter, filter.since, filter.until, low, covered, TIMES_COUNTED_AT_MOST);
    if (counted === null) return null;
    let total = counted;
    const reached = await inIdWindows({ low: covered, high, newestFirst: false }, { ms: budgetMs }, (from, to) => {
      total += store.countMessagesInIds(filter, from, to);
    });
    return reached < high ? undefined : total;
  };

  /** edgeByTimes for a count of what the messages' times hold: counted from them alone. */
  const edgeCountByTimes = async (filter: MessageQueryFilter, segment: Segment): Promise<number | null> => {
    const window = edgeWindow(filter, segment);
    if (window === null || !countableTimes(filter)) return null;
    return window.since < window.until ? countReceived(filter, window.since, window.until, segment.after, segment.through, EDGE_TIMES_AT_MOST) : 0;
  };

  /** The times a segment's matches can have: the filter's, within its blocks' own; null when it has no bounds or the filter no times. */
  const edgeWindow = (filter: MessageQueryFilter, segment: Segment): { since: number; until: number } | null => {
    const times = segment.times ?? null;
    if ((filter.since === null && filter.until === null) || times === null) return null;
    return { since: Math.max(filter.since ?? Number.MIN_SAFE_INTEGER, times.firstAt), until: Math.min(filter.until ?? Number.MAX_SAFE_INTEGER, times.lastAt + 1) };
  };

  /**
   * A segment the tallies leave to be read row by row, where the filter's times cut a block (its
   * edges): the messages of it received within both the filter's times and its blocks' own, from
   * the messages' times, when they hold at most EDGE_TIMES_AT_MOST entries. A minute in the middle
   * of a busy log otherwise reads its two edge blocks whole, 16,384 rows each, most of them
   * outside the minute. A segment with times is tallied whole, so its messages are in the times.
   */
  const edgeByTimes = async (filter: MessageQueryFilter, segment: Segment): Promise<Candidates | null> => {
    const window = edgeWindow(filter, segment);
    if (window === null || !engine.stores.messageTimes.ready()) return null;
    const ids = window.since < window.until ? await receivedIds(window.since, window.until, segment.after, segment.through, EDGE_TIMES_AT_MOST) : [];
    return ids === null ? null : receivedAmong(ids, segment.through, filter);
  };

  /**
   * countWithinIds through the candidates, for the ids they cover; the newer ones (committed,
   * not taken into the search index or the times yet) row by row.
   */
  const countThroughCandidates = async (filter: MessageQueryFilter, candidates: Candidates, after: number, through: number, budgetMs: number): Promise<number | undefined> => {
    const { indexed: byIndex, rows } = byIndexThenRows(Math.max(after, filter.afterMessageId ?? 0), through, candidates.through);
    const budget = { ms: budgetMs };
    let total = 0;
    if (byIndex !== null) {
      const [low, high] = byIndex;
      const { countIds } = candidates;
      // A filter that asks nothing of the rows: every candidate is a match, counted unread.
      const reached =
        countIds !== undefined && asksNothing(candidates.check)
          ? await inBatches(candidates.batches, { low, high }, budget, (from, to, max) => {
              const counted = countIds(from, to, max);
              total += counted.taken;
              return counted;
            })
          : await countAmongCandidates(candidates, low, high, budget, (n) => (total += n));
      if (reached < high) return undefined;
    }
    if (rows !== null) {
      const [low, high] = rows;
      const reached = await inIdWindows({ low, high, newestFirst: false }, budget, (from, to) => {
        total += store.countMessagesInIds(filter, from, to);
      });
      if (reached < high) return undefined;
    }
    return total;
  };

  /** messagePage through the candidates, then the ids past them row by row. */
  const pageThroughCandidates = async (filter: MessageQueryFilter, candidates: Candidates, after: number, limit: number): Promise<{ messages: AssertedMessage[]; next: number | null }> => {
    const { indexed: byIndex, rows: tail } = byIndexThenRows(Math.max(after, filter.afterMessageId ?? 0), store.lastMessageId(), candidates.through);
    const rows: AssertionMessageRow[] = [];
    if (byIndex !== null) rows.push(...(await pageAmong(candidates, byIndex[0], byIndex[1], limit)));
    if (tail !== null && rows.length < limit) rows.push(...(await messagesIn(filter, tail[0], limit - rows.length, tail[1])));
    return { messages: rows.map(toAssertedMessage), next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null };
  };
  const waits = new Set<() => void>();

  const markerOf = (name: string | undefined): MarkerRow | null => {
    if (name === undefined) return null;
    const marker = store.marker(name);
    if (!marker) {
      throw new ValidationError([{ field: 'marker', message: `there is no marker named "${name}"; make one first with POST /api/reset {"mark": "${name}"} (hookbench reset --mark ${name})` }]);
    }
    return marker;
  };

  const resolve = (input: FilterInput): { filter: MessageQueryFilter; criteria: Criteria; marker: MarkerRow | null } => {
    if (input.delivered === true && input.deliveryStatus !== undefined && input.deliveryStatus !== 'succeeded') {
      throw new ValidationError([{ field: 'delivered', message: `asks for a succeeded delivery, but deliveryStatus asks for ${input.deliveryStatus}; give one of them` }]);
    }
    const marker = markerOf(input.marker);
    const deliveryStatus = input.deliveryStatus ?? (input.delivered === true ? 'succeeded' : undefined);
    const criteria: Criteria = {
      type: input.type,
      event: input.event,
      userId: input.userId,
      anonymousId: input.anonymousId,
      source: input.source,
      deliveryStatus,
      violations: input.violations,
    };
    const filter: MessageQueryFilter = {
      type: input.type ?? null,
      event: input.event ?? null,
      userId: input.userId ?? null,
      anonymousId: input.anonymousId ?? null,
      source: input.source ?? null,
      since: input.since ?? null,
      until: input.until ?? null,
      afterMessageId: marker?.message_id ?? null,
      deliveryStatus: deliveryStatus ?? null,
      violations: input.violations ?? null,
    };
    return { filter, criteria, marker };
  };

  /**
   * The segments of the message ids in (low, high] a filter reads, and what each whole tallied
   * block it may count holds. A user's messages are found through their index, and a short range
   * row by row, without the tallies.
   */
  const segmentsOf = async (filter: MessageQueryFilter, low: number, high: number): Promise<{ segments: Segment[]; matches: Map<number, number> }> => {
    const matches = new Map<number, number>();
    if (high - low < TALLIED_RANGE_MIN || filter.userId !== null) return { segments: wholeRange(low, high), matches };
    const matching = (b: TallyBlock): number =>
      filter.violations === 'any' ? b.violating : filter.violations === 'none' ? b.messages - b.violating : b.messages;
    // The blocks and the range they cover from one snapshot: the follow-up tallies between two reads.
    const tallied = await engine.reads.run('tallies.blocks', filter, async () => ({ range: tallies.range(), blocks: tallies.blocks(filter) }));
    const blocks = tallied.blocks.map((b) => ({ block: b.block, matches: matching(b), firstAt: b.firstAt, lastAt: b.lastAt }));
    for (const b of blocks) matches.set(b.block, b.matches);
    const countable = filter.anonymousId === null && filter.deliveryStatus === null;
    const segments = planSegments({ low, high, tallied: tallied.range, blocks, since: filter.since, until: filter.until, countable });
    return { segments, matches };
  };

  /**
   * The filter's matches among the message ids in (after, through]: whole tallied blocks from the
   * tallies, the rest counted in windows, for at most `budgetMs` of counting; undefined when the
   * budget ran out first.
   */
  const countWithinIds = async (filter: MessageQueryFilter, after: number, through: number, budgetMs: number): Promise<number | undefined> => {
    const byTimes = await countByTimes(filter, Math.max(after, filter.afterMessageId ?? 0), through, budgetMs);
    if (byTimes !== null) return byTimes;
    // Where countByTimes applied and found more than it counts, there are more than receivedFor reads too: no second walk.
    const candidates = await candidatesFor(filter, Math.max(after, filter.afterMessageId ?? 0), through, !countableTimes(filter));
    if (candidates !== null) return countThroughCandidates(filter, candidates, after, through, budgetMs);
    const { segments, matches } = await segmentsOf(filter, after, through);
    const budget = { ms: budgetMs };
    let total = 0;
    for (const segment of segments) {
      if (segment.blocks.length > 0) {
        for (const block of segment.blocks) total += matches.get(block) ?? 0;
        continue;
      }
      // After the tallies' read, and between edges: each is a few milliseconds of its own.
      await nextTurn();
      const counted = await edgeCountByTimes(filter, segment);
      if (counted !== null) {
        total += counted;
        continue;
      }
      const timed = await edgeByTimes(filter, segment);
      const reached =
        timed !== null
          ? await countAmongCandidates(timed, segment.after, segment.through, budget, (n) => (total += n))
          : await inIdWindows({ low: segment.after, high: segment.through, newestFirst: false }, budget, (from, to) => {
              total += store.countMessagesInIds(filter, from, to);
            });
      if (reached < segment.through) return undefined;
    }
    return total;
  };
  /** The same, exact: no budget. */
  const countIn = async (filter: MessageQueryFilter, after: number, through: number): Promise<number> =>
    (await countWithinIds(filter, after, through, Number.POSITIVE_INFINITY)) ?? 0;

  /**
   * A delivery filter: the message fields apply to the delivery's message, the marker to the
   * delivery's own id only, so a replay made after the marker counts whatever its message's age.
   */
  const deliveryScope = (input: FilterInput): { filter: MessageQueryFilter; marker: MarkerRow | null } => {
    const { filter, marker } = resolve(input);
    return { filter: { ...filter, afterMessageId: null }, marker };
  };

  /**
   * Whether the filter names a message's field and the tallies show that no message has it: then
   * no delivery's message does either (a delivery without a message, a deletion notice, has none
   * of the fields), and a page of deliveries or attempts is empty without reading them.
   */
  const noMessageMatches = async (filter: MessageQueryFilter): Promise<boolean> => {
    const named = Object.values(filter).some((value) => value !== null);
    return named && (await segmentsOf(filter, filter.afterMessageId ?? 0, store.lastMessageId())).segments.length === 0;
  };

  const messagePage = async (filter: MessageQueryFilter, after: number, limit: number): Promise<{ messages: AssertedMessage[]; next: number | null }> => {
    const candidates = await candidatesFor(filter, Math.max(after, filter.afterMessageId ?? 0), store.lastMessageId());
    if (candidates !== null) return pageThroughCandidates(filter, candidates, after, limit);
    const { segments } = await segmentsOf(filter, Math.max(after, filter.afterMessageId ?? 0), store.lastMessageId());
    const { rows, next } = await pageInWindows(
      segments,
      limit,
      { whole: (from, through, n) => messagesIn(filter, from, n, through) },
      { candidatesOf: (segment) => edgeByTimes(filter, segment), pageAmong },
    );
    return { messages: rows.map(toAssertedMessage), next };
  };

  /**
   * The matches of a wait, kept current as the log changes. Messages only arrive with higher ids
   * and a message's own fields never change, so unless the filter asks for a delivery status
   * (which an outcome changes for old messages too) only the ids past the last count are counted
   * again. A log cleared meanwhile hands ids out again from the start: counted anew.
   */
  const matchesOf = (filter: MessageQueryFilter) => {
    // Nothing at or before a marker matches: counting starts after it.
    const low = filter.afterMessageId ?? 0;
    let matched = 0;
    let through = low;
    const step = async (): Promise<number> => {
      const high = store.lastMessageId();
      const anew = filter.deliveryStatus !== null || high < through;
      const found = await countIn(filter, anew ? low : through, high);
      matched = (anew ? 0 : matched) + found;
      through = high;
      return matched;
    };
    // One update at a time, each after the last (a timeout may ask while a count runs): two
    // at once would both count the ids past the same point.
    let last: Promise<number> = Promise.resolve(0);
    return {
      matched: () => matched,
      update: (): Promise<number> => (last = last.then(step, step)),
    };
  };

  /**
   * Violation counts over the message ids after `low`, newest first: whole tallied blocks from the
   * tallies, the rest in windows, for at most `budgetMs` of counting.
   */
  const violationCountsIn = async (low: number, budgetMs: number): Promise<{ counts: ViolationCount[]; reached: number }> => {
    const byCall = new Map<string, ViolationCount>();
    const add = (row: { type: string; event: string | null; messages: number; violations: number }): void => {
      const key = JSON.stringify([row.type, row.event]);
      const c = byCall.get(key) ?? { type: row.type, event: row.event, messages: 0, violations: 0 };
      c.messages += row.messages;
      c.violations += row.violations;
      byCall.set(key, c);
    };
    const high = store.lastMessageId();
    const byBlock = new Map<number, ViolationTally[]>();
    let segments = wholeRange(low, high);
    if (high - low >= TALLIED_RANGE_MIN) {
      for (const t of tallies.violationBlocks()) {
        const rows = byBlock.get(t.block);
        if (rows) rows.push(t);
        else byBlock.set(t.block, [t]);
      }
      const blocks = [...byBlock].map(([block, rows]) => ({ block, matches: rows.reduce((n, r) => n + r.messages, 0), firstAt: 0, lastAt: 0 }));
      segments = planSegments({ low, high, tallied: tallies.range(), blocks, since: null, until: null, countable: true });
    }
    const budget = { ms: budgetMs };
    // Where the counting stopped, when it stopped before reaching `low`: the counts cover (reached, high].
    let stoppedAt: number | null = null;
    for (const segment of [...segments].reverse()) {
      if (segment.blocks.length > 0) {
        for (const block of segment.blocks) for (const row of byBlock.get(block) ?? []) add(row);
        continue;
      }
      const edge = await inIdWindows({ low: segment.after, high: segment.through, newestFirst: true }, budget, (after, through) => {
        for (const row of store.violationCountsInIds(after, through)) add(row);
      });
      if (edge > segment.after) {
        stoppedAt = edge;
        break;
      }
    }
    const reached = stoppedAt ?? low;
    const counts = [...byCall.values()].sort(
      (a, b) => b.messages - a.messages || compareText(a.type, b.type) || compareText(a.event ?? '', b.event ?? ''),
    );
    return { counts, reached };
  };

  return {
    count(input) {
      const { filter } = resolve(input);
      return countIn(filter, filter.afterMessageId ?? 0, store.lastMessageId());
    },

    countWithin(input, budgetMs) {
      const { filter } = resolve(input);
      return countWithinIds(filter, filter.afterMessageId ?? 0, store.lastMessageId(), budgetMs);
    },

    messages(input) {
      return messagePage(resolve(input).filter, input.after ?? 0, input.limit ?? DEFAULT_ASSERT_LIMIT);
    },

    async deliveries(input) {
      const { filter, marker } = deliveryScope(input);
      const extra = { status: input.status ?? null, destination: input.destination ?? null, afterDeliveryId: marker?.delivery_id ?? null };
      const after = Math.max(input.after ?? 0, marker?.delivery_id ?? 0);
      if (await noMessageMatches(filter)) return { deliveries: [], next: null };
      const last = store.lastMessageId();
      const candidates = await candidatesFor(filter, 0, last);
      const ids = candidates === null ? [] : await candidates.ids(0, Math.min(candidates.through, last), DELIVERY_CANDIDATES_AT_MOST + 1);
      if (candidates !== null && ids.length <= DELIVERY_CANDIDATES_AT_MOST) {
        const limit = input.limit ?? DEFAULT_ASSERT_LIMIT;
        const rows = store.deliveriesAmong(candidates.check, extra, { messageIds: ids, newerThan: Math.min(candidates.through, last) }, after, limit);
        return { deliveries: rows.map(toDeliveryRow), next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null };
      }
      // A rare status (failed: 2% of the deliveries at most, on a log like the scale benchmark's) is read from its list.
      const rareStatus = extra.status !== null && isRareStatus(extra.status) && engine.stores.rareStatuses.ready();
      const here = (from: number, through: number, n: number): AssertionDeliveryRow[] => store.deliveries(filter, extra, from, n, through, rareStatus);
      // On the read worker in one statement; with none answering, here in windows. A rare
      // status's list is read here: its windows are short, and read on the worker the same page
      // took 155-165 ms in a process just started against 33-34 ms here (10M, the CI API's measure).
      const inWindows: SegmentRead<AssertionDeliveryRow> = { inWindows: here };
      const read: SegmentRead<AssertionDeliveryRow> = rareStatus
        ? inWindows
        : {
            whole: (afterId, throughId, limit) =>
              engine.reads.run('assertions.deliveries', { filter, extra, afterId, limit, throughId, rareStatus }, async () => (await pageInWindows(wholeRange(afterId, throughId), limit, inWindows)).rows),
          };
      const { rows, next } = await pageInWindows(wholeRange(after, store.lastDeliveryId()), input.limit ?? DEFAULT_ASSERT_LIMIT, read);
      return { deliveries: rows.map(toDeliveryRow), next };
    },

    async attempts(input) {
      const { filter, marker } = deliveryScope(input);
      const extra = { status: input.status ?? null, destination: input.destination ?? null, afterDeliveryId: marker?.delivery_id ?? null };
      if (await noMessageMatches(filter)) return { attempts: [], next: null };
      const { rows, next } = await pageInWindows(wholeRange(input.after ?? 0, store.lastAttemptId()), input.limit ?? DEFAULT_ASSERT_LIMIT, {
        inWindows: (from, through, n) => store.attempts(filter, extra, from, n, through),
      });
      return { attempts: rows, next };
    },

    async wait(input, signal) {
      const { filter, criteria } = resolve(input);
      const wanted = input.count ?? 1;
      const timeoutMs = Math.round((input.timeout ?? DEFAULT_WAIT_SECONDS) * 1000);
      const started = engine.clock.now();
      const matches = matchesOf(filter);
      // How long it waited for matches: until it was met, timed out or was stopped.
      let waitedMs: number | undefined;
      await matches.update();
      if (matches.matched() < wanted && timeoutMs > 0 && !signal?.aborted) {
        await new Promise<void>((done) => {
          let finished = false;
          // One count at a time: events that come while one runs ask for one more after it.
          let counting: Promise<void> | null = null;
          let again = false;
          const finish = (): void => {
            if (finished) return;
            finished = true;
            unsubscribe();
            timer.cancel();
            waits.delete(finish);
            signal?.removeEventListener('abort', finish);
            done();
          };
          const recount = (): void => {
            if (counting !== null) {
              again = true;
              return;
            }
            counting = (async () => {
              do {
                again = false;
                const t = performance.now();
                if ((await matches.update()) >= wanted) finish();
                // A long count (a delivery-status filter counts its whole range again) is followed
                // by a pause as long before the next: one wait keeps the engine's thread busy half
                // the time at most, however fast outcomes arrive.
                const took = performance.now() - t;
                if (again && !finished && took > LONG_COUNT_MS) await new Promise((resolve) => setTimeout(resolve, took));
              } while (again && !finished);
            })().finally(() => {
              counting = null;
            });
          };
          // New messages arrive as `requests` events, delivery outcomes as `deliveries`: each is
          // a moment the count can have changed, and the only moments it can.
          const unsubscribe = engine.onLive((event) => {
            if (event.type !== 'requests' && event.type !== 'deliveries') return;
            if (event.type === 'deliveries' && filter.deliveryStatus === null) return;
            recount();
          });
          const timer = engine.clock.setTimer(finish, timeoutMs);
          waits.add(finish);
          signal?.addEventListener('abort', finish);
        });
        waitedMs = engine.clock.now() - started;
        // What arrived while the last count ran (a full one, for a delivery status, may take a while on a big log).
        await matches.update();
      }
      waitedMs ??= engine.clock.now() - started;
      const matched = matches.matched();
      const { messages } = await messagePage(filter, 0, input.limit ?? DEFAULT_ASSERT_LIMIT);
      const met = matched >= wanted;
      const closest = met
        ? []
        : closestMisses(
            criteria,
            store.newestMessages(filter.afterMessageId ?? 0, filter.since ?? 0, CLOSEST_CANDIDATES).map(toAssertedMessage),
            CLOSEST_SHOWN,
          );
      return { met, matched, wanted, waitedMs, messages, closest };
    },

    async reset(input) {
      if (input.clear === true) {
        const cleared = await engine.retention.clear();
        return { cleared, markers: store.clearMarkers() };
      }
      const name = input.mark === true || input.mark === undefined ? `run-${engine.clock.now().toString(36)}-${Math.floor(random() * 36 ** 6).toString(36)}` : input.mark;
      return { marker: toMarkerView(store.mark(name, engine.clock.now())) };
    },

    async violationCountsWithin(budgetMs) {
      const { counts, reached } = await violationCountsIn(0, budgetMs);
      return { counts, from: reached === 0 ? null : store.receivedAfter(reached) };
    },

    async violationCounts(marker) {
      return (await violationCountsIn(markerOf(marker)?.message_id ?? 0, Number.POSITIVE_INFINITY)).counts;
    },

    close() {
      for (const finish of [...waits]) finish();
    },
  };
}
