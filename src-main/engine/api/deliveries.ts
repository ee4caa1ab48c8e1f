/**
 * The Deliveries view's queries (src-shared/api.ts: listDeliveries, getDeliverySummaries,
 * countDeliveries): filtered, keyset-paged, newest first. Params arrive from a transport, so each
 * is checked here and refused by field name whatever the static types say.
 */
import {
  DEFAULT_PAGE_LIMIT,
  type DeliveryCounts,
  type DeliveryFilter,
  type DeliveryStatus,
  type DeliverySummary,
  type PageResult,
} from '../../../src-shared/api';
import { parseOrThrow } from '../../../src-shared/settings';
import { deliveryFilterSchema, deliveryPageSchema, idsSchema } from './params';
import type Database from 'better-sqlite3';
import type { Db } from '../store/database';
import { SUMMARY_COLUMNS, fromBody, toSummary, type SummaryRow } from './views';

export { MAX_NEEDLE_LENGTH } from './params';

export interface ParsedFilter {
  statuses: DeliveryStatus[] | null;
  type: string | null;
  /** Lowercased by SQLite on both sides, so ASCII case never matters and other text matches exactly. */
  url: string | null;
  text: string | null;
}

export interface ParsedPage extends ParsedFilter {
  beforeId: number | null;
  afterId: number | null;
  limit: number;
}

/** Pure: the filter as the query needs it (an empty box narrows nothing, a status list has no repeats). */
function filterOf(f: DeliveryFilter): ParsedFilter {
  const some = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
  const statuses = f.status === undefined ? null : [...new Set(Array.isArray(f.status) ? f.status : [f.status])];
  return { statuses, type: some(f.type), url: some(f.url), text: some(f.text) };
}

/** Pure: a listDeliveries param as the query needs it, or a ValidationError naming each bad field. */
export function parseDeliveryPage(input: unknown): ParsedPage {
  const page = parseOrThrow(deliveryPageSchema.nullish(), input, 'page') ?? {};
  return { ...filterOf(page), beforeId: page.beforeId ?? null, afterId: page.afterId ?? null, limit: page.limit ?? DEFAULT_PAGE_LIMIT };
}

/** Pure: a countDeliveries param, or a ValidationError naming each bad field. */
export function parseDeliveryFilter(input: unknown): ParsedFilter {
  return filterOf(parseOrThrow(deliveryFilterSchema.nullish(), input, 'filter') ?? {});
}

/** Pure: getDeliverySummaries' ids, each a positive whole number, at most MAX_PAGE_LIMIT of them. */
export function parseIds(input: unknown): number[] {
  return [...new Set(parseOrThrow(idsSchema, input, 'ids'))];
}

export function isEmptyFilter(f: ParsedFilter): boolean {
  return f.statuses === null && f.type === null && f.url === null && f.text === null;
}

/** Pure: the WHERE terms (over deliveries d LEFT JOIN messages m) and their params, in order. */
export function filterSql(f: ParsedFilter): { terms: string[]; params: unknown[]; needsMessages: boolean } {
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
  return { terms, params, needsMessages: f.text !== null };
}

/**
 * Pure: one statement for a page. The page's ids first (MATERIALIZED keeps the LIMIT inside), then
 * the summary with its computed columns for those rows only: one index seek per row per column.
 */
export function pageSql(p: ParsedPage): { sql: string; params: unknown[] } {
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

export interface DeliveryQueries {
  list(page: unknown): PageResult<DeliverySummary>;
  summaries(ids: unknown): DeliverySummary[];
  count(filter: unknown): DeliveryCounts;
}

/** How many distinct statements a cache holds: filters combine into a few dozen shapes at most. */
const MAX_CACHED_STATEMENTS = 200;

export function createDeliveryQueries(db: Db): DeliveryQueries {
  const cache = new Map<string, Database.Statement<unknown[]>>();
  const prepared = (sql: string): Database.Statement<unknown[]> => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= MAX_CACHED_STATEMENTS) cache.clear();
      statement = db.prepare<unknown[]>(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
  const countAll = db.prepare('SELECT COUNT(*) AS n FROM deliveries');
  const byIds = db.prepare(
    `SELECT ${SUMMARY_COLUMNS} FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
     WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id DESC`,
  );

  return {
    list(input) {
      const p = parseDeliveryPage(input);
      const { sql, params } = pageSql(p);
      const rows = prepared(sql).all(...params) as SummaryRow[];
      const last = rows[rows.length - 1];
      return { items: rows.map(toSummary), nextBeforeId: rows.length === p.limit && last ? last.id : null };
    },
    summaries(input) {
      const ids = parseIds(input);
      if (ids.length === 0) return [];
      return (byIds.all(JSON.stringify(ids)) as SummaryRow[]).map(toSummary);
    },
    count(input) {
      const f = parseDeliveryFilter(input);
      const total = (countAll.get() as { n: number }).n;
      if (isEmptyFilter(f)) return { total, matching: total };
      const { terms, params, needsMessages } = filterSql(f);
      const sql = `SELECT COUNT(*) AS n FROM deliveries d ${needsMessages ? 'LEFT JOIN messages m ON m.id = d.message_id' : ''} WHERE ${terms.join(' AND ')}`;
      const matching = (prepared(sql).get(...params) as { n: number }).n;
      return { total, matching };
    },
  };
}

