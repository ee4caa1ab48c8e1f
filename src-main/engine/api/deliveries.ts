/**
 * The Deliveries view's queries (src-shared/api.ts: listDeliveries, getDeliverySummaries,
 * countDeliveries): filtered, keyset-paged, newest first. Params arrive from a transport, so each
 * is checked here and refused by field name whatever the static types say.
 */
import {
  DEFAULT_PAGE_LIMIT,
  type DeliveryCounts,
  type DeliveryFilter,
  type DeliverySummary,
  type PageResult,
} from '../../../src-shared/api';
import { parseOrThrow } from '../../../src-shared/settings';
import { deliveryFilterSchema, deliveryPageSchema, idsSchema } from './params';
import type { DeliveryQueryFilter, DeliveryQueryPage, DeliveryViewStore } from '../store/delivery-views';
import { toSummary } from './views';

export { MAX_NEEDLE_LENGTH } from './params';

export type ParsedFilter = DeliveryQueryFilter;
export type ParsedPage = DeliveryQueryPage;

/** Pure: the filter as the query needs it (an empty box narrows nothing, a status list has no repeats). */
function filterOf(f: DeliveryFilter): ParsedFilter {
  const some = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
  const statuses = f.status === undefined ? null : [...new Set(Array.isArray(f.status) ? f.status : [f.status])];
  return { statuses, type: some(f.type), url: some(f.url), text: some(f.text), violations: f.violations ?? null };
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
