import type { Db } from './database';
import type { DroppedItem, MessageRow } from './log-store';
import { statements } from './statements';

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

/** Tracking API requests as the Inbound view reads them: the calls, what each made, what each dropped. */
export class RequestStore {
  private readonly s;

  constructor(db: Db) {
    this.s = statements(db, {
      page: 'SELECT * FROM requests WHERE id < ? ORDER BY id DESC LIMIT ?',
      messagesOf: `SELECT id, message_id, type, user_id, anonymous_id, event, received_at, json, warnings, violations
        FROM messages WHERE request_id = ? ORDER BY id`,
      deliveriesOfMessage: 'SELECT id FROM deliveries WHERE message_id = ? ORDER BY id',
      deliveriesOfRequest: 'SELECT d.id FROM messages m JOIN deliveries d ON d.message_id = m.id WHERE m.request_id = ? ORDER BY d.id',
      droppedOf: 'SELECT item_index, kind, reason, raw FROM dropped_items WHERE request_id = ? ORDER BY id',
    });
  }

  /** Newest first, keyset-paged: pass the last id of a page as beforeId for the next. */
  page(beforeId: number, limit: number): RequestRow[] {
    return this.s.page.all(beforeId, limit) as RequestRow[];
  }

  messagesOf(requestId: number): MessageRow[] {
    return this.s.messagesOf.all(requestId) as MessageRow[];
  }

  /** Every delivery made from a message, replays included (they carry their original's message). */
  deliveryIdsOfMessage(messageRowId: number): number[] {
    return (this.s.deliveriesOfMessage.all(messageRowId) as { id: number }[]).map((d) => d.id);
  }

  deliveryIdsOfRequest(requestId: number): number[] {
    return (this.s.deliveriesOfRequest.all(requestId) as { id: number }[]).map((d) => d.id);
  }

  droppedItemsOf(requestId: number): DroppedItem[] {
    return (
      this.s.droppedOf.all(requestId) as { item_index: number; kind: 'invalid' | 'duplicate'; reason: string; raw: string }[]
    ).map((r) => ({ index: r.item_index, kind: r.kind, reason: r.reason, raw: r.raw }));
  }
}
