/**
 * Every message's time of receipt, by time then id (schema 29): the assertions' `since` and
 * `until` find the messages within them here, reading the log's rows only for those. The
 * engine's follow-up takes each commit's messages in with the tallies (`takeIn`), so the table
 * holds the ids the tallies hold up to their `through`; a removal takes entries out by trigger;
 * a log from before it is taken in downwards in slices after start, and the table is read only
 * once that is done (`ready`).
 */
import type { Db } from './database';
import { backfillBelow, type BackfillBelow } from './backfill-below';
import { statement } from './statements';

/** A message's entry, in the table's column order. */
const COLUMNS = 'received_at, id, source_id, type, event, violations IS NOT NULL AS violating';

export interface MessageTimeStore extends BackfillBelow {
  /** Takes in the messages with ids in (afterId, throughId]: the follow-up's, as they are tallied. */
  takeIn(afterId: number, throughId: number): void;
}

export function messageTimeStore(db: Db): MessageTimeStore {
  const backfill = backfillBelow<{ id: number; received_at: number; source_id: number; type: string; event: string | null; violating: number }>(
    db,
    'message_times_backfill',
    `SELECT ${COLUMNS} FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?`,
    (rows) => {
      const take = statement(db, 'INSERT OR IGNORE INTO message_times (received_at, id, source_id, type, event, violating) VALUES (?, ?, ?, ?, ?, ?)');
      for (const r of rows) take.run(r.received_at, r.id, r.source_id, r.type, r.event, r.violating);
    },
  );
  return {
    ...backfill,
    takeIn: (afterId, throughId) => {
      statement(db, `INSERT OR IGNORE INTO message_times (received_at, id, source_id, type, event, violating) SELECT ${COLUMNS} FROM messages WHERE id > ? AND id <= ?`).run(
        afterId,
        throughId,
      );
    },
  };
}
