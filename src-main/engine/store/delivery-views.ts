/**
 * The Deliveries view's reads: filtered, keyset-paged summaries newest first, summaries by id,
 * counts, and one delivery's detail row. The statement texts are built by pure functions
 * (filterSql, pageSql) so their shapes and plans can be checked on their own.
 */
import { COUNT_LIMIT, type DeliveryCounts, type DeliveryStatus } from '../../../src-shared/api';
import type { Db } from './database';
import type { DeliveryIdRange } from './attempt-url-ranges';
import { BODY_OF } from './body-pack';
import { statement, statements } from './statements';
import { partName } from './search-index';

/** A Deliveries filter as the query takes it: checked already, empty text as null. */
export interface DeliveryQueryFilter {
  statuses: DeliveryStatus[] | null;
  type: string | null;
  /** Lowercased by SQLite on both sides, so ASCII case never matters and other text matches exactly. */
  url: string | null;
  text: string | null;
  /** true: replayed at least once; false: never replayed; null: either. */
  replayed: boolean | null;
  /** The message failed the tracking plan, or did not (a delivery without a message never did). */
  violations: 'any' | 'none' | null;
  /** Created at or after this time (ms); absent or null: no lower bound. */
  fromMs?: number | null;
  /** Created before this time (ms). */
  toMs?: number | null;
}

export interface DeliveryQueryPage extends DeliveryQueryFilter {
  beforeId: number | null;
  afterId: number | null;
  limit: number;
  /** Only these ids (each a primary-key seek), checked by the filter; null: the whole log. */
  ids?: readonly number[] | null;
  /** The oldest matching rows instead of the newest (still returned newest first). */
  oldest?: boolean;
}

/** Pure: whether the filter has a time range. */
export function hasTimeRange(f: DeliveryQueryFilter): boolean {
  return (f.fromMs ?? null) !== null || (f.toMs ?? null) !== null;
}

export interface SummaryRow {
  id: number;
  message_row_id: number | null;
  destination_id: number;
  payload_type: string;
  status: DeliveryStatus;
  created_at: number;
  next_attempt_at: number | null;
  rounds: number;
  last_http_status: number | null;
  last_error: string | null;
  replay_of: number | null;
  user_id: string | null;
  anonymous_id: string | null;
  event: string | null;
  message_uid: string | null;
  /** Time-warp factor the delivery was created with. */
  warp: number;
  /** Tracking-plan violations of the message (0 without). */
  violations?: number;
  /** The summary's computed columns (SUMMARY_COLUMNS); absent from rows selected without them. */
  entries?: number;
  latency_ms?: number | null;
  /** Comma-separated ids of the replays made of this delivery, in no particular order. */
  replay_ids?: string | null;
  destination_name?: string | null;
  source_name?: string | null;
  /** A page or screen call's name (any JSON value SQLite extracted; the reader keeps text only). */
  name?: unknown;
  /** 1 for a test event. */
  test?: number;
}

/** The latest attempt at one URL of a delivery (UrlOutcomeRow.first_id orders the URLs as first tried). */
export interface UrlOutcomeRow {
  delivery_id: number;
  url: string;
  round: number;
  state: 'in_flight' | 'done' | 'interrupted';
  http_status: number | null;
  error_kind: string | null;
  error_text: string | null;
  failure: string | null;
  started_at: number;
}

export interface DetailRow extends SummaryRow {
  body: Buffer | null;
  target_url: string | null;
  edited: number;
  first_attempt_at: number | null;
  finished_at: number | null;
  pending_urls: string | null;
  /** JSON DeliveryDecision, or NULL (see DeliveryRow.decision). */
  decision: string | null;
}

/**
 * A delivery not made from a message (a delete notice) names its user in its own bytes: the
 * summary's ids are read from the body then (string values of a JSON object only), and from the
 * message otherwise. Such a body is never packed (packing needs the message), so it is read as stored.
 */
export const fromBody = (key: string): string =>
  `CASE WHEN d.message_id IS NULL AND json_valid(CAST(d.body AS TEXT)) THEN
     CASE WHEN json_type(CAST(d.body AS TEXT), '$.${key}') = 'text' THEN json_extract(CAST(d.body AS TEXT), '$.${key}') END END`;

// The body is left out of list rows: a page of summaries must not drag every payload along.
export const BASE_SUMMARY_COLUMNS = `d.id, d.message_id AS message_row_id, d.destination_id, d.payload_type, d.status, d.created_at,
  d.next_attempt_at, d.rounds, d.last_http_status, d.last_error, d.replay_of, d.warp,
  COALESCE(m.user_id, ${fromBody('userId')}) AS user_id, COALESCE(m.anonymous_id, ${fromBody('anonymousId')}) AS anonymous_id,
  COALESCE(m.event, ${fromBody('event')}) AS event, COALESCE(m.message_id, ${fromBody('messageId')}) AS message_uid,
  d.test,
  COALESCE(json_array_length(m.violations), 0) AS violations`;

/**
 * Entries, latency, replays and names as correlated subqueries: each is one index seek per row
 * (webhook_entries_destination, attempts_delivery, deliveries_replay_of, the names' primary
 * keys), so a statement that selects them must bound its rows first (a page's LIMIT, a list of
 * ids), never compute them for rows a sort or a filter will throw away. A delete notice has no
 * message; its source is the one named when the notice was made. The name of a page or screen
 * is read from that row's own message only.
 */
export const COMPUTED_SUMMARY_COLUMNS = `
  CASE WHEN d.target_url IS NOT NULL THEN 1
       ELSE (SELECT COUNT(*) FROM webhook_entries w WHERE w.destination_id = d.destination_id) END AS entries,
  (SELECT json_extract(a.timings, '$.totalMs') FROM attempts a
     WHERE a.delivery_id = d.id AND a.state = 'done' ORDER BY a.id DESC LIMIT 1) AS latency_ms,
  (SELECT group_concat(r.id) FROM deliveries r WHERE r.replay_of = d.id) AS replay_ids,
  (SELECT t.name FROM destinations t WHERE t.id = d.destination_id) AS destination_name,
  COALESCE((SELECT s.name FROM sources s WHERE s.id = m.source_id),
           (SELECT n.source_name FROM deletion_notices n WHERE n.delivery_id = d.id)) AS source_name,
  CASE WHEN m.type IN ('page', 'screen') THEN json_extract(m.json, '$.name') END AS name`;

export const SUMMARY_COLUMNS = `${BASE_SUMMARY_COLUMNS},${COMPUTED_SUMMARY_COLUMNS}`;

export function isEmptyFilter(f: DeliveryQueryFilter): boolean {
  return f.statuses === null && f.type === null && f.url === null && f.text === null && f.replayed === null && f.violations === null && !hasTimeRange(f);
}

/**
 * Where a URL filter's needle can be found at all: in a destination's entries, in a replay's
 * target URL, in some attempt's URL. A place where it is nowhere is left out of the statement.
 */
export interface UrlReach {
  entries: boolean;
  targets: boolean;
  attempts: boolean;
}
const EVERYWHERE: UrlReach = { entries: true, targets: true, attempts: true };

/** Pure: true when the filter's URL can match no delivery at all (so no statement needs to run). */
export function urlMatchesNothing(f: DeliveryQueryFilter, reach: UrlReach): boolean {
  return f.url !== null && !reach.entries && !reach.targets && !reach.attempts;
}

/**
 * Pure: whether the trigram index can answer for a needle: it needs three characters or more,
 * and no NUL (FTS5's query parser ends a quoted phrase there, "unterminated string", and its
 * tokenizer stops a field at one, so the index does not hold what follows it).
 */
export function indexableText(needle: string): boolean {
  return [...needle].length >= 3 && !needle.includes('\u0000');
}

/**
 * Pure: the end of the range of strings that start with `prefix` (the text as is, case and all):
 * prefix <= s < prefixEnd(prefix). U+10FFFF is the largest character, so every string that
 * continues the prefix with anything short of it sorts below (in SQLite's BINARY order, which is
 * UTF-8 byte order, as in code points).
 */
export function prefixEnd(prefix: string): string {
  return `${prefix}\u{10FFFF}`;
}

/**
 * Pure: an FTS5 query for the needle as one quoted phrase (any substring of a field, case folded),
 * in the three columns searched: the fourth holds the messageIds of a log from before migration 18.
 */
export function textMatchQuery(needle: string): string {
  return `{user_id anonymous_id event} : "${needle.replaceAll('"', '""')}"`;
}

/**
 * Pure: the WHERE terms (over deliveries d LEFT JOIN messages m) and their params, in order: each
 * delivery checked as reading the log does. The text index only ever narrows the rows these
 * terms are applied to (textPageIdsSql, textCountWalkSql).
 */
export function filterSql(f: DeliveryQueryFilter, reach: UrlReach = EVERYWHERE): { terms: string[]; params: unknown[]; needsMessages: boolean } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (f.statuses !== null) {
    // One placeholder per status keeps the statement cacheable per count, and lets the planner use the status index.
    terms.push(`d.status IN (${f.statuses.map(() => '?').join(', ')})`);
    params.push(...f.statuses);
  }
  if (f.type !== null) {
    terms.push('d.payload_type = ?');
    params.push(f.type);
  }
  if (f.url !== null) {
    // Cheapest first: the destinations whose entries match are found once; the attempt scan only
    // runs for rows the other two did not let through. A replay to one URL goes nowhere else.
    const places: string[] = [];
    if (reach.entries) {
      places.push('(d.target_url IS NULL AND d.destination_id IN (SELECT w.destination_id FROM webhook_entries w WHERE instr(lower(w.url), lower(?)) > 0))');
      params.push(f.url);
    }
    if (reach.targets) {
      places.push('instr(lower(d.target_url), lower(?)) > 0');
      params.push(f.url);
    }
    if (reach.attempts) {
      places.push('EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND instr(lower(a.url), lower(?)) > 0)');
      params.push(f.url);
    }
    terms.push(places.length > 0 ? `(${places.join(' OR ')})` : '0');
  }
  if (f.text !== null) {
    // A delivery without a message (a delete notice) is found by the userId in its body.
    terms.push(`(
      ${MESSAGE_CONTAINS} OR (m.message_id >= ? AND m.message_id < ?)
      OR (d.message_id IS NULL AND instr(lower(${fromBody('userId')}), lower(?)) > 0)
    )`);
    params.push(f.text, f.text, f.text, f.text, prefixEnd(f.text), f.text);
  }
  if (f.replayed === true) {
    // The originals replays point at, a set read from deliveries_replay_of (replays are few), which
    // SQLite walks in the page's order, a primary-key seek each: never a read through the log.
    terms.push('d.id IN (SELECT r.replay_of FROM deliveries r WHERE r.replay_of IS NOT NULL)');
  }
  if (f.replayed === false) {
    // One seek on deliveries_replay_of per row.
    terms.push('NOT EXISTS (SELECT 1 FROM deliveries r WHERE r.replay_of = d.id)');
  }
  // The caller also bounds the ids by the range (idAtOrAfter), so these only check the rows inside it.
  if ((f.fromMs ?? null) !== null) {
    terms.push('d.created_at >= ?');
    params.push(f.fromMs);
  }
  if ((f.toMs ?? null) !== null) {
    terms.push('d.created_at < ?');
    params.push(f.toMs);
  }
  if (f.violations === 'any') terms.push('m.violations IS NOT NULL');
  if (f.violations === 'none') terms.push('m.violations IS NULL');
  return { terms, params, needsMessages: f.text !== null || f.violations !== null };
}

/**
 * The needle (three parameters) in the message's userId, anonymousId or event, any case; false,
 * not NULL, where a column is NULL, so that its NOT holds too.
 */
const MESSAGE_CONTAINS = `(COALESCE(instr(lower(m.user_id), lower(?)), 0) > 0 OR COALESCE(instr(lower(m.anonymous_id), lower(?)), 0) > 0
      OR COALESCE(instr(lower(m.event), lower(?)), 0) > 0)`;

/** The sources that have messages, found by skipping through the first column of messages_dedupe. */
const SOURCES_CTE = `src(id) AS (
          SELECT (SELECT MIN(source_id) FROM messages)
          UNION ALL SELECT (SELECT MIN(source_id) FROM messages WHERE source_id > src.id) FROM src WHERE src.id IS NOT NULL
        )`;

/**
 * Pure: one statement for a page. The page's ids first (MATERIALIZED keeps the LIMIT inside), then
 * the summary with its computed columns for those rows only: one index seek per row per column.
 * CROSS JOIN fixes the join order: with the limit a parameter, the planner does not know the page
 * is small and otherwise scans every delivery against a bloom filter of the page's ids.
 */
export function pageSql(p: DeliveryQueryPage, reach: UrlReach = EVERYWHERE, text: TextPagePlan | null = null): { sql: string; params: unknown[] } {
  const { sql: ids, params } = text !== null && p.text !== null ? textPageIdsSql(p, reach, text) : pageIdsSql(p, reach);
  const sql = `WITH page AS MATERIALIZED (${ids})
    SELECT ${SUMMARY_COLUMNS} FROM page CROSS JOIN deliveries d ON d.id = page.id LEFT JOIN messages m ON m.id = d.message_id
    ORDER BY d.id DESC`;
  return { sql, params };
}

/** The filter's terms with the page's keyset bounds. */
function boundedTerms(p: DeliveryQueryPage, reach: UrlReach): { terms: string[]; params: unknown[]; needsMessages: boolean } {
  const { terms, params, needsMessages } = filterSql(p, reach);
  if (p.beforeId !== null) {
    terms.push('d.id < ?');
    params.push(p.beforeId);
  }
  if (p.afterId !== null) {
    terms.push('d.id > ?');
    params.push(p.afterId);
  }
  if ((p.ids ?? null) !== null) {
    terms.push('d.id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(p.ids));
  }
  return { terms, params, needsMessages };
}

/** Pure: the page's ids read from deliveries newest (or oldest) first, every row checked by the filter. */
function pageIdsSql(p: DeliveryQueryPage, reach: UrlReach): { sql: string; params: unknown[] } {
  const { terms, params, needsMessages } = boundedTerms(p, reach);
  const sql = `SELECT d.id FROM deliveries d ${needsMessages ? 'LEFT JOIN messages m ON m.id = d.message_id' : ''}
      ${terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : ''}
      ORDER BY d.id ${p.oldest ? 'ASC' : 'DESC'} LIMIT ?`;
  return { sql, params: [...params, p.limit] };
}

/**
 * Pure: a text page's ids, at a cost that follows the page's size rather than the needle's number
 * of matches. A delivery made at its message's commit (replay_of NULL, a message) has its id in
 * the same order as its message's id: the commit inserts each message and then its deliveries,
 * and both tables only ever take ids above their largest. So walking the trigram index by rowid,
 * newest (or oldest) message first, through deliveries_message, yields those deliveries in page
 * order, and the walk stops at the page's size. The keyset bounds become rowid bounds on the walk:
 * the message of the nearest commit delivery inside the bound (a seek, stepping over the few
 * deliveries made later). The other deliveries that can match are few and read through their own
 * indexes: the replays (deliveries_replay_of; a replay is newer than its message), the deliveries
 * without a message (delete notices, test events), and those of the messages whose messageId
 * starts with the needle (messages_dedupe; the caller sends a needle that starts many messageIds
 * to the log instead). Both parts apply the filter's exact checks; UNION drops a delivery found by
 * both, and the newest (oldest) of the two make the page.
 *
 * The walk is a subquery with its own ORDER BY rowid, which FTS5 answers by reading its doclists
 * in that direction; `LIMIT -1` keeps SQLite from flattening it into the join, where FTS5 would be
 * asked for the two-term order it cannot give and every match would be sorted. Kept apart, only a
 * message's own deliveries are sorted (by id), and the walk stops once the page is full.
 */
function textPageIdsSql(p: DeliveryQueryPage, reach: UrlReach, plan: TextPagePlan): { sql: string; params: unknown[] } {
  const { terms, params } = boundedTerms(p, reach);
  if (plan.kind === 'set') {
    // The messages the index found, few: their deliveries join the set of those made later.
    const sql = `SELECT d.id FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
        WHERE d.id IN (
          SELECT x.id FROM deliveries x WHERE x.message_id IN (SELECT value FROM json_each(?))
          UNION ALL SELECT x.id FROM deliveries x WHERE x.replay_of IS NOT NULL
          UNION ALL SELECT x.id FROM deliveries x WHERE x.message_id IS NULL
          UNION ALL SELECT x.id FROM deliveries x WHERE x.message_id IN (
            WITH RECURSIVE ${SOURCES_CTE}
            SELECT k.id FROM src CROSS JOIN messages k ON k.source_id = src.id AND k.dedupe_key >= ? AND k.dedupe_key < ?)
        ) AND ${terms.join(' AND ')}
        ORDER BY d.id ${p.oldest ? 'ASC' : 'DESC'} LIMIT ?`;
    const text = p.text ?? '';
    return { sql, params: [JSON.stringify(plan.messageIds), text, prefixEnd(text), ...params, p.limit] };
  }
  const where = terms.join(' AND ');
  const dir = p.oldest ? 'ASC' : 'DESC';
  const walkBounds: string[] = [];
  const walkParams: unknown[] = [];
  if (p.beforeId !== null) {
    walkBounds.push(`AND rowid <= (${COMMIT_DELIVERY_NEAR('<', 'DESC')})`);
    walkParams.push(p.beforeId);
  }
  if (p.afterId !== null) {
    walkBounds.push(`AND rowid >= (${COMMIT_DELIVERY_NEAR('>', 'ASC')})`);
    walkParams.push(p.afterId);
  }
  const sql = `SELECT id FROM (
        SELECT id FROM (
          SELECT d.id FROM (
              ${partsMatchSql(plan.parts, walkBounds.join(' '), dir)} LIMIT -1
            ) t CROSS JOIN deliveries d ON d.message_id = t.message_id LEFT JOIN messages m ON m.id = d.message_id
          WHERE d.replay_of IS NULL AND ${where}
          ORDER BY t.message_id ${dir}, d.id ${dir} LIMIT ?)
        UNION
        SELECT d.id FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
        WHERE d.id IN (
          SELECT x.id FROM deliveries x WHERE x.replay_of IS NOT NULL
          UNION ALL SELECT x.id FROM deliveries x WHERE x.message_id IS NULL
          UNION ALL SELECT x.id FROM deliveries x WHERE x.message_id IN (
            WITH RECURSIVE ${SOURCES_CTE}
            SELECT k.id FROM src CROSS JOIN messages k ON k.source_id = src.id AND k.dedupe_key >= ? AND k.dedupe_key < ?)
        ) AND ${where}
      ) ORDER BY id ${dir} LIMIT ?`;
  const text = p.text ?? '';
  return {
    sql,
    params: [...partParams(plan.parts, [plan.match ?? textMatchQuery(text), ...walkParams]), ...params, p.limit, text, prefixEnd(text), ...params, p.limit],
  };
}

/**
 * How a text page uses the index: `walk` reads it newest (oldest) first and stops at the page;
 * `set` takes every message it finds, read in the index's own order. FTS5 reads a doclist
 * forwards about three times faster than backwards, which matters when it has to read one to the
 * end: a needle whose trigrams are common but that matches few messages. The case measured is a
 * messageId, whose trigrams a log indexed before migration 18 still holds (1M: 0.7 to 2.7 ms
 * forwards, 5 to 8 ms backwards). A user id is the opposite case: walking back to the page's end
 * took 8 ms where reading all of a user's matches forwards took 53. So a needle that starts a
 * messageId is probed forwards up to PAGE_SET_LIMIT matches (a set when it finds them all), and
 * any other is walked.
 */
export type TextPagePlan =
  /**
   * `match`: the MATCH walked, a superset of the needle's (sparseTextQuery); the needle itself when
   * absent. `parts`: the search index's tables, oldest first (store/search-index.ts).
   */
  { kind: 'walk'; match?: string; parts: TextParts } | { kind: 'set'; messageIds: number[] };

/** The search index's parts (FTS5 tables, store/search-index.ts), oldest first. */
export type TextParts = readonly string[];

/**
 * Pure: the message ids (`message_id`) that the MATCH finds in every part of the index, with
 * `extra` (terms on rowid) applied in each, in id order `dir`; partParams gives the parameters
 * each part takes (the MATCH, then those of `extra`). One part is its own subquery. More are a
 * compound whose ORDER BY SQLite answers by merging the parts' walks, each read in that order, so
 * a walk stopped early reads each part only as far as it must.
 */
export function partsMatchSql(parts: TextParts, extra: string, dir: 'ASC' | 'DESC'): string {
  const one = (name: string): string => `SELECT rowid AS message_id FROM ${name} WHERE ${name} MATCH ?${extra === '' ? '' : ` ${extra}`}`;
  if (parts.length === 1) return `${one(parts[0] as string)} ORDER BY rowid ${dir}`;
  return `${parts.map(one).join(' UNION ALL ')} ORDER BY 1 ${dir}`;
}

/** The parameters of partsMatchSql: each part's, one part after another. */
export const partParams = (parts: TextParts, params: readonly unknown[]): unknown[] => parts.flatMap(() => params);

/** Most messages a text page takes as a set rather than walk the index (for a needle that starts a messageId). */
export const PAGE_SET_LIMIT = 2_000;

/** Pure: up to `max` + 1 messages the index finds for a needle, in its own (ascending) order. */
export function textProbeSql(parts: TextParts, needle: string, max: number): { sql: string; params: unknown[] } {
  if (parts.length === 1) return { sql: `SELECT rowid AS id FROM ${parts[0]} WHERE ${parts[0]} MATCH ? LIMIT ?`, params: [textMatchQuery(needle), max + 1] };
  return { sql: `SELECT message_id AS id FROM (${partsMatchSql(parts, '', 'ASC')}) LIMIT ?`, params: [...partParams(parts, [textMatchQuery(needle)]), max + 1] };
}

/** The message of the nearest delivery made at its message's commit with an id on one side of a bound (one parameter). */
const COMMIT_DELIVERY_NEAR = (side: '<' | '>', order: 'ASC' | 'DESC'): string =>
  `SELECT b.message_id FROM deliveries b WHERE b.id ${side} ? AND b.replay_of IS NULL AND b.message_id IS NOT NULL ORDER BY b.id ${order} LIMIT 1`;

/** Pure: how many messages (up to `max` + 1) have a messageId starting with the needle: index entries of messages_dedupe only. */
export function prefixCountSql(needle: string, max: number): { sql: string; params: unknown[] } {
  return {
    sql: `WITH RECURSIVE ${SOURCES_CTE} SELECT COUNT(*) AS n FROM (
        SELECT 1 FROM src CROSS JOIN messages k ON k.source_id = src.id AND k.dedupe_key >= ? AND k.dedupe_key < ? LIMIT ?)`,
    params: [needle, prefixEnd(needle), max + 1],
  };
}

/**
 * Most messages whose messageId starts with the needle that a text page takes as a set (beside
 * the index's walk); a needle that starts more (a common prefix such as "ajs-") reads the log.
 */
export const PREFIX_SET_LIMIT = 2_000;

/** Pure: how many deliveries have one of the statuses, from the counts by status. */
export function inStatuses(counts: ReadonlyMap<DeliveryStatus, number>, statuses: readonly DeliveryStatus[]): number {
  return statuses.reduce((sum, s) => sum + (counts.get(s) ?? 0), 0);
}

/**
 * Pure: a filtered count that stops one past COUNT_LIMIT (so "more than the limit" is known
 * without reading further), read from the log itself: each delivery (in the window, when given)
 * checked by the filter. A text filter the index answers is counted by countByIndex instead.
 */
export function countSql(f: DeliveryQueryFilter, reach: UrlReach = EVERYWHERE, window: { afterId: number; beforeId: number } | null = null): { sql: string; params: unknown[] } {
  const { terms, params, needsMessages } = filterSql(f, reach);
  if (window !== null) {
    terms.push('d.id > ?', 'd.id < ?');
    params.push(window.afterId, window.beforeId);
  }
  const sql = `SELECT COUNT(*) AS n FROM (SELECT 1 FROM deliveries d ${needsMessages ? 'LEFT JOIN messages m ON m.id = d.message_id' : ''}
    ${terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : ''} LIMIT ?)`;
  return { sql, params: [...params, COUNT_LIMIT + 1] };
}

/** The columns of the search index a text filter looks in (the fourth holds old messageIds only). */
const TEXT_COLUMNS = '{user_id anonymous_id event}';

/**
 * Pure: the needle's trigrams, as the index's tokenizer cuts them: every three consecutive
 * characters (code points), with where each starts. Case is left as is: the probe's MATCH folds it.
 */
export function trigramsOf(needle: string): { at: number; trigram: string }[] {
  const chars = [...needle];
  return Array.from({ length: Math.max(0, chars.length - 2) }, (_, at) => ({ at, trigram: chars.slice(at, at + 3).join('') }));
}

/** How many of a needle's distinct trigrams are probed at most: a long needle is judged on a spread of them. */
export const MAX_PROBES = 16;
/** Entries a probe reads from a trigram's newest end to judge how common it is. */
export const PROBE_ROWS = 64;
/** A trigram goes into a count's MATCH with the rarest when it has at most this many times its entries. */
export const RARE_FACTOR = 10;
/**
 * What a count's MATCH may cost FTS5 in index entries read before it gives back a row: about 40 ns
 * an entry on the 10M log, so 400,000 is about 16 ms. A trigram's doclist is read in full up to
 * where the rarest one's ends, but a long one only where the rarest points (FTS5 skips through it
 * by its doclist index: each skip, a page, costs about as much as SKIP_ENTRIES entries read).
 */
export const MAX_SILENT_ENTRIES = 400_000;
export const SKIP_ENTRIES = 5;

/** Pure: an FTS5 query for one trigram (or any part of the needle) as a quoted phrase in the searched columns. */
export function phraseQuery(part: string): string {
  return `${TEXT_COLUMNS} : "${part.replaceAll('"', '""')}"`;
}

/**
 * Pure: which trigrams a probe is run for: every distinct one, or MAX_PROBES spread along a longer
 * needle (the others are left out of the MATCH, which stays a superset of the needle's matches).
 */
export function probedTrigrams(needle: string): string[] {
  const distinct = [...new Set(trigramsOf(needle).map((t) => t.trigram))];
  if (distinct.length <= MAX_PROBES) return distinct;
  return Array.from({ length: MAX_PROBES }, (_, k) => distinct[Math.floor((k * distinct.length) / MAX_PROBES)] as string);
}

/**
 * Pure: the MATCH a count walks for a needle, given about how many index entries each probed
 * trigram has (0 for none). FTS5 answers a phrase by reading the doclist of every trigram in it
 * and gives back nothing until all of them meet: a needle with a trigram on every message ("use"
 * in "user_122") costs a read through ten million entries at 10M however rare the needle is, and
 * no row comes back meanwhile for the walk to stop at. So the count asks for the needle's rarest
 * trigram, and with it the next rarest, while each has at most RARE_FACTOR times its entries and
 * together they cost at most MAX_SILENT_ENTRIES: the runs of consecutive chosen trigrams, each a
 * quoted substring of the needle, ANDed. A message that holds the needle holds every one of its
 * substrings, so this finds a superset, and each delivery is then checked exactly as reading the
 * log does. A needle whose rarest trigram is common is asked for by that trigram alone: every
 * message that has it comes back as a row, so the walk can stop on time.
 */
export function sparseTextQuery(needle: string, entries: ReadonlyMap<string, number>): string {
  const ranked = [...entries].sort((x, y) => x[1] - y[1]);
  const first = ranked[0];
  if (first === undefined) return textMatchQuery(needle);
  const rarest = first[1];
  const chosen = new Set<string>([first[0]]);
  let cost = rarest;
  for (const [trigram, n] of ranked.slice(1)) {
    const more = Math.min(n, SKIP_ENTRIES * rarest);
    if (n > RARE_FACTOR * rarest || cost + more > MAX_SILENT_ENTRIES) break;
    chosen.add(trigram);
    cost += more;
  }
  const chars = [...needle];
  const parts: string[] = [];
  let run: number | null = null;
  const grams = trigramsOf(needle);
  grams.forEach(({ at, trigram }, k) => {
    if (chosen.has(trigram)) run ??= at;
    const next = grams[k + 1];
    if (run !== null && (next === undefined || !chosen.has(next.trigram))) {
      parts.push(chars.slice(run, at + 3).join(''));
      run = null;
    }
  });
  const unique = [...new Set(parts)];
  if (unique.length === 1) return phraseQuery(unique[0] as string);
  return `${TEXT_COLUMNS} : (${unique.map((p) => `"${p.replaceAll('"', '""')}"`).join(' AND ')})`;
}

/**
 * Messages a text count's walk reads before it asks the clock: about 0.3 ms warm on the 10M log,
 * by our estimate some 20 ms with every page on disk. A call that spent its time elsewhere (compiling its statements,
 * a busy machine) still counts a small log whole, rather than say "3+" of three.
 */
export const MIN_WALK_MESSAGES = 100;

/** A text count read through the index: how many it found, and where it stopped when it ran out of time. */
export interface IndexedCount {
  /** Up to COUNT_LIMIT + 1. */
  n: number;
  /** Set when the walk stopped early: the count is of the matching deliveries with an id at or above this one, exactly. */
  fromId: number | null;
}

/**
 * Pure: a text count's walk through the index, newest message first: one number per delivery of
 * each message the MATCH finds (and one for a found message without any), every one of a
 * message's before the next message's: twice the message id, plus 1 when the delivery is one the
 * filter lets through (one plucked number a row costs the walk less than a row of two). A message
 * the exact check turns down still gives its rows, so the caller can stop between any two messages. `low` is the lowest message the walk need read (a bound's); the
 * bounds on the delivery id are checked like the filter's other terms.
 */
export function textCountWalkSql(
  parts: TextParts,
  f: DeliveryQueryFilter,
  reach: UrlReach,
  query: string,
  bounds: { afterId: number; beforeId: number } | null,
  low: number | null,
): { sql: string; params: unknown[] } {
  const { terms, params } = filterSql({ ...f, text: null }, reach);
  if (bounds !== null) {
    terms.push('d.id > ?', 'd.id < ?');
    params.push(bounds.afterId, bounds.beforeId);
  }
  const text = f.text ?? '';
  const sql = `SELECT t.message_id * 2 + CASE WHEN d.id IS NOT NULL AND ${[MESSAGE_CONTAINS, ...terms].join(' AND ')} THEN 1 ELSE 0 END AS row FROM (
        ${partsMatchSql(parts, low === null ? '' : 'AND rowid >= ?', 'DESC')} LIMIT -1
      ) t LEFT JOIN deliveries d ON d.message_id = t.message_id LEFT JOIN messages m ON m.id = t.message_id`;
  return { sql, params: [text, text, text, ...params, ...partParams(parts, [query, ...(low === null ? [] : [low])])] };
}

/**
 * Pure: the matching deliveries a text count's walk does not see, with ids in (afterId, beforeId),
 * up to `limit`: those of the messages whose messageId starts with the needle and whose three
 * fields do not hold it; the deliveries without a message (delete notices, test events); and,
 * when the walk read only the messages from `below` up (a bound, or it ran out of time), the
 * replays of older messages. Each disjoint from the walk and from the others.
 */
export function textCountRestSql(
  f: DeliveryQueryFilter,
  reach: UrlReach,
  ids: { afterId: number; beforeId: number },
  below: number | null,
  limit: number,
): { sql: string; params: unknown[] } {
  const { terms, params } = filterSql({ ...f, text: null }, reach);
  // The unary plus keeps the id range from driving the plan: each part has its own, narrower index.
  terms.push('+d.id > ?', '+d.id < ?');
  params.push(ids.afterId, ids.beforeId);
  const rest = terms.map((t) => ` AND ${t}`).join('');
  const text = f.text ?? '';
  const needle = [text, text, text];
  const end = prefixEnd(text);
  const replays =
    below === null
      ? ''
      : `UNION ALL
        SELECT 1 FROM deliveries d INDEXED BY deliveries_replay_of JOIN messages m ON m.id = d.message_id
        WHERE d.replay_of IS NOT NULL AND d.message_id < ? AND ${MESSAGE_CONTAINS}${rest}`;
  const sql = `WITH RECURSIVE ${SOURCES_CTE} SELECT COUNT(*) AS n FROM (
        SELECT 1 FROM src CROSS JOIN messages k ON k.source_id = src.id AND k.dedupe_key >= ? AND k.dedupe_key < ?
          CROSS JOIN deliveries d ON d.message_id = k.id LEFT JOIN messages m ON m.id = d.message_id
        WHERE m.message_id >= ? AND m.message_id < ? AND NOT ${MESSAGE_CONTAINS}${rest}
      UNION ALL
        SELECT 1 FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
        WHERE d.message_id IS NULL AND instr(lower(${fromBody('userId')}), lower(?)) > 0${rest}
      ${replays}
      LIMIT ?)`;
  return {
    sql,
    params: [
      text, end, text, end, ...needle, ...params,
      text, ...params,
      ...(below === null ? [] : [below, ...needle, ...params]),
      limit,
    ],
  };
}

export class DeliveryViewStore {
  private readonly s;

  /**
   * `beforeTextSearch` brings the search index up to the last commit (SearchIndexStore.settle) on
   * the engine's connection; the read worker's engine settles before it asks.
   */
  constructor(
    private readonly db: Db,
    private readonly beforeTextSearch: () => void = () => {},
  ) {
    this.s = statements(db, {
      // Kept by triggers on deliveries (schema: delivery_status_counts).
      statusCounts: 'SELECT status, n FROM delivery_status_counts WHERE n > 0',
      idRange: 'SELECT (SELECT id FROM deliveries ORDER BY id LIMIT 1) AS low, (SELECT id FROM deliveries ORDER BY id DESC LIMIT 1) AS high',
      byIds: `SELECT ${SUMMARY_COLUMNS} FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
        WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id DESC`,
      detail: `SELECT ${SUMMARY_COLUMNS}, ${BODY_OF('d')} AS body, d.target_url, d.edited, d.first_attempt_at, d.finished_at, d.pending_urls, d.decision
        FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id WHERE d.id = ?`,
      bodyOf: `SELECT ${BODY_OF('d')} AS body FROM deliveries d WHERE d.id = ?`,
      firstFrom: 'SELECT id, created_at FROM deliveries WHERE id >= ? ORDER BY id LIMIT 1',
      // What the message tallies (store/message-tallies.ts) say of violations: whether any tallied
      // message has one, whether messages below the tallied range wait to be tallied, and the
      // first delivery of the messages above it (the follow-up's tail), through deliveries_message.
      tallyRange: 'SELECT below, through FROM message_tally_range',
      anyViolating: 'SELECT EXISTS (SELECT 1 FROM message_tallies WHERE violating > 0) AS yes',
      untalliedBelow: 'SELECT EXISTS (SELECT 1 FROM messages WHERE id < ?) AS yes',
      firstDeliveryAbove: 'SELECT MIN(id) AS id FROM (SELECT id FROM deliveries INDEXED BY deliveries_message WHERE message_id > ?)',
      lastBelow: 'SELECT id, created_at FROM deliveries WHERE id < ? ORDER BY id DESC LIMIT 1',
      // The latest attempt per URL of each listed delivery, through attempts_delivery: one
      // lookup for a whole page, bounded by the attempts of those deliveries.
      urlOutcomes: `SELECT delivery_id, url, round, state, http_status, error_kind, error_text, failure, started_at FROM (
          SELECT a.delivery_id, a.url, a.round, a.state, a.http_status, a.error_kind, a.error_text, a.failure, a.started_at,
            ROW_NUMBER() OVER (PARTITION BY a.delivery_id, a.url ORDER BY a.id DESC) AS latest,
            MIN(a.id) OVER (PARTITION BY a.delivery_id, a.url) AS first_id
          FROM attempts a WHERE a.delivery_id IN (SELECT value FROM json_each(?))
        ) WHERE latest = 1 ORDER BY delivery_id DESC, first_id`,
      // Each reads a few rows: the entries, the replays to one URL (deliveries_target), the
      // distinct attempt URLs (attempt_urls, kept by a trigger).
      urlInEntries: 'SELECT EXISTS (SELECT 1 FROM webhook_entries WHERE instr(lower(url), lower(?)) > 0) AS found',
      urlInTargets: 'SELECT EXISTS (SELECT 1 FROM deliveries WHERE target_url IS NOT NULL AND instr(lower(target_url), lower(?)) > 0) AS found',
      urlInAttempts: 'SELECT EXISTS (SELECT 1 FROM attempt_urls WHERE instr(lower(url), lower(?)) > 0) AS found',
      // The deliveries the matching attempt URLs were attempted for, NULL bounds while any is unknown.
      urlRange: `SELECT iif(SUM(first_delivery IS NULL) > 0, NULL, MIN(first_delivery)) AS low, iif(SUM(last_delivery IS NULL) > 0, NULL, MAX(last_delivery)) AS high
        FROM attempt_urls WHERE instr(lower(url), lower(?)) > 0`,
      urlRangesBelow: 'SELECT below FROM attempt_url_backfill',
      // A text count's probes: the span of message ids (the newest entries of one trigram: trigramEntries).
      textParts: 'SELECT part FROM message_text_parts ORDER BY part',
      messageSpan: 'SELECT (SELECT id FROM messages ORDER BY id DESC LIMIT 1) - (SELECT id FROM messages ORDER BY id LIMIT 1) + 1 AS span',
      // The message of the first delivery made at its message's commit above an id (a bound's walk starts there).
      commitMessageAbove: `${COMMIT_DELIVERY_NEAR('>', 'ASC')}`,
      // The first delivery made at the commit of a message at or above this one (deliveries_message, in (message, id) order).
      commitDeliveryFrom: 'SELECT id FROM deliveries WHERE message_id >= ? AND replay_of IS NULL ORDER BY message_id, id LIMIT 1',
      textBackfillBelow: 'SELECT below FROM message_text_backfill',
      textBackfillLowest: 'SELECT MIN(id) AS low FROM (SELECT id FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?)',
      textBackfillSet: 'UPDATE message_text_backfill SET below = ?',
    });
  }

  /** The search index's tables, oldest first (store/search-index.ts, partName). */
  textParts(): TextParts {
    return (this.s.textParts.all() as { part: number }[]).map((r) => partName(r.part));
  }

  /** Whether every message older than the triggers is in the text index yet. */
  textIndexReady(): boolean {
    return (this.s.textBackfillBelow.get() as { below: number }).below === 0;
  }

  /**
   * Indexes up to `max` of the messages not in the text index yet, newest first, in one
   * transaction; true when none is left.
   */
  backfillTextIndex(max: number): boolean {
    return this.db.transaction(() => {
      const below = (this.s.textBackfillBelow.get() as { below: number }).below;
      if (below === 0) return true;
      const low = (this.s.textBackfillLowest.get(below, max) as { low: number | null }).low;
      if (low === null) {
        this.s.textBackfillSet.run(0);
        return true;
      }
      // Into the first part: the messages from before the index have the lowest ids.
      const first = this.textParts()[0] as string;
      statement(this.db, `INSERT INTO ${first} (rowid, user_id, anonymous_id, event) SELECT id, user_id, anonymous_id, event FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?`).run(below, max);
      this.s.textBackfillSet.run(low);
      return false;
    })();
  }

  /** Whether a filter's text is answered from the trigram index (long enough, and the index complete). */
  usesTextIndex(f: DeliveryQueryFilter): boolean {
    if (f.text === null || !indexableText(f.text) || !this.textIndexReady()) return false;
    this.beforeTextSearch();
    return true;
  }

  /**
   * Whether a page's text is answered from the indexes: as for a count, and the needle starts
   * few enough messageIds to read them as a set (an index-only probe of at most PREFIX_SET_LIMIT + 1 entries).
   */
  pageUsesTextIndex(f: DeliveryQueryFilter): boolean {
    if (f.text === null || !this.usesTextIndex(f)) return false;
    return this.prefixMatches(f.text) <= PREFIX_SET_LIMIT;
  }

  /** How many messageIds start with the needle, up to PREFIX_SET_LIMIT + 1 (index entries only). */
  private prefixMatches(needle: string): number {
    const { sql, params } = prefixCountSql(needle, PREFIX_SET_LIMIT);
    return (statement(this.db, sql).get(...params) as { n: number }).n;
  }

  /**
   * A text page's plan (TextPagePlan): a needle that starts a messageId is probed forwards, at most
   * PAGE_SET_LIMIT + 1 rows of the index; any other is walked. `choice` forces one (for the tests).
   */
  textPagePlan(f: DeliveryQueryFilter, choice: 'auto' | TextPagePlan['kind'] = 'auto'): TextPagePlan {
    const needle = f.text ?? '';
    const walk = (): TextPagePlan => ({ kind: 'walk', match: this.countTextQuery(needle), parts: this.textParts() });
    if (choice === 'walk' || (choice === 'auto' && this.prefixMatches(needle) === 0)) return walk();
    const { sql, params } = textProbeSql(this.textParts(), needle, choice === 'set' ? Number.MAX_SAFE_INTEGER - 1 : PAGE_SET_LIMIT);
    const ids = (statement(this.db, sql).all(...params) as { id: number }[]).map((r) => r.id);
    return ids.length > PAGE_SET_LIMIT && choice === 'auto' ? walk() : { kind: 'set', messageIds: ids };
  }

  /** Where the filter's URL can be found at all (everywhere when there is no URL filter). */
  urlReach(f: DeliveryQueryFilter): UrlReach {
    if (f.url === null) return EVERYWHERE;
    const found = (s: { get(...p: unknown[]): unknown }): boolean => (s.get(f.url) as { found: number }).found === 1;
    return { entries: found(this.s.urlInEntries), targets: found(this.s.urlInTargets), attempts: found(this.s.urlInAttempts) };
  }

  /**
   * The ids of the only deliveries a URL filter can match, when only attempts carry its needle
   * (neither a destination's entry nor a replay's target): those its URLs were attempted for
   * (schema 31). Null when the filter is not bounded so: no URL, the needle elsewhere too, or the
   * ranges of an upgraded log still being filled.
   */
  urlIdRange(f: DeliveryQueryFilter, reach: UrlReach = this.urlReach(f)): DeliveryIdRange | null {
    if (f.url === null || reach.entries || reach.targets || !reach.attempts) return null;
    if ((this.s.urlRangesBelow.get() as { below: number }).below !== 0) return null;
    const r = this.s.urlRange.get(f.url) as { low: number | null; high: number | null };
    return r.low === null || r.high === null ? null : { low: r.low, high: r.high };
  }

  /** Deliveries by status, exact, from the counts the triggers keep. */
  statusCounts(): Map<DeliveryStatus, number> {
    return new Map((this.s.statusCounts.all() as { status: DeliveryStatus; n: number }[]).map((r) => [r.status, r.n]));
  }

  /**
   * `textIndex: false` reads the text filter from the log itself, as a log still catching up does;
   * 'walk' or 'set' forces that plan of the index (for the tests that compare them).
   */
  page(p: DeliveryQueryPage, textIndex: boolean | TextPagePlan['kind'] = true): SummaryRow[] {
    // A status filter on statuses no delivery has (pending, on a quiet log) would otherwise scan it all to find nothing.
    if (p.statuses !== null && inStatuses(this.statusCounts(), p.statuses) === 0) return [];
    const reach = this.urlReach(p);
    if (urlMatchesNothing(p, reach)) return [];
    // Named ids are each checked by the filter's terms: the text index would only read more.
    const plan = textIndex !== false && (p.ids ?? null) === null && this.pageUsesTextIndex(p) ? this.textPagePlan(p, textIndex === true ? 'auto' : textIndex) : null;
    const { sql, params } = pageSql(p, reach, plan);
    return statement(this.db, sql).all(...params) as SummaryRow[];
  }

  /** How SQLite runs a page's statement, one line per step: for checking that every lookup uses an index. */
  pagePlan(p: DeliveryQueryPage, choice: 'auto' | TextPagePlan['kind'] = 'auto'): string[] {
    const { sql, params } = pageSql(p, this.urlReach(p), this.pageUsesTextIndex(p) ? this.textPagePlan(p, choice) : null);
    return (statement(this.db, `EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
  }

  /**
   * How SQLite runs a filtered count (one line per step): for the plan tests. A text the index
   * answers shows the walk's statement, then the rest's.
   */
  countPlan(f: DeliveryQueryFilter): string[] {
    const reach = this.urlReach(f);
    const explain = ({ sql, params }: { sql: string; params: unknown[] }): string[] =>
      (statement(this.db, `EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    if (f.text === null || !this.usesTextIndex(f)) return explain(countSql(f, reach));
    const ids = { afterId: 0, beforeId: Number.MAX_SAFE_INTEGER };
    return [...explain(textCountWalkSql(this.textParts(), f, reach, this.countTextQuery(f.text), null, null)), ...explain(textCountRestSql(f, reach, ids, 1, COUNT_LIMIT + 1))];
  }

  /**
   * About how many index entries each of the needle's probed trigrams has: its share of the
   * messages between its newest PROBE_ROWS entries (read from the newest end, the part of the
   * index a count walks first) times the log's span of message ids, or the entries themselves
   * when it has fewer. A guess to choose the MATCH with, never a figure anything counts.
   */
  trigramEntries(needle: string): Map<string, number> {
    const span = Math.max(1, (this.s.messageSpan.get() as { span: number | null }).span ?? 1);
    const entries = new Map<string, number>();
    const parts = this.textParts();
    const probe = statement(this.db, `SELECT message_id AS rowid FROM (${partsMatchSql(parts, '', 'DESC')}) LIMIT ?`);
    for (const trigram of probedTrigrams(needle)) {
      const rowids = (probe.all(...partParams(parts, [phraseQuery(trigram)]), PROBE_ROWS) as { rowid: number }[]).map((r) => r.rowid);
      const newest = rowids[0];
      const oldest = rowids[rowids.length - 1];
      const all = newest === undefined || oldest === undefined || rowids.length < PROBE_ROWS;
      entries.set(trigram, all ? rowids.length : Math.round((span * rowids.length) / (newest - oldest + 1)));
    }
    return entries;
  }

  /**
   * A MATCH for an exact value of a field the search index holds (the CI API's anonymousId): it
   * finds a superset of the messages with that value (sparseTextQuery, as a count's). Null when
   * the index cannot answer: a value under three characters, or an index still taking in the
   * messages from before it. The index is not brought up to the last commit first (a write, in a
   * read): the caller reads the ids past its `through` row by row.
   */
  exactValueMatch(value: string): string | null {
    if (!indexableText(value) || !this.textIndexReady()) return null;
    return this.countTextQuery(value);
  }

  /** The MATCH a text count walks (sparseTextQuery, on this log's probes). */
  countTextQuery(needle: string): string {
    return sparseTextQuery(needle, this.trigramEntries(needle));
  }

  /**
   * A text filter's count through the index (usesTextIndex must hold), up to COUNT_LIMIT + 1:
   * the walk (textCountWalkSql) newest message first, then what it does not see
   * (textCountRestSql). `bounds` limits it to delivery ids in (afterId, beforeId). `outOfTime`
   * is asked between messages once `atLeast` of them are read (MIN_WALK_MESSAGES; the tests stop
   * sooner), so a small log is always counted whole however busy the machine. Once it says so
   * the walk stops, and the count is then exactly that of the matching deliveries from `fromId`
   * up (see IndexedCount): every delivery at or above the first one of the last message read was
   * made at or after that message's commit.
   */
  countByIndex(
    f: DeliveryQueryFilter,
    bounds: { afterId: number; beforeId: number } | null = null,
    outOfTime: () => boolean = () => false,
    atLeast = MIN_WALK_MESSAGES,
  ): IndexedCount {
    const reach = this.urlReach(f);
    if (f.text === null || urlMatchesNothing(f, reach)) return { n: 0, fromId: null };
    // With bounds, the walk starts at the message of the first delivery its commit made inside them.
    const low = bounds === null ? null : ((this.s.commitMessageAbove.get(bounds.afterId) as { message_id: number } | undefined)?.message_id ?? null);
    let n = 0;
    let last: number | null = null;
    let stoppedAt: number | null = null;
    let messages = 0;
    if (bounds === null || low !== null) {
      const walk = textCountWalkSql(this.textParts(), f, reach, this.countTextQuery(f.text), bounds, low);
      const rows = statement(this.db, walk.sql).pluck(true).iterate(...walk.params) as IterableIterator<number>;
      for (const row of rows) {
        const message = Math.floor(row / 2);
        const ok = row % 2;
        if (message !== last) {
          if (last !== null && (n > COUNT_LIMIT || (messages >= atLeast && outOfTime()))) {
            stoppedAt = last;
            break;
          }
          last = message;
          messages++;
        }
        n += ok;
      }
    }
    if (n > COUNT_LIMIT) return { n, fromId: null };
    const after = bounds?.afterId ?? 0;
    const fromId = stoppedAt === null ? null : Math.max(after + 1, (this.s.commitDeliveryFrom.get(stoppedAt) as { id: number }).id);
    const ids = { afterId: fromId === null ? after : fromId - 1, beforeId: bounds?.beforeId ?? Number.MAX_SAFE_INTEGER };
    const below = stoppedAt ?? (bounds === null ? null : (low ?? Number.MAX_SAFE_INTEGER));
    const rest = textCountRestSql(f, reach, ids, below, COUNT_LIMIT + 1 - n);
    n += (statement(this.db, rest.sql).get(...rest.params) as { n: number }).n;
    return { n, fromId };
  }

  /** Newest first; ids that are not in the log are left out. */
  byIds(ids: number[]): SummaryRow[] {
    return this.s.byIds.all(JSON.stringify(ids)) as SummaryRow[];
  }

  /** The latest attempt at each URL of these deliveries, by delivery, URLs in the order first tried. */
  urlOutcomes(ids: number[]): Map<number, UrlOutcomeRow[]> {
    const out = new Map<number, UrlOutcomeRow[]>();
    if (ids.length === 0) return out;
    for (const row of this.s.urlOutcomes.all(JSON.stringify(ids)) as UrlOutcomeRow[]) {
      const list = out.get(row.delivery_id);
      if (list) list.push(row);
      else out.set(row.delivery_id, [row]);
    }
    return out;
  }

  /** The oldest and newest delivery ids, or null on an empty log (two rowid seeks). */
  idRange(): { low: number; high: number } | null {
    const r = this.s.idRange.get() as { low: number | null; high: number | null };
    return r.low === null || r.high === null ? null : { low: r.low, high: r.high };
  }

  /**
   * The first delivery id created at or after `ms`, or null when none was. Deliveries are written
   * in clock order, so created_at grows with the id: a binary search over the ids answers in
   * about log2(n) primary-key seeks, with no index on created_at to keep on every insert.
   */
  idAtOrAfter(ms: number): number | null {
    const range = this.idRange();
    if (range === null) return null;
    const at = (id: number): { id: number; created_at: number } | undefined =>
      this.s.firstFrom.get(id) as { id: number; created_at: number } | undefined;
    let lo = range.low;
    let hi = range.high + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const row = at(mid);
      if (row === undefined || row.created_at >= ms) hi = mid;
      else lo = row.id + 1;
    }
    const found = at(lo);
    return found !== undefined && found.created_at >= ms ? found.id : null;
  }

  /**
   * The lowest delivery id whose message may carry violations, from the message tallies; null
   * when none may. With no tallied message counting any and nothing waiting below the tallied
   * range, only the messages the follow-up has not tallied yet (the newest) may, so a filter on
   * violations reads their deliveries alone; otherwise 1 (the tallies rule nothing out). Without a
   * tracking plan no message has violations, and the filter answers at once at any size.
   */
  violationsFrom(): number | null {
    if ((this.s.anyViolating.get() as { yes: number }).yes === 1) return 1;
    const { below, through } = this.s.tallyRange.get() as { below: number; through: number };
    if ((this.s.untalliedBelow.get(below) as { yes: number }).yes === 1) return 1;
    return (this.s.firstDeliveryAbove.get(through) as { id: number | null }).id;
  }

  /** The first delivery with an id at or above `id` (newest first: the last one a read down to id read), or undefined. */
  firstAtOrAbove(id: number): { id: number; created_at: number } | undefined {
    return this.s.firstFrom.get(id) as { id: number; created_at: number } | undefined;
  }

  /** The last delivery with an id below `id`, or undefined. */
  lastBelow(id: number): { id: number; created_at: number } | undefined {
    return this.s.lastBelow.get(id) as { id: number; created_at: number } | undefined;
  }

  /** The log's total, and whether the filter can match nothing at all (no delivery has its statuses, its URL is nowhere). */
  countStart(f: DeliveryQueryFilter): { total: number; none: boolean } {
    const counts = this.statusCounts();
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const byStatus = f.statuses === null ? total : inStatuses(counts, f.statuses);
    return { total, none: byStatus === 0 || urlMatchesNothing(f, this.urlReach(f)) };
  }

  /**
   * How many deliveries with ids in (afterId, beforeId) the filter lets through, up to
   * COUNT_LIMIT + 1: one window of a count read in slices.
   */
  countIn(f: DeliveryQueryFilter, afterId: number, beforeId: number): number {
    const reach = this.urlReach(f);
    if (urlMatchesNothing(f, reach)) return 0;
    const { sql, params } = countSql(f, reach, { afterId, beforeId });
    return (statement(this.db, sql).get(...params) as { n: number }).n;
  }

  /**
   * Total and matching. Exact from the status counts when the filter is on status alone (or
   * nothing); otherwise counted newest first up to COUNT_LIMIT, and capped past it.
   */
  count(f: DeliveryQueryFilter, textIndex = true): DeliveryCounts {
    const counts = this.statusCounts();
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    const byStatus = f.statuses === null ? total : inStatuses(counts, f.statuses);
    if (byStatus === 0) return { total, matching: 0 };
    if (f.type === null && f.url === null && f.text === null && f.replayed === null && f.violations === null && !hasTimeRange(f)) return { total, matching: byStatus };
    const reach = this.urlReach(f);
    if (urlMatchesNothing(f, reach)) return { total, matching: 0 };
    let n: number;
    if (textIndex && f.text !== null && this.usesTextIndex(f)) n = this.countByIndex(f).n;
    else {
      const { sql, params } = countSql(f, reach);
      n = (statement(this.db, sql).get(...params) as { n: number }).n;
    }
    return n > COUNT_LIMIT ? { total, matching: COUNT_LIMIT, capped: true } : { total, matching: n };
  }

  detail(id: number): DetailRow | undefined {
    return this.s.detail.get(id) as DetailRow | undefined;
  }

  bodyOf(id: number): Buffer | null {
    return (this.s.bodyOf.get(id) as { body: Buffer | null } | undefined)?.body ?? null;
  }
}
