/**
 * The deliveries in a rare status (schema 28): retrying, failed or discarded. Most deliveries go
 * pending, in flight, succeeded; the few that go wrong are what a test asks about ("the failed
 * deliveries of Order Completed"), and without a list of them such a question reads the
 * deliveries until it has found enough. Triggers keep the list as rows move and go (a delivery
 * is always written pending); a log from before it is listed downwards in slices after start,
 * and the list is read only once that is done (`ready`). A slice reads each row's status as it
 * is now, so it and the triggers agree on a delivery that moves meanwhile.
 */
import type { DeliveryStatus } from './log-store';
import type { Db } from './database';
import { backfillBelow, type BackfillBelow } from './backfill-below';
import { statement } from './statements';

/** The statuses listed: the same three as the triggers of schema 28. */
export const RARE_STATUSES = ['retrying', 'failed', 'discarded'] as const satisfies readonly DeliveryStatus[];
export type RareStatus = (typeof RARE_STATUSES)[number];

export const isRareStatus = (status: DeliveryStatus): status is RareStatus => (RARE_STATUSES as readonly DeliveryStatus[]).includes(status);

export function rareStatusStore(db: Db): BackfillBelow {
  return backfillBelow<{ id: number; status: DeliveryStatus; message_id: number | null }>(
    db,
    'rare_status_backfill',
    'SELECT id, status, message_id FROM deliveries WHERE id < ? ORDER BY id DESC LIMIT ?',
    (rows) => {
      const list = statement(db, 'INSERT OR IGNORE INTO rare_status_deliveries (status, id, message_id) VALUES (?, ?, ?)');
      for (const r of rows) if (isRareStatus(r.status)) list.run(r.status, r.id, r.message_id);
    },
  );
}
