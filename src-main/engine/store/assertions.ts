/**
 * The reads a test's assertions make: accepted messages and deliveries by exact field values, in
 * the order they arrived, and named markers in the log. The statement texts come from pure
 * functions (messageFilterSql) so their shapes can be checked on their own.
 */
import type { DeliveryStatus } from '../../../src-shared/api';
import type { Db } from './database';
import { BODY_OF } from './body-pack';
import { statement, statements } from './statements';
import { partParams, partsMatchSql, type TextParts } from './delivery-views';
import type { TextPart } from './search-index';
import type { RareStatus } from './rare-statuses';

/** A filter as the queries take it: checked already; null means "any". */
export interface MessageQueryFilter {
  type: string | null;
  event: string | null;
  userId: string | null;
  anonymousId: string | null;
  /** A source's name. */
  source: string | null;
  /** received_at at or after this (ms since the epoch). */
  since: number | null;
  /** received_at before this (ms since the epoch). */
  until: number | null;
  /** Only messages whose row id is above this (a marker's point). */
  afterMessageId: number | null;
  /** Only messages with at least one delivery in this status. */
  deliveryStatus: DeliveryStatus | null;
  /** 'none': passed the tracking plan (or none applied); 'any': at least one violation. */
  violations: 'none' | 'any' | null;
}

/** The filter that matches every message: the one to spread the fields asked for over. */
export const ANY_MESSAGE: MessageQueryFilter = {
  type: null,
  event: null,
  userId: null,
  anonymousId: null,
  source: null,
  since: null,
  until: null,
  afterMessageId: null,
  deliveryStatus: null,
  violations: null,
};

export interface DeliveryQueryExtra {
  /** Only deliveries whose row id is above this (a marker's point). */
  afterDeliveryId: number | null;
  /** The delivery's own status. */
  status: DeliveryStatus | null;
  /** A destination's name. */
  destination: string | null;
}

/** A message with what the assertions report about it. */
export interface AssertionMessageRow {
  id: number;
  message_id: string;
  type: string;
  event: string | null;
  user_id: string | null;
  anonymous_id: string | null;
  source: string | null;
  received_at: number;
  json: string;
  warnings: string | null;
  violations: string | null;
  /** JSON list of {id, destination, status, httpStatus}. */
  deliveries: string;
}

export interface AssertionDeliveryRow {
  id: number;
  message_row_id: number | null;
  message_id: string | null;
  type: string | null;
  event: string | null;
  user_id: string | null;
  anonymous_id: string | null;
  source: string | null;
  destination: string | null;
  status: DeliveryStatus;
  last_http_status: number | null;
  last_error: string | null;
  rounds: number;
  replay_of: number | null;
  created_at: number;
  finished_at: number | null;
}

export interface MarkerRow {
  name: string;
  message_id: number;
  delivery_id: number;
  created_at: number;
}

/** Markers kept: older ones are dropped as new ones are made, so a CI server's table stays small. */
export const MAX_MARKERS = 1000;

/** Pure: `column = ?` for each value given (null: any), and their params, in order. */
function equalTerms(pairs: [column: string, value: string | number | null][]): { terms: string[]; params: unknown[] } {
  const given = pairs.filter(([, value]) => value !== null);
  return { terms: given.map(([column]) => `${column} = ?`), params: given.map(([, value]) => value) };
}

/** Pure: the WHERE terms over messages m and their params, in order. */
export function messageFilterSql(f: MessageQueryFilter): { terms: string[]; params: unknown[] } {
  const { terms, params } = equalTerms([
    ['m.type', f.type],
    ['m.event', f.event],
    ['m.user_id', f.userId],
    ['m.anonymous_id', f.anonymousId],
  ]);
  if (f.source !== null) {
    // Unary plus: never through messages_dedupe (source_id first), which would read every message
    // of the source for each window of ids (a window then took as long as the whole log).
    terms.push('+m.source_id = (SELECT s.id FROM sources s WHERE s.name = ?)');
    params.push(f.source);
  }
  if (f.since !== null) {
    terms.push('m.received_at >= ?');
    params.push(f.since);
  }
  if (f.until !== null) {
    terms.push('m.received_at < ?');
    params.push(f.until);
  }
  if (f.afterMessageId !== null) {
    terms.push('m.id > ?');
    params.push(f.afterMessageId);
  }
  if (f.deliveryStatus !== null) {
    // deliveries_message makes this one seek per candidate message.
    terms.push('EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.status = ?)');
    params.push(f.deliveryStatus);
  }
  if (f.violations === 'none') terms.push('m.violations IS NULL');
  if (f.violations === 'any') terms.push('m.violations IS NOT NULL');
  return { terms, params };
}

/**
 * Pure: a filter's terms over the messages' times t (store/message-times.ts), which hold what the
 * tallies count by; null when it asks for what they do not hold (a user, an anonymousId, a
 * delivery status). The times and the id bounds are the caller's.
 */
export function timesFilterSql(f: MessageQueryFilter): { terms: string[]; params: unknown[] } | null {
  if (f.userId !== null || f.anonymousId !== null || f.deliveryStatus !== null) return null;
  const { terms, params } = equalTerms([
    ['t.type', f.type],
    ['t.event', f.event],
  ]);
  if (f.source !== null) {
    terms.push('t.source_id = (SELECT s.id FROM sources s WHERE s.name = ?)');
    params.push(f.source);
  }
  if (f.violations !== null) terms.push(f.violations === 'any' ? 't.violating = 1' : 't.violating = 0');
  return { terms, params };
}

/**
 * Where the search index names a filter's candidates (the messages whose indexed fields may hold
 * its anonymousId): the index's parts, a MATCH that finds a superset of the messages with that
 * value, and the id through which the index holds every message. Each candidate is then checked
 * by the filter's exact terms, so the answers are those of reading every row.
 */
export interface IndexedCandidates {
  /** The parts, oldest first (SearchIndexStore.parts). */
  parts: readonly TextPart[];
  match: string;
  through: number;
}

/**
 * Pure: the parts that may hold ids in (afterId, throughId]. A part holds the ids from its `low`
 * up to the next part's; the first, every id below the second's. A MATCH costs each part it asks
 * a seek per segment and trigram, whatever the range, so a window asks only its own.
 */
export function partsOverlapping(parts: readonly TextPart[], afterId: number, throughId: number): TextParts {
  return parts
    .filter((p, k) => {
      const start = k === 0 ? Number.NEGATIVE_INFINITY : p.low;
      const end = parts[k + 1]?.low ?? Number.POSITIVE_INFINITY;
      return Math.max(start, afterId + 1) <= Math.min(end - 1, throughId);
    })
    .map((p) => p.name);
}

/** Pure: the candidates' message ids in (afterId, throughId], ascending, as a subquery; null when no part holds such ids. */
export function candidatesSql(c: IndexedCandidates, afterId: number, throughId: number): { sql: string; params: unknown[] } | null {
  const parts = partsOverlapping(c.parts, afterId, throughId);
  if (parts.length === 0) return null;
  return { sql: partsMatchSql(parts, 'AND rowid > ? AND rowid <= ?', 'ASC'), params: partParams(parts, [c.match, afterId, throughId]) };
}

/** One batch of a read through candidates: how many it took, the last one, and what the read wanted of them. */
export interface CandidateBatch {
  taken: number;
  last: number | null;
  /** With a limit: the page's matches among them, oldest first. */
  rows: AssertionMessageRow[];
  /** Without: how many of them match. */
  count: number;
}

/**
 * Pure: the stretches of (afterId, throughId] that the index answers (up to its `through`) and
 * that are read row by row (past it), in id order; either may be absent.
 */
export function byIndexThenRows(afterId: number, throughId: number, indexedThrough: number): { indexed: [number, number] | null; rows: [number, number] | null } {
  const edge = Math.min(Math.max(indexedThrough, afterId), throughId);
  return { indexed: edge > afterId ? [afterId, edge] : null, rows: throughId > edge ? [edge, throughId] : null };
}

/** A filter's times as bounds of the messages' times: none on a side is the whole of it. */
const timeBounds = (since: number | null, until: number | null): { from: number; to: number } => ({
  from: since ?? Number.MIN_SAFE_INTEGER,
  to: until ?? Number.MAX_SAFE_INTEGER,
});

/** Adds `column <= throughId` when a window's upper edge is given. */
function upTo(terms: string[], params: unknown[], column: string, throughId: number | undefined): void {
  if (throughId === undefined) return;
  terms.push(`${column} <= ?`);
  params.push(throughId);
}

const where = (terms: string[]): string => (terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : '');

const MESSAGE_COLUMNS = `m.id, m.message_id, m.type, m.event, m.user_id, m.anonymous_id,
  (SELECT s.name FROM sources s WHERE s.id = m.source_id) AS source, m.received_at, m.json, m.warnings, m.violations,
  (SELECT json_group_array(json_object('id', d.id, 'destination', dst.name, 'status', d.status, 'httpStatus', d.last_http_status))
     FROM deliveries d LEFT JOIN destinations dst ON dst.id = d.destination_id WHERE d.message_id = m.id) AS deliveries`;

/**
 * Pure: a page of matching messages, oldest first, after a row id (keyset); with `throughId`,
 * only among the ids up to it (one window of a page read in steps).
 */
export function messagePageSql(f: MessageQueryFilter, afterId: number, limit: number, throughId?: number): { sql: string; params: unknown[] } {
  // One lower bound on the id: with the marker's and the page's both, SQLite seeks on the first
  // one written, so a window far past an old marker read every id from the marker.
  const { terms, params } = messageFilterSql({ ...f, afterMessageId: null });
  terms.push('m.id > ?');
  params.push(Math.max(afterId, f.afterMessageId ?? 0));
  upTo(terms, params, 'm.id', throughId);
  return {
    sql: `WITH page AS MATERIALIZED (SELECT m.id FROM messages m ${where(terms)} ORDER BY m.id LIMIT ?)
      SELECT ${MESSAGE_COLUMNS} FROM page JOIN messages m ON m.id = page.id ORDER BY m.id`,
    params: [...params, limit],
  };
}

/** Pure: messageFilterSql over the given message ids only (a batch of the index's candidates). */
function amongFilterSql(f: MessageQueryFilter, ids: readonly number[]): { terms: string[]; params: unknown[] } {
  const { terms, params } = messageFilterSql(f);
  return { terms: ['m.id IN (SELECT value FROM json_each(?))', ...terms], params: [JSON.stringify(ids), ...params] };
}

/** Pure: a page of the filter's matches among the given message ids, oldest first. */
export function messagesAmongSql(f: MessageQueryFilter, ids: readonly number[], limit: number): { sql: string; params: unknown[] } {
  const { terms, params } = amongFilterSql(f, ids);
  return {
    sql: `WITH page AS MATERIALIZED (SELECT m.id FROM messages m ${where(terms)} ORDER BY m.id LIMIT ?)
      SELECT ${MESSAGE_COLUMNS} FROM page JOIN messages m ON m.id = page.id ORDER BY m.id`,
    params: [...params, limit],
  };
}

const DELIVERY_COLUMNS = `d.id, d.message_id AS message_row_id, m.message_id, m.type, m.event, m.user_id, m.anonymous_id,
  (SELECT s.name FROM sources s WHERE s.id = m.source_id) AS source, dst.name AS destination, d.status,
  d.last_http_status, d.last_error, d.rounds, d.replay_of, d.created_at, d.finished_at`;

/** Pure: the WHERE terms over deliveries d and their messages m, and their params: the message filter, then the delivery's own. */
function deliveryFilterSql(f: MessageQueryFilter, extra: DeliveryQueryExtra): { terms: string[]; params: unknown[] } {
  const { terms, params } = messageFilterSql(f);
  if (extra.status !== null) {
    terms.push('d.status = ?');
    params.push(extra.status);
  }
  if (extra.destination !== null) {
    terms.push('d.destination_id = (SELECT x.id FROM destinations x WHERE x.name = ?)');
    params.push(extra.destination);
  }
  if (extra.afterDeliveryId !== null) {
    terms.push('d.id > ?');
    params.push(extra.afterDeliveryId);
  }
  return { terms, params };
}

/**
 * Where a page of deliveries is read from: all of them by id, the given messages' (`among`), or
 * the list of those in a rare status (`rareStatus`: the filter's status is one, and the list is
 * ready), walked by id like the deliveries themselves.
 */
export type DeliverySource = { among: { messageIds: readonly number[]; newerThan: number } } | { rareStatus: true } | null;

/** Pure: the deliveries matching message fields (over their message) and their own, oldest first; `throughId` as for messages. */
export function deliveryPageSql(
  f: MessageQueryFilter,
  extra: DeliveryQueryExtra,
  afterId: number,
  limit: number,
  throughId?: number,
  source: DeliverySource = null,
): { sql: string; params: unknown[] } {
  if (source !== null && 'rareStatus' in source && extra.status !== null) {
    // The list drives, by id: the status and the id bounds are its own, the rest is checked on each row.
    const { terms, params } = deliveryFilterSql(f, { ...extra, status: null, afterDeliveryId: null });
    terms.unshift('x.status = ?', 'x.id > ?');
    params.unshift(extra.status, Math.max(afterId, extra.afterDeliveryId ?? 0));
    upTo(terms, params, 'x.id', throughId);
    return {
      sql: `SELECT ${DELIVERY_COLUMNS}
        FROM rare_status_deliveries x CROSS JOIN deliveries d ON d.id = x.id LEFT JOIN messages m ON m.id = d.message_id
        LEFT JOIN destinations dst ON dst.id = d.destination_id
        ${where(terms)} ORDER BY x.id LIMIT ?`,
      params: [...params, limit],
    };
  }
  const among = source !== null && 'among' in source ? source.among : undefined;
  // One lower bound on the delivery's id, as for messages.
  const { terms, params } = deliveryFilterSql(f, { ...extra, afterDeliveryId: null });
  if (among !== undefined) {
    // The deliveries of the given messages and of every message past `newerThan`, by deliveries_message.
    terms.unshift(`d.id IN (SELECT x.id FROM deliveries x WHERE x.message_id IN (SELECT value FROM json_each(?))
      UNION ALL SELECT x.id FROM deliveries x WHERE x.message_id > ?)`);
    params.unshift(JSON.stringify(among.messageIds), among.newerThan);
  }
  terms.push('d.id > ?');
  params.push(Math.max(afterId, extra.afterDeliveryId ?? 0));
  upTo(terms, params, 'd.id', throughId);
  return {
    sql: `SELECT ${DELIVERY_COLUMNS}
      FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id LEFT JOIN destinations dst ON dst.id = d.destination_id
      ${where(terms)} ORDER BY d.id LIMIT ?`,
    params: [...params, limit],
  };
}

/** An attempt with what a HAR entry needs of its delivery. */
export interface ExportAttemptRow {
  id: number;
  delivery_id: number;
  url: string;
  started_at: number;
  state: string;
  http_status: number | null;
  request_headers: string;
  timings: string | null;
  response_headers: string | null;
  response_body: Buffer | null;
  response_bytes: number | null;
  error_text: string | null;
  body: Buffer | null;
  destination: string | null;
  event: string | null;
  type: string | null;
}

/** Pure: the attempts of the deliveries a filter matches, oldest first, after an attempt id; `throughId` as for messages. */
export function attemptPageSql(
  f: MessageQueryFilter,
  extra: DeliveryQueryExtra,
  afterId: number,
  limit: number,
  throughId?: number,
): { sql: string; params: unknown[] } {
  const { terms, params } = deliveryFilterSql(f, extra);
  terms.push('a.id > ?');
  params.push(afterId);
  upTo(terms, params, 'a.id', throughId);
  return {
    sql: `SELECT a.id, a.delivery_id, a.url, a.started_at, a.state, a.http_status, a.request_headers, a.timings, a.response_headers,
        a.response_body, a.response_bytes, a.error_text, ${BODY_OF('d')} AS body, dst.name AS destination, m.event, d.payload_type AS type
      FROM attempts a JOIN deliveries d ON d.id = a.delivery_id LEFT JOIN messages m ON m.id = d.message_id
      LEFT JOIN destinations dst ON dst.id = d.destination_id
      ${where(terms)} ORDER BY a.id LIMIT ?`,
    params: [...params, limit],
  };
}

export class AssertionStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      lastMessageId: 'SELECT COALESCE(MAX(id), 0) AS id FROM messages',
      lastDeliveryId: 'SELECT COALESCE(MAX(id), 0) AS id FROM deliveries',
      lastAttemptId: 'SELECT COALESCE(MAX(id), 0) AS id FROM attempts',
      putMarker: `INSERT INTO log_markers (name, message_id, delivery_id, created_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (name) DO UPDATE SET message_id = excluded.message_id, delivery_id = excluded.delivery_id, created_at = excluded.created_at`,
      trimMarkers: `DELETE FROM log_markers WHERE name IN
        (SELECT name FROM log_markers ORDER BY created_at DESC, name LIMIT -1 OFFSET ?)`,
      marker: 'SELECT * FROM log_markers WHERE name = ?',
      clearMarkers: 'DELETE FROM log_markers',
      newest: `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.id > ? AND m.received_at >= ? ORDER BY m.id DESC LIMIT ?`,
      violationCounts: `SELECT m.type, m.event, COUNT(*) AS messages, SUM(json_array_length(m.violations)) AS violations
        FROM messages m WHERE m.violations IS NOT NULL AND m.id > ? GROUP BY m.type, m.event ORDER BY messages DESC, m.type, m.event`,
      violationCountsInIds: `SELECT m.type, m.event, COUNT(*) AS messages, SUM(json_array_length(m.violations)) AS violations
        FROM messages m WHERE m.id > ? AND m.id <= ? AND m.violations IS NOT NULL GROUP BY m.type, m.event`,
      receivedAtOf: 'SELECT received_at FROM messages WHERE id > ? ORDER BY id LIMIT 1',
      receivedIds: 'SELECT id FROM message_times WHERE received_at >= ? AND received_at < ? LIMIT ?',
      rareStatusMessageIds: `SELECT DISTINCT message_id FROM rare_status_deliveries
        WHERE status = ? AND message_id > ? AND message_id <= ? ORDER BY message_id LIMIT ?`,
      rareStatusMessageCount: `SELECT COUNT(*) AS taken, MAX(message_id) AS last FROM (SELECT DISTINCT message_id FROM rare_status_deliveries
        WHERE status = ? AND message_id > ? AND message_id <= ? ORDER BY message_id LIMIT ?)`,
    });
  }

  messages(f: MessageQueryFilter, afterId: number, limit: number, throughId?: number): AssertionMessageRow[] {
    const { sql, params } = messagePageSql(f, afterId, limit, throughId);
    return statement(this.db, sql).all(...params) as AssertionMessageRow[];
  }

  /**
   * Up to `max` of the search index's candidates with ids in (afterId, throughId], ascending: the
   * next batch of a read through the index (IndexedCandidates).
   */
  candidateIds(c: IndexedCandidates, afterId: number, throughId: number, max: number): number[] {
    const candidates = candidatesSql(c, afterId, throughId);
    if (candidates === null) return [];
    return statement(this.db, `${candidates.sql} LIMIT ?`)
      .pluck(true)
      .all(...candidates.params, max) as number[];
  }

  /**
   * The next batch of the index's candidates in (afterId, throughId], up to `max`, each checked by
   * `check`'s exact terms: the page's rows (at most `limit`) or, with no limit, their count. The
   * read worker runs it whole (the MATCH, then the candidates' rows, scattered over the log).
   */
  candidateBatch(c: IndexedCandidates, afterId: number, throughId: number, max: number, check: MessageQueryFilter, limit: number | null): CandidateBatch {
    return this.batchAmong(check, this.candidateIds(c, afterId, throughId, max), limit);
  }

  /** A batch of candidates (ascending ids) with what the read wants of them (`among`). */
  batchAmong(check: MessageQueryFilter, ids: readonly number[], limit: number | null): CandidateBatch {
    return { taken: ids.length, last: ids.at(-1) ?? null, ...this.among(check, ids, limit) };
  }

  /** What a read wants of these message ids, checked by `check`: a page's rows (at most `limit`), or with no limit their count. */
  among(check: MessageQueryFilter, ids: readonly number[], limit: number | null): { rows: AssertionMessageRow[]; count: number } {
    if (ids.length === 0) return { rows: [], count: 0 };
    return limit === null ? { rows: [], count: this.countAmong(check, ids) } : { rows: this.messagesAmong(check, ids, limit), count: 0 };
  }

  /**
   * Up to `max` ids of the messages with a delivery in this rare status, in (afterId, throughId],
   * ascending, from the list the triggers keep (store/rare-statuses.ts): the next batch of a read
   * of those messages.
   */
  rareStatusMessageIds(status: RareStatus, afterId: number, throughId: number, max: number): number[] {
    return this.s.rareStatusMessageIds.pluck(true).all(status, afterId, throughId, max) as number[];
  }

  /**
   * The ids of the messages received in [since, until) with ids in (afterId, throughId],
   * ascending, from the messages' times (store/message-times.ts, once ready), when there are at
   * most `max` entries within the times; null when there are more. One walk of at most `max` + 1
   * entries of the table (the times may span the whole log), sorted here.
   */
  receivedIds(since: number | null, until: number | null, afterId: number, throughId: number, max: number): number[] | null {
    const { from, to } = timeBounds(since, until);
    const ids = this.s.receivedIds.pluck(true).all(from, to, max + 1) as number[];
    if (ids.length > max) return null;
    return ids.filter((id) => id > afterId && id <= throughId).sort((x, y) => x - y);
  }

  /**
   * How many messages received in [since, until) with ids in (afterId, throughId] the filter
   * matches, from the messages' times alone (timesFilterSql must allow it), when at most `max`
   * entries lie within the times; null when more do. One walk of at most `max` + 1 entries.
   */
  countReceived(f: MessageQueryFilter, since: number | null, until: number | null, afterId: number, throughId: number, max: number): number | null {
    const by = timesFilterSql(f);
    if (by === null) throw new Error('countReceived: the messages’ times do not hold what this filter asks');
    const { from, to } = timeBounds(since, until);
    const matching = ['t.id > ?', 't.id <= ?', ...by.terms].join(' AND ');
    const sql = `SELECT COUNT(*) AS entries, COALESCE(SUM(${matching}), 0) AS n
      FROM (SELECT * FROM message_times WHERE received_at >= ? AND received_at < ? LIMIT ?) t`;
    const r = statement(this.db, sql).get(afterId, throughId, ...by.params, from, to, max + 1) as { entries: number; n: number };
    return r.entries > max ? null : r.n;
  }

  /** How many of those ids there are, up to `max`, and the last of them: the same batch counted from the list alone. */
  rareStatusMessageCount(status: RareStatus, afterId: number, throughId: number, max: number): { taken: number; last: number | null } {
    return this.s.rareStatusMessageCount.get(status, afterId, throughId, max) as { taken: number; last: number | null };
  }

  /** How many of the given message ids the filter matches, checked row by row. */
  countAmong(f: MessageQueryFilter, ids: readonly number[]): number {
    const { terms, params } = amongFilterSql(f, ids);
    return (statement(this.db, `SELECT COUNT(*) AS n FROM messages m ${where(terms)}`).get(...params) as { n: number }).n;
  }

  /** A page of the filter's matches among the given message ids, oldest first. */
  messagesAmong(f: MessageQueryFilter, ids: readonly number[], limit: number): AssertionMessageRow[] {
    const { sql, params } = messagesAmongSql(f, ids, limit);
    return statement(this.db, sql).all(...params) as AssertionMessageRow[];
  }

  countMessages(f: MessageQueryFilter): number {
    const { terms, params } = messageFilterSql(f);
    return (statement(this.db, `SELECT COUNT(*) AS n FROM messages m ${where(terms)}`).get(...params) as { n: number }).n;
  }

  /** The same count over the messages with ids in (afterId, throughId]: one window of a count made in steps. */
  countMessagesInIds(f: MessageQueryFilter, afterId: number, throughId: number): number {
    const { terms, params } = messageFilterSql({ ...f, afterMessageId: null });
    const sql = `SELECT COUNT(*) AS n FROM messages m WHERE m.id > ? AND m.id <= ?${terms.length > 0 ? ` AND ${terms.join(' AND ')}` : ''}`;
    return (statement(this.db, sql).get(Math.max(afterId, f.afterMessageId ?? 0), throughId, ...params) as { n: number }).n;
  }

  /** The newest message's id (0 in an empty log). */
  lastMessageId(): number {
    return (this.s.lastMessageId.get() as { id: number }).id;
  }

  /** The newest delivery's id (0 when there is none). */
  lastDeliveryId(): number {
    return (this.s.lastDeliveryId.get() as { id: number }).id;
  }

  /** The newest attempt's id (0 when there is none). */
  lastAttemptId(): number {
    return (this.s.lastAttemptId.get() as { id: number }).id;
  }

  /** The newest messages after a point, newest first: the candidates when an assertion is not met. */
  newestMessages(afterMessageId: number, since: number, limit: number): AssertionMessageRow[] {
    return this.s.newest.all(afterMessageId, since, limit) as AssertionMessageRow[];
  }

  /** `rareStatus`: read through the list of deliveries in a rare status (the filter's status is one, and the list is ready). */
  deliveries(f: MessageQueryFilter, extra: DeliveryQueryExtra, afterId: number, limit: number, throughId?: number, rareStatus = false): AssertionDeliveryRow[] {
    const { sql, params } = deliveryPageSql(f, extra, afterId, limit, throughId, rareStatus ? { rareStatus } : null);
    return statement(this.db, sql).all(...params) as AssertionDeliveryRow[];
  }

  /**
   * A page of the filter's deliveries among those of the given messages (the search index's
   * candidates, every one of them) and of the messages past `newerThan` (the index's `through`),
   * each checked by the filter's exact terms.
   */
  deliveriesAmong(f: MessageQueryFilter, extra: DeliveryQueryExtra, among: { messageIds: readonly number[]; newerThan: number }, afterId: number, limit: number): AssertionDeliveryRow[] {
    const { sql, params } = deliveryPageSql(f, extra, afterId, limit, undefined, { among });
    return statement(this.db, sql).all(...params) as AssertionDeliveryRow[];
  }

  attempts(f: MessageQueryFilter, extra: DeliveryQueryExtra, afterId: number, limit: number, throughId?: number): ExportAttemptRow[] {
    const { sql, params } = attemptPageSql(f, extra, afterId, limit, throughId);
    return statement(this.db, sql).all(...params) as ExportAttemptRow[];
  }

  /** Marks the log's current end under a name (replacing a marker of that name). */
  mark(name: string, now: number): MarkerRow {
    return this.db.transaction((): MarkerRow => {
      const messageId = (this.s.lastMessageId.get() as { id: number }).id;
      const deliveryId = (this.s.lastDeliveryId.get() as { id: number }).id;
      this.s.putMarker.run(name, messageId, deliveryId, now);
      this.s.trimMarkers.run(MAX_MARKERS);
      return { name, message_id: messageId, delivery_id: deliveryId, created_at: now };
    })();
  }

  marker(name: string): MarkerRow | undefined {
    return this.s.marker.get(name) as MarkerRow | undefined;
  }

  /** After the log is cleared, ids may be handed out again from the start: every marker would hide them. */
  clearMarkers(): number {
    return this.s.clearMarkers.run().changes;
  }

  /** Messages with violations and how many violations they hold, per type and event, after a row id. */
  violationCounts(afterMessageId: number): { type: string; event: string | null; messages: number; violations: number }[] {
    return this.s.violationCounts.all(afterMessageId) as { type: string; event: string | null; messages: number; violations: number }[];
  }

  /** The same counts over the messages with ids in (afterId, throughId], unordered: one window of a count made in steps. */
  violationCountsInIds(afterId: number, throughId: number): { type: string; event: string | null; messages: number; violations: number }[] {
    return this.s.violationCountsInIds.all(afterId, throughId) as { type: string; event: string | null; messages: number; violations: number }[];
  }

  /** When the first message after `afterId` was received; null when there is none. */
  receivedAfter(afterId: number): number | null {
    return (this.s.receivedAtOf.get(afterId) as { received_at: number } | undefined)?.received_at ?? null;
  }
}
