/**
 * Every message's time of receipt, by time then id (schema 29): the assertions' `since` and
 * `until` find the messages within them here, reading the log's rows only for those. The
 * engine's follow-up takes each commit's messages in with the tallies (`takeIn`), so the table
 * holds the ids the tallies hold up to their `through`; a removal takes entries out by trigger;
 * a log from before it is taken in oldest first in slices after start (so its pages fill as an
 * append's do), and the table is read only once that is done (`ready`).
 */
import type { Db } from './database';
import type { BackfillBelow } from './backfill-below';
import { statement } from './statements';

/** A message's entry, in the table's column order. */
const COLUMNS = 'received_at, id, source_id, type, event, violations IS NOT NULL AS violating';
const INSERT = 'INSERT OR IGNORE INTO message_times (received_at, id, source_id, type, event, violating)';

export interface MessageTimeStore extends BackfillBelow {
  /** Takes in the messages with ids in (afterId, throughId]: the follow-up's, as they are tallied. */
  takeIn(afterId: number, throughId: number): void;
}

export function messageTimeStore(db: Db): MessageTimeStore {
  const progress = (): { below: number; next: number } => statement(db, 'SELECT below, next FROM message_times_backfill').get() as { below: number; next: number };
  const takeIn = (afterId: number, throughId: number): void => {
    statement(db, `${INSERT} SELECT ${COLUMNS} FROM messages WHERE id > ? AND id <= ?`).run(afterId, throughId);
  };
  return {
    ready: () => progress().below === 0,
    backfill: (max) =>
      db.transaction(() => {
        const { below, next } = progress();
        if (below === 0) return true;
        const last = (statement(db, 'SELECT MAX(id) AS last FROM (SELECT id FROM messages WHERE id > ? AND id < ? ORDER BY id LIMIT ?)').get(next, below, max) as { last: number | null }).last;
        if (last !== null) takeIn(next, last);
        const done = last === null || last >= below - 1;
        statement(db, 'UPDATE message_times_backfill SET below = ?, next = ?').run(done ? 0 : below, last ?? next);
        return done;
      })(),
    takeIn,
  };
}
