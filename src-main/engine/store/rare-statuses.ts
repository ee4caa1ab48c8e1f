/**
 * The deliveries in a rare status (schema 28): retrying, failed or discarded. Most deliveries go
 * pending, in flight, succeeded; the few that go wrong are what a test asks about ("the failed
 * deliveries of Order Completed"), and without a list of them such a question reads the
 * deliveries until it has found enough. Triggers keep the list as rows come, move and go; a log
 * from before it is listed downwards from `below` in slices after start, and the list is read
 * only once that is done (`ready`).
 */
import type { DeliveryStatus } from './log-store';
import type { Db } from './database';
import { statements } from './statements';

/** The statuses listed: the same three as the triggers of schema 28. */
export const RARE_STATUSES = ['retrying', 'failed', 'discarded'] as const satisfies readonly DeliveryStatus[];
export type RareStatus = (typeof RARE_STATUSES)[number];

export const isRareStatus = (status: DeliveryStatus): status is RareStatus => (RARE_STATUSES as readonly DeliveryStatus[]).includes(status);

export class RareStatusStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      below: 'SELECT below FROM rare_status_backfill',
      setBelow: 'UPDATE rare_status_backfill SET below = ?',
      slice: 'SELECT id, status, message_id FROM deliveries WHERE id < ? ORDER BY id DESC LIMIT ?',
      list: 'INSERT OR IGNORE INTO rare_status_deliveries (status, id, message_id) VALUES (?, ?, ?)',
    });
  }

  /** Whether every delivery is listed: before, only the deliveries the triggers saw are. */
  ready(): boolean {
    return (this.s.below.get() as { below: number }).below === 0;
  }

  /**
   * Lists the rare ones among up to `max` deliveries below the listed range, newest first, in one
   * transaction; true when none is left. A delivery that moved meanwhile was listed or unlisted by
   * the triggers; each row's status is read here as it is now, so both agree.
   */
  backfill(max: number): boolean {
    return this.db.transaction(() => {
      const below = (this.s.below.get() as { below: number }).below;
      if (below === 0) return true;
      const rows = this.s.slice.all(below, max) as { id: number; status: DeliveryStatus; message_id: number | null }[];
      for (const r of rows) if (isRareStatus(r.status)) this.s.list.run(r.status, r.id, r.message_id);
      const low = rows.at(-1)?.id;
      const done = low === undefined || rows.length < max;
      this.s.setBelow.run(done ? 0 : low);
      return done;
    })();
  }
}
