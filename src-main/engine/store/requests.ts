import type { Db } from './database';
import type { DroppedItem, MessageRow } from './log-store';
import { requestBodyText } from './request-body-pack';
import { statement, statements } from './statements';

/** A row of the requests table: one Tracking API call, accepted or refused. */
export interface RequestRow {
  id: number;
  source_id: number | null;
  path: string;
  received_at: number;
  http_status: number;
  bytes: number;
  items: number;
  accepted: number;
  dropped: number;
  duplicates: number;
  user_agent: string | null;
  error_code: string | null;
  error_text: string | null;
}

/** A call with what was kept of it as received. */
export interface RequestDetailRow extends RequestRow {
  headers: string | null;
  body: string | null;
  body_clipped: number;
}

/** Inbound's filters as the store takes them: times in ms, every field optional. */
export interface RequestQueryFilter {
  status?: 'accepted' | 'refused';
  sourceId?: number;
  path?: string;
  fromMs?: number;
  toMs?: number;
}

/** The list's columns: the kept headers and body stay out of pages and are read one call at a time. */
const LIST_COLUMNS = `id, source_id, path, received_at, http_status, bytes, items, accepted, dropped, duplicates, user_agent, error_code, error_text`;

/** The WHERE terms of a filter, with their parameters. Pure. */
export function requestFilterSql(f: RequestQueryFilter): { terms: string[]; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  // Every refusal is stored with its error code (an unknown write key is answered 200 but refused).
  if (f.status === 'accepted') terms.push('error_code IS NULL');
  if (f.status === 'refused') terms.push('error_code IS NOT NULL');
  if (f.sourceId !== undefined) {
    terms.push('source_id = ?');
    params.push(f.sourceId);
  }
  if (f.path !== undefined && f.path !== '') {
    terms.push("instr(lower(path), lower(?)) > 0");
    params.push(f.path);
  }
  if (f.fromMs !== undefined) {
    terms.push('received_at >= ?');
    params.push(f.fromMs);
  }
  if (f.toMs !== undefined) {
    terms.push('received_at < ?');
    params.push(f.toMs);
  }
  return { terms, params };
}

/** Tracking API requests as the Inbound view reads them: the calls, what each made, what each dropped. */
export class RequestStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      page: `SELECT ${LIST_COLUMNS} FROM requests WHERE id < ? ORDER BY id DESC LIMIT ?`,
      detail: 'SELECT * FROM requests WHERE id = ?',
      // Calls are logged in clock order, so the id range of a time range is found by two seeks on its index.
      firstAtOrAfter: 'SELECT id FROM requests WHERE received_at >= ? ORDER BY received_at, id LIMIT 1',
      lastBefore: 'SELECT id FROM requests WHERE received_at < ? ORDER BY received_at DESC, id DESC LIMIT 1',
      messagesOf: `SELECT id, message_id, type, user_id, anonymous_id, event, received_at, json, warnings, violations
        FROM messages WHERE request_id = ? ORDER BY id LIMIT ?`,
      deliveriesOfMessage: 'SELECT id FROM deliveries WHERE message_id = ? ORDER BY id',
      droppedOf: 'SELECT item_index, kind, reason, raw FROM dropped_items WHERE request_id = ? ORDER BY id',
    });
  }

  /** Newest first, keyset-paged: pass the last id of a page as beforeId for the next. */
  page(beforeId: number, limit: number): RequestRow[] {
    return this.s.page.all(beforeId, limit) as RequestRow[];
  }

  /**
   * A filtered page, newest first, keyset-paged like page(). With oldest, the first page from the
   * start of the log instead (read ascending, returned newest first), cheap at any size.
   */
  filteredPage(f: RequestQueryFilter, beforeId: number, limit: number, oldest = false): RequestRow[] {
    let low = 1;
    let high = beforeId;
    if (f.fromMs !== undefined || f.toMs !== undefined) {
      // A time range becomes an id range first, so neither end reads the calls outside it.
      const range = this.idRangeOf(f.fromMs, f.toMs);
      if (range === null) return [];
      low = range.low;
      high = Math.min(high, range.high + 1);
    }
    const { terms, params } = requestFilterSql(f);
    const where = ['id < ?', 'id >= ?', ...terms].join(' AND ');
    const sql = `SELECT ${LIST_COLUMNS} FROM requests WHERE ${where} ORDER BY id ${oldest ? 'ASC' : 'DESC'} LIMIT ?`;
    const rows = statement(this.db, sql).all(high, low, ...params, limit) as RequestRow[];
    return oldest ? rows.reverse() : rows;
  }

  /** The ids a time range spans: [low, high], or null when no call falls in it. */
  idRangeOf(fromMs: number | undefined, toMs: number | undefined): { low: number; high: number } | null {
    const low = fromMs === undefined ? 1 : (this.s.firstAtOrAfter.get(fromMs) as { id: number } | undefined)?.id;
    const high = toMs === undefined ? Number.MAX_SAFE_INTEGER : (this.s.lastBefore.get(toMs) as { id: number } | undefined)?.id;
    if (low === undefined || high === undefined || low > high) return null;
    return { low, high };
  }

  /** A call with what was kept of it, its body as text whichever form its row holds. */
  detail(id: number): RequestDetailRow | null {
    const row = this.s.detail.get(id) as (Omit<RequestDetailRow, 'body'> & { body: string | Buffer | null; body_format: number }) | undefined;
    if (!row) return null;
    const { body, body_format, ...rest } = row;
    return { ...rest, body: body === null ? null : requestBodyText(body, body_format) };
  }

  /** The first `limit` messages of a call, oldest first. */
  messagesOf(requestId: number, limit: number): MessageRow[] {
    return this.s.messagesOf.all(requestId, limit) as MessageRow[];
  }

  /** Every delivery made from a message, replays included (they carry their original's message). */
  deliveryIdsOfMessage(messageRowId: number): number[] {
    return (this.s.deliveriesOfMessage.all(messageRowId) as { id: number }[]).map((d) => d.id);
  }

  droppedItemsOf(requestId: number): DroppedItem[] {
    return (
      this.s.droppedOf.all(requestId) as { item_index: number; kind: 'invalid' | 'duplicate'; reason: string; raw: string }[]
    ).map((r) => ({ index: r.item_index, kind: r.kind, reason: r.reason, raw: r.raw }));
  }
}
