/**
 * A table kept by triggers from some schema on, and filled for the rows from before it downwards
 * in slices after start: `below` (one row of its own table) is the id under which rows are not
 * taken in yet, 0 when done. New rows are taken in by the triggers whatever their id (after Clear
 * log ids start at 1 again), so a slice takes rows in with INSERT OR IGNORE, as they are now.
 */
import type { Db } from './database';
import { statement } from './statements';

export interface BackfillBelow {
  /** Whether every row is taken in: before, only those the triggers saw are. */
  ready(): boolean;
  /** Takes in up to `max` rows below the taken range, newest first, in one transaction; true when none is left. */
  backfill(max: number): boolean;
}

/**
 * `belowTable` holds `below`; `sliceSql` reads the rows with ids under it, newest first (params:
 * below, max); `take` takes a slice's rows in.
 */
export function backfillBelow<Row extends { id: number }>(db: Db, belowTable: string, sliceSql: string, take: (rows: Row[]) => void): BackfillBelow {
  const below = (): number => (statement(db, `SELECT below FROM ${belowTable}`).get() as { below: number }).below;
  return {
    ready: () => below() === 0,
    backfill: (max) =>
      db.transaction(() => {
        const from = below();
        if (from === 0) return true;
        const rows = statement(db, sliceSql).all(from, max) as Row[];
        take(rows);
        const low = rows.at(-1)?.id;
        const done = low === undefined || rows.length < max;
        statement(db, `UPDATE ${belowTable} SET below = ?`).run(done ? 0 : low);
        return done;
      })(),
  };
}
