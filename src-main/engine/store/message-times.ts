/**
 * Every message's time of receipt, by time then id (schema 29): the assertions' `since` and
 * `until` find the messages within them here, reading the log's rows only for those. Triggers
 * keep it as messages come and go; a log from before it is taken in downwards in slices after
 * start, and the table is read only once that is done (`ready`).
 */
import type { Db } from './database';
import { backfillBelow, type BackfillBelow } from './backfill-below';
import { statement } from './statements';

export function messageTimeStore(db: Db): BackfillBelow {
  return backfillBelow<{ id: number; received_at: number }>(
    db,
    'message_times_backfill',
    'SELECT id, received_at FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?',
    (rows) => {
      const take = statement(db, 'INSERT OR IGNORE INTO message_times (received_at, id) VALUES (?, ?)');
      for (const r of rows) take.run(r.received_at, r.id);
    },
  );
}
