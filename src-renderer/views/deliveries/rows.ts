/**
 * The Deliveries list's rows as plain arrays, newest first: pure helpers the store applies once per
 * frame. Each returns the same array when nothing changed, so React skips the render.
 */
import { DELIVERY_STATUSES, type DeliveryDetail, type DeliveryFilter, type DeliveryStatus, type DeliverySummary } from '../../../src-shared/api';

/** The list row of a detail: the summary's fields only, so rows never carry bodies or attempts. */
export function summaryOf(d: DeliveryDetail | DeliverySummary): DeliverySummary {
  return {
    id: d.id,
    messageRowId: d.messageRowId,
    destinationId: d.destinationId,
    type: d.type,
    status: d.status,
    userId: d.userId,
    anonymousId: d.anonymousId,
    event: d.event,
    messageId: d.messageId,
    createdAt: d.createdAt,
    nextAttemptAt: d.nextAttemptAt,
    rounds: d.rounds,
    lastHttpStatus: d.lastHttpStatus,
    lastError: d.lastError,
    replayOf: d.replayOf,
    entries: d.entries,
    latencyMs: d.latencyMs,
    replays: d.replays,
    warp: d.warp,
    destinationName: d.destinationName,
    sourceName: d.sourceName,
    name: d.name,
    urls: d.urls,
    test: d.test,
    violations: d.violations,
  };
}

/** Rows whose id is in updates are replaced in place; others keep their identity. */
export function applyUpdates(rows: DeliverySummary[], updates: ReadonlyMap<number, DeliverySummary>): DeliverySummary[] {
  if (updates.size === 0) return rows;
  let out: DeliverySummary[] | null = null;
  for (let i = 0; i < rows.length; i++) {
    const next = updates.get((rows[i] as DeliverySummary).id);
    if (next) {
      out ??= rows.slice();
      out[i] = next;
    }
  }
  return out ?? rows;
}

/** Adds rows (newer or in between), newest first, each id once; an added row wins over an old one. */
export function insertRows(rows: DeliverySummary[], added: DeliverySummary[]): DeliverySummary[] {
  if (added.length === 0) return rows;
  const top = rows[0]?.id ?? 0;
  const sortedAdded = [...added].sort((a, b) => b.id - a.id);
  // The common live case: every added row is newer than the top one; no merge needed.
  if ((sortedAdded[sortedAdded.length - 1] as DeliverySummary).id > top) return [...dedupe(sortedAdded), ...rows];
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of sortedAdded) byId.set(r.id, r);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

function dedupe(sorted: DeliverySummary[]): DeliverySummary[] {
  return sorted.filter((r, i) => i === 0 || (sorted[i - 1] as DeliverySummary).id !== r.id);
}

/** Appends an older page below the rows, skipping ids already shown. */
export function appendOlder(rows: DeliverySummary[], older: DeliverySummary[]): DeliverySummary[] {
  const bottom = rows[rows.length - 1]?.id ?? Number.MAX_SAFE_INTEGER;
  const fresh = older.filter((r) => r.id < bottom);
  return fresh.length === 0 ? rows : [...rows, ...fresh];
}

/**
 * Bounds the rows kept in memory under a long live tail: drops the oldest beyond max, never a row
 * at or above keepThrough (the last row on screen plus a margin).
 */
export function trimRows(rows: DeliverySummary[], max: number, keepThrough: number): { rows: DeliverySummary[]; trimmed: boolean } {
  const keep = Math.max(max, keepThrough + 1);
  if (rows.length <= keep) return { rows, trimmed: false };
  return { rows: rows.slice(0, keep), trimmed: true };
}

/** The filter as sent: empty fields left out, statuses once each in the contract's order. */
export function filterParams(f: DeliveryFilter): DeliveryFilter {
  const out: DeliveryFilter = {};
  const statuses = statusesOf(f);
  if (statuses.length > 0) out.status = statuses;
  if (f.type) out.type = f.type;
  if (f.url) out.url = f.url;
  if (f.text) out.text = f.text;
  if (f.violations) out.violations = f.violations;
  if (f.from) out.from = f.from;
  if (f.to) out.to = f.to;
  return out;
}

export function statusesOf(f: DeliveryFilter): DeliveryStatus[] {
  const given = f.status === undefined ? [] : Array.isArray(f.status) ? f.status : [f.status];
  return DELIVERY_STATUSES.filter((s) => given.includes(s));
}

export function isFilterActive(f: DeliveryFilter): boolean {
  return Object.keys(filterParams(f)).length > 0;
}

/**
 * How many terms of the filter besides its text narrow the list (a time range counts once): what
 * the Filters button says on a narrow window, where those fields fold away behind it.
 */
export function foldedFilterCount(f: DeliveryFilter): number {
  const p = filterParams(f);
  return [p.status, p.type, p.url, p.violations, p.from ?? p.to].filter((v) => v !== undefined).length;
}
