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
import type { DeliveryQueryFilter, DeliveryQueryPage, DeliveryViewStore } from '../store/delivery-views';
import { toSummary } from './views';

/** Longest URL or text needle accepted: a search box, not a document. */
export const MAX_NEEDLE_LENGTH = 500;
const MAX_TYPE_LENGTH = 100;

export type ParsedFilter = DeliveryQueryFilter;
export type ParsedPage = DeliveryQueryPage;

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

export interface DeliveryQueries {
  list(page: unknown): PageResult<DeliverySummary>;
  summaries(ids: unknown): DeliverySummary[];
  count(filter: unknown): DeliveryCounts;
}

export function createDeliveryQueries(views: DeliveryViewStore): DeliveryQueries {
  return {
    list(input) {
      const p = parseDeliveryPage(input);
      const rows = views.page(p);
      const last = rows[rows.length - 1];
      return { items: rows.map(toSummary), nextBeforeId: rows.length === p.limit && last ? last.id : null };
    },
    summaries(input) {
      const ids = parseIds(input);
      if (ids.length === 0) return [];
      return views.byIds(ids).map(toSummary);
    },
    count(input) {
      return views.count(parseDeliveryFilter(input));
    },
  };
}
