/**
 * The log's pruning SQL: removing messages with what hangs off them (deliveries, replays,
 * attempts), and old requests with their dropped items, always children first since foreign keys
 * are on. Used by retention (small slices, oldest first), by "Clear log" and by a deletion's purge.
 *
 * A delivery that is pending, in flight or retrying is never removed, nor is its message (the
 * scheduler reads the message's JSON at the first round) nor the request of that message.
 * Deliveries not made from a message (delete notices and their replays) are never touched here:
 * they are the deletion requests' record.
 */
import type { Db } from './database';
import { statements } from './statements';

export const ACTIVE_STATUSES = ['pending', 'in_flight', 'retrying'] as const;
const ACTIVE = `('pending', 'in_flight', 'retrying')`;

export interface RemovedMessages {
  messages: number;
  deliveries: number;
  attempts: number;
  /** The deliveries removed, so the views can drop them. */
  deliveryIds: number[];
}

export interface SliceLimits {
  /** Rows received at or after this instant stay. */
  cutoff: number;
  /** Messages above this id stay (the profiles have not read them yet). */
  maxMessageId: number;
  /** At most this many messages, and this many requests, are looked at. */
  limit: number;
  /** Scan positions: start after these ids (0 = from the oldest). */
  afterMessageId: number;
  afterRequestId: number;
}

export interface SliceResult extends RemovedMessages {
  requests: number;
  droppedItems: number;
  requestIds: number[];
  /** Requests test receivers got, removed by the same cutoff (the oldest first, at most `limit`). */
  receiverRequests: number;
  /**
   * Where the next slice should start: the last id looked at while there may be more to look at,
   * 0 once the scan reached rows too new to go (so it starts over from the oldest next time).
   */
  nextMessageId: number;
  nextRequestId: number;
}

export interface PageUsage {
  pageSize: number;
  pageCount: number;
  freePages: number;
  /** 0 none, 1 full, 2 incremental. */
  autoVacuum: number;
}

const ids = (rows: { id: number }[]): number[] => rows.map((r) => r.id);

interface ScanRow {
  id: number;
  at: number;
  /** 1 while something still needs the row. */
  busy: number;
}

/**
 * Oldest first, up to the first row that is too new to go (ids grow with time, so the rest are
 * newer still): the rows that may go, and where the next scan starts (0 = from the oldest again).
 */
function walk(rows: ScanRow[], limit: number, old: (r: ScanRow) => boolean): { doomed: number[]; next: number } {
  const doomed: number[] = [];
  for (const row of rows) {
    if (!old(row)) return { doomed, next: 0 };
    if (row.busy === 0) doomed.push(row.id);
  }
  return { doomed, next: rows.length < limit ? 0 : (rows[rows.length - 1]?.id ?? 0) };
}

export class RetentionStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      deliveryIdsOf: 'SELECT id FROM deliveries WHERE message_id IN (SELECT value FROM json_each(?))',
      deleteAttempts: 'DELETE FROM attempts WHERE delivery_id IN (SELECT value FROM json_each(?))',
      // Replays carry their original's message_id, so a delivery and its replays go in one
      // statement (replay_of is checked at the statement's end).
      deleteDeliveries: 'DELETE FROM deliveries WHERE id IN (SELECT value FROM json_each(?))',
      deleteMessages: 'DELETE FROM messages WHERE id IN (SELECT value FROM json_each(?))',
      // Walks messages by id (never a full scan for a time filter): ids grow with received_at.
      messageScan: `SELECT m.id, m.received_at AS at,
           EXISTS (SELECT 1 FROM deliveries d WHERE d.message_id = m.id AND d.status IN ${ACTIVE}) AS busy
         FROM messages m WHERE m.id > ? ORDER BY m.id LIMIT ?`,
      requestScan: `SELECT r.id, r.received_at AS at, EXISTS (SELECT 1 FROM messages m WHERE m.request_id = r.id) AS busy
         FROM requests r WHERE r.id > ? ORDER BY r.id LIMIT ?`,
      deleteDroppedOf: 'DELETE FROM dropped_items WHERE request_id IN (SELECT value FROM json_each(?))',
      deleteRequests: 'DELETE FROM requests WHERE id IN (SELECT value FROM json_each(?))',
      // A receiver request still waiting for its answer is kept until it has one.
      deleteReceiverRequests: `DELETE FROM receiver_requests WHERE id IN
         (SELECT id FROM receiver_requests WHERE received_at < ? AND outcome <> 'pending' ORDER BY id LIMIT ?)`,
      oldest: `SELECT (SELECT received_at FROM messages ORDER BY id LIMIT 1) AS message, (SELECT received_at FROM requests ORDER BY id LIMIT 1) AS request`,
      // Two seeks on the rowid, one subquery each (SQLite seeks a lone MIN or MAX only): an upper
      // bound of the messages, since ids removed by purges are gaps.
      messageSpan: 'SELECT COALESCE((SELECT MAX(id) FROM messages) - (SELECT MIN(id) FROM messages) + 1, 0) AS n',
      active: `SELECT COUNT(*) AS n FROM deliveries WHERE status IN ${ACTIVE}`,
      counts: `SELECT (SELECT COUNT(*) FROM requests) AS requests, (SELECT COUNT(*) FROM messages) AS messages,
           (SELECT COUNT(*) FROM deliveries) AS deliveries, (SELECT COUNT(*) FROM deliveries WHERE status IN ${ACTIVE}) AS activeDeliveries`,
    });
  }

  /**
   * Removes these messages, every delivery made from them (replays included, whatever their
   * status: the caller decides which messages may go) and their attempts. Inside the caller's
   * transaction.
   */
  removeMessages(messageIds: readonly number[]): RemovedMessages {
    if (messageIds.length === 0) return { messages: 0, deliveries: 0, attempts: 0, deliveryIds: [] };
    const messages = JSON.stringify(messageIds);
    const deliveryIds = ids(this.s.deliveryIdsOf.all(messages) as { id: number }[]);
    const list = JSON.stringify(deliveryIds);
    const attempts = this.s.deleteAttempts.run(list).changes;
    const deliveries = this.s.deleteDeliveries.run(list).changes;
    return { messages: this.s.deleteMessages.run(messages).changes, deliveries, attempts, deliveryIds };
  }

  /**
   * One short transaction: the oldest messages (at most `limit` looked at) that are older than the
   * cutoff, already read by the profiles and have no active delivery go with their deliveries and
   * attempts; then the oldest requests older than the cutoff that no longer have messages go with
   * their dropped items. `removing` is told the messages first, in the same transaction, for what
   * other rooms built from them.
   */
  slice(l: SliceLimits, removing: (messageIds: number[]) => void = () => {}): SliceResult {
    return this.db.transaction((): SliceResult => {
      const messages = walk(this.s.messageScan.all(l.afterMessageId, l.limit) as ScanRow[], l.limit, (r) => r.at < l.cutoff && r.id <= l.maxMessageId);
      removing(messages.doomed);
      const removed = this.removeMessages(messages.doomed);
      const requests = walk(this.s.requestScan.all(l.afterRequestId, l.limit) as ScanRow[], l.limit, (r) => r.at < l.cutoff);
      const list = JSON.stringify(requests.doomed);
      const droppedItems = requests.doomed.length > 0 ? this.s.deleteDroppedOf.run(list).changes : 0;
      const removedRequests = requests.doomed.length > 0 ? this.s.deleteRequests.run(list).changes : 0;
      const receiverRequests = this.s.deleteReceiverRequests.run(l.cutoff, l.limit).changes;
      return {
        ...removed,
        requests: removedRequests,
        droppedItems,
        requestIds: requests.doomed,
        receiverRequests,
        nextMessageId: messages.next,
        nextRequestId: requests.next,
      };
    })();
  }

  /** When the oldest message and the oldest request were received (null when there is none). */
  oldest(): { message: number | null; request: number | null } {
    return this.s.oldest.get() as { message: number | null; request: number | null };
  }

  /** About how many messages the log holds, without counting them: the span of their ids. */
  messageSpan(): number {
    return (this.s.messageSpan.get() as { n: number }).n;
  }

  activeDeliveries(): number {
    return (this.s.active.get() as { n: number }).n;
  }

  counts(): { requests: number; messages: number; deliveries: number; activeDeliveries: number } {
    return this.s.counts.get() as { requests: number; messages: number; deliveries: number; activeDeliveries: number };
  }

  usage(): PageUsage {
    return {
      pageSize: this.db.pragma('page_size', { simple: true }) as number,
      pageCount: this.db.pragma('page_count', { simple: true }) as number,
      freePages: this.db.pragma('freelist_count', { simple: true }) as number,
      autoVacuum: this.db.pragma('auto_vacuum', { simple: true }) as number,
    };
  }

  /** Gives up to `pages` free pages back to the file system (auto_vacuum = INCREMENTAL only); 0 = all. */
  releaseFreePages(pages: number): void {
    this.db.pragma(pages > 0 ? `incremental_vacuum(${Math.floor(pages)})` : 'incremental_vacuum');
  }
}
