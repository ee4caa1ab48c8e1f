/**
 * The Deliveries view's queries (src-shared/api.ts: listDeliveries, getDeliverySummaries,
 * countDeliveries): filtered, keyset-paged, newest first. Params arrive from a transport, so each
 * is checked here and refused by field name whatever the static types say.
 */
import {
  DEFAULT_PAGE_LIMIT,
  DELIVERY_STATUSES,
  MAX_PAGE_LIMIT,
  type DeliveryCounts,
  type DeliveryStatus,
  type DeliverySummary,
  type PageResult,
} from '../../../src-shared/api';
import { ValidationError, type FieldError } from '../../../src-shared/settings';
import type Database from 'better-sqlite3';
import type { Db } from '../store/database';
import { SUMMARY_COLUMNS, fromBody, toSummary, type SummaryRow } from './views';

/** Longest URL or text needle accepted: a search box, not a document. */
export const MAX_NEEDLE_LENGTH = 500;
const MAX_TYPE_LENGTH = 100;

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

const FILTER_KEYS = ['status', 'type', 'url', 'text'] as const;
const PAGE_KEYS = [...FILTER_KEYS, 'beforeId', 'afterId', 'limit'] as const;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
const isStatus = (v: unknown): v is DeliveryStatus => (DELIVERY_STATUSES as readonly unknown[]).includes(v);

function parseFilterFields(input: Record<string, unknown>, field: string, errors: FieldError[]): ParsedFilter {
  let statuses: DeliveryStatus[] | null = null;
  const status = input.status;
  if (status !== undefined) {
    const list = Array.isArray(status) ? status : [status];
    if (list.length === 0) errors.push({ field: `${field}.status`, message: 'must name at least one status (leave it out to see every status)' });
    list.forEach((s: unknown, i) => {
      if (!isStatus(s)) {
        const where = Array.isArray(status) ? `${field}.status[${i}]` : `${field}.status`;
        errors.push({ field: where, message: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
      }
    });
    statuses = [...new Set(list.filter(isStatus))];
  }
  const text = (key: 'type' | 'url' | 'text', max: number): string | null => {
    const v = input[key];
    if (v === undefined) return null;
    if (typeof v !== 'string') {
      errors.push({ field: `${field}.${key}`, message: 'must be a string' });
      return null;
    }
    if (v.length > max) {
      errors.push({ field: `${field}.${key}`, message: `must be at most ${max} characters` });
      return null;
    }
    // An empty box narrows nothing.
    return v === '' ? null : v;
  };
  return { statuses, type: text('type', MAX_TYPE_LENGTH), url: text('url', MAX_NEEDLE_LENGTH), text: text('text', MAX_NEEDLE_LENGTH) };
}

function refuseUnknownKeys(input: Record<string, unknown>, keys: readonly string[], field: string, errors: FieldError[]): void {
  for (const key of Object.keys(input)) {
    if (!keys.includes(key)) errors.push({ field: `${field}.${key}`, message: `is not a ${field} field (expected ${keys.join(', ')})` });
  }
}

/** Pure: a listDeliveries param as the query needs it, or a ValidationError naming each bad field. */
export function parseDeliveryPage(input: unknown): ParsedPage {
  if (input === undefined || input === null) {
    return { statuses: null, type: null, url: null, text: null, beforeId: null, afterId: null, limit: DEFAULT_PAGE_LIMIT };
  }
  if (!isObject(input)) throw new ValidationError([{ field: 'page', message: 'must be an object { beforeId?, afterId?, limit?, status?, type?, url?, text? }' }]);
  const errors: FieldError[] = [];
  refuseUnknownKeys(input, PAGE_KEYS, 'page', errors);
  const filter = parseFilterFields(input, 'page', errors);
  for (const key of ['beforeId', 'afterId'] as const) {
    if (input[key] !== undefined && !isId(input[key])) errors.push({ field: `page.${key}`, message: 'must be a positive whole number' });
  }
  const limit = input.limit;
  if (limit !== undefined && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    errors.push({ field: 'page.limit', message: `must be a whole number from 1 to ${MAX_PAGE_LIMIT}` });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    ...filter,
    beforeId: (input.beforeId as number | undefined) ?? null,
    afterId: (input.afterId as number | undefined) ?? null,
    limit: (limit as number | undefined) ?? DEFAULT_PAGE_LIMIT,
  };
}

/** Pure: a countDeliveries param, or a ValidationError naming each bad field. */
export function parseDeliveryFilter(input: unknown): ParsedFilter {
  if (input === undefined || input === null) return { statuses: null, type: null, url: null, text: null };
  if (!isObject(input)) throw new ValidationError([{ field: 'filter', message: 'must be an object { status?, type?, url?, text? }' }]);
  const errors: FieldError[] = [];
  refuseUnknownKeys(input, FILTER_KEYS, 'filter', errors);
  const filter = parseFilterFields(input, 'filter', errors);
  if (errors.length > 0) throw new ValidationError(errors);
  return filter;
}

/** Pure: getDeliverySummaries' ids, each a positive whole number, at most MAX_PAGE_LIMIT of them. */
export function parseIds(input: unknown): number[] {
  if (!Array.isArray(input)) throw new ValidationError([{ field: 'ids', message: 'must be a list of delivery ids' }]);
  if (input.length > MAX_PAGE_LIMIT) throw new ValidationError([{ field: 'ids', message: `must hold at most ${MAX_PAGE_LIMIT} ids (got ${input.length})` }]);
  const errors: FieldError[] = [];
  input.forEach((id: unknown, i) => {
    if (!isId(id)) errors.push({ field: `ids[${i}]`, message: 'must be a positive whole number' });
  });
  if (errors.length > 0) throw new ValidationError(errors);
  return [...new Set(input as number[])];
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

