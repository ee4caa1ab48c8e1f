/**
 * The Deliveries view's reads: filtered, keyset-paged summaries newest first, summaries by id,
 * counts, and one delivery's detail row. The statement texts are built by pure functions
 * (filterSql, pageSql) so their shapes and plans can be checked on their own.
 */
import type { DeliveryStatus } from '../../../src-shared/api';
import type { Db } from './database';
import { statement, statements } from './statements';

/** A Deliveries filter as the query takes it: checked already, empty text as null. */
export interface DeliveryQueryFilter {
  statuses: DeliveryStatus[] | null;
  type: string | null;
  /** Lowercased by SQLite on both sides, so ASCII case never matters and other text matches exactly. */
  url: string | null;
  text: string | null;
  /** The message failed the tracking plan, or did not (a delivery without a message never did). */
  violations: 'any' | 'none' | null;
}

export interface DeliveryQueryPage extends DeliveryQueryFilter {
  beforeId: number | null;
  afterId: number | null;
  limit: number;
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
  /** Tracking-plan violations of the message (0 without). */
  violations?: number;
  /** The summary's computed columns (SUMMARY_COLUMNS); absent from rows selected without them. */
  entries?: number;
  latency_ms?: number | null;
  /** Comma-separated ids of the replays made of this delivery, in no particular order. */
  replay_ids?: string | null;
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
 * message otherwise.
 */
export const fromBody = (key: string): string =>
  `CASE WHEN d.message_id IS NULL AND json_valid(CAST(d.body AS TEXT)) THEN
     CASE WHEN json_type(CAST(d.body AS TEXT), '$.${key}') = 'text' THEN json_extract(CAST(d.body AS TEXT), '$.${key}') END END`;

// The body is left out of list rows: a page of summaries must not drag every payload along.
export const BASE_SUMMARY_COLUMNS = `d.id, d.message_id AS message_row_id, d.destination_id, d.payload_type, d.status, d.created_at,
  d.next_attempt_at, d.rounds, d.last_http_status, d.last_error, d.replay_of,
  COALESCE(m.user_id, ${fromBody('userId')}) AS user_id, COALESCE(m.anonymous_id, ${fromBody('anonymousId')}) AS anonymous_id,
  COALESCE(m.event, ${fromBody('event')}) AS event, COALESCE(m.message_id, ${fromBody('messageId')}) AS message_uid,
  COALESCE(json_array_length(m.violations), 0) AS violations`;

/**
 * Entries, latency and replays as correlated subqueries: each is one index seek per row
 * (webhook_entries_destination, attempts_delivery, deliveries_replay_of), so a statement that
 * selects them must bound its rows first (a page's LIMIT, a list of ids), never compute them
 * for rows a sort or a filter will throw away.
 */
export const COMPUTED_SUMMARY_COLUMNS = `
  CASE WHEN d.target_url IS NOT NULL THEN 1
       ELSE (SELECT COUNT(*) FROM webhook_entries w WHERE w.destination_id = d.destination_id) END AS entries,
  (SELECT json_extract(a.timings, '$.totalMs') FROM attempts a
     WHERE a.delivery_id = d.id AND a.state = 'done' ORDER BY a.id DESC LIMIT 1) AS latency_ms,
  (SELECT group_concat(r.id) FROM deliveries r WHERE r.replay_of = d.id) AS replay_ids`;

export const SUMMARY_COLUMNS = `${BASE_SUMMARY_COLUMNS},${COMPUTED_SUMMARY_COLUMNS}`;

export function isEmptyFilter(f: DeliveryQueryFilter): boolean {
  return f.statuses === null && f.type === null && f.url === null && f.text === null && f.violations === null;
}

/** Pure: the WHERE terms (over deliveries d LEFT JOIN messages m) and their params, in order. */
export function filterSql(f: DeliveryQueryFilter): { terms: string[]; params: unknown[]; needsMessages: boolean } {
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
    terms.push(`(
      (d.target_url IS NULL AND d.destination_id IN (SELECT w.destination_id FROM webhook_entries w WHERE instr(lower(w.url), lower(?)) > 0))
      OR instr(lower(d.target_url), lower(?)) > 0
      OR EXISTS (SELECT 1 FROM attempts a WHERE a.delivery_id = d.id AND instr(lower(a.url), lower(?)) > 0)
    )`);
    params.push(f.url, f.url, f.url);
  }
  if (f.text !== null) {
    // A delivery without a message (a delete notice) is found by the userId in its body.
    terms.push(`(
      instr(lower(m.user_id), lower(?)) > 0 OR instr(lower(m.anonymous_id), lower(?)) > 0
      OR instr(lower(m.event), lower(?)) > 0 OR instr(lower(m.message_id), lower(?)) > 0
      OR (d.message_id IS NULL AND instr(lower(${fromBody('userId')}), lower(?)) > 0)
    )`);
    params.push(f.text, f.text, f.text, f.text, f.text);
  }
  if (f.violations === 'any') terms.push('m.violations IS NOT NULL');
  if (f.violations === 'none') terms.push('m.violations IS NULL');
  return { terms, params, needsMessages: f.text !== null || f.violations !== null };
}

/**
 * Pure: one statement for a page. The page's ids first (MATERIALIZED keeps the LIMIT inside), then
 * the summary with its computed columns for those rows only: one index seek per row per column.
 */
export function pageSql(p: DeliveryQueryPage): { sql: string; params: unknown[] } {
  const { terms, params, needsMessages } = filterSql(p);
  if (p.beforeId !== null) {
    terms.push('d.id < ?');
    params.push(p.beforeId);
  }
  if (p.afterId !== null) {
    terms.push('d.id > ?');
    params.push(p.afterId);
  }
  const sql = `WITH page AS MATERIALIZED (
      SELECT d.id FROM deliveries d ${needsMessages ? 'LEFT JOIN messages m ON m.id = d.message_id' : ''}
      ${terms.length > 0 ? `WHERE ${terms.join(' AND ')}` : ''}
      ORDER BY d.id DESC LIMIT ?
    )
    SELECT ${SUMMARY_COLUMNS} FROM page JOIN deliveries d ON d.id = page.id LEFT JOIN messages m ON m.id = d.message_id
    ORDER BY d.id DESC`;
  return { sql, params: [...params, p.limit] };
}

export class DeliveryViewStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      countAll: 'SELECT COUNT(*) AS n FROM deliveries',
      byIds: `SELECT ${SUMMARY_COLUMNS} FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
        WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id DESC`,
      detail: `SELECT ${SUMMARY_COLUMNS}, d.body, d.target_url, d.edited, d.first_attempt_at, d.finished_at, d.pending_urls, d.decision
        FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id WHERE d.id = ?`,
      bodyOf: 'SELECT body FROM deliveries WHERE id = ?',
    });
  }

  page(p: DeliveryQueryPage): SummaryRow[] {
    const { sql, params } = pageSql(p);
    return statement(this.db, sql).all(...params) as SummaryRow[];
  }

  /** How SQLite runs a page's statement, one line per step: for checking that every lookup uses an index. */
  pagePlan(p: DeliveryQueryPage): string[] {
    const { sql, params } = pageSql(p);
    return (statement(this.db, `EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
  }

  /** Newest first; ids that are not in the log are left out. */
  byIds(ids: number[]): SummaryRow[] {
    return this.s.byIds.all(JSON.stringify(ids)) as SummaryRow[];
  }

  count(f: DeliveryQueryFilter): { total: number; matching: number } {
    const total = (this.s.countAll.get() as { n: number }).n;
    if (isEmptyFilter(f)) return { total, matching: total };
    const { terms, params, needsMessages } = filterSql(f);
    const sql = `SELECT COUNT(*) AS n FROM deliveries d ${needsMessages ? 'LEFT JOIN messages m ON m.id = d.message_id' : ''} WHERE ${terms.join(' AND ')}`;
    return { total, matching: (statement(this.db, sql).get(...params) as { n: number }).n };
  }

  detail(id: number): DetailRow | undefined {
    return this.s.detail.get(id) as DetailRow | undefined;
  }

  bodyOf(id: number): Buffer | null {
    return (this.s.bodyOf.get(id) as { body: Buffer | null } | undefined)?.body ?? null;
  }
}
