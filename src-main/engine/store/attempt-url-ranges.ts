/**
 * The range of delivery ids each attempt URL was attempted for (schema 31): a URL filter whose
 * needle only attempts carry reads only the deliveries inside the ranges of the URLs it matches.
 * The insert trigger keeps the ranges of new attempts; the attempts of a log from before are taken
 * in downwards in slices after start, and a range is trusted only once that is done (`ready`).
 */
import type { Db } from './database';
import { backfillBelow, type BackfillBelow } from './backfill-below';
import { statement } from './statements';

export interface DeliveryIdRange {
  low: number;
  high: number;
}

/** Pure: the lowest and highest delivery id per URL among these attempts. */
export function rangesByUrl(attempts: readonly { url: string; delivery_id: number }[]): Map<string, DeliveryIdRange> {
  const out = new Map<string, DeliveryIdRange>();
  for (const a of attempts) {
    const r = out.get(a.url);
    if (r === undefined) out.set(a.url, { low: a.delivery_id, high: a.delivery_id });
    else {
      if (a.delivery_id < r.low) r.low = a.delivery_id;
      if (a.delivery_id > r.high) r.high = a.delivery_id;
    }
  }
  return out;
}

export function attemptUrlRangeStore(db: Db): BackfillBelow {
  return backfillBelow<{ id: number; url: string; delivery_id: number }>(
    db,
    'attempt_url_backfill',
    'SELECT id, url, delivery_id FROM attempts WHERE id < ? ORDER BY id DESC LIMIT ?',
    (rows) => {
      // Widens, as the trigger does: the range may already hold attempts made since the upgrade.
      const widen = statement(
        db,
        `INSERT INTO attempt_urls (url, first_delivery, last_delivery) VALUES (@url, @low, @high)
         ON CONFLICT (url) DO UPDATE SET first_delivery = MIN(COALESCE(first_delivery, excluded.first_delivery), excluded.first_delivery),
           last_delivery = MAX(COALESCE(last_delivery, excluded.last_delivery), excluded.last_delivery)`,
      );
      for (const [url, r] of rangesByUrl(rows)) widen.run({ url, low: r.low, high: r.high });
    },
  );
}
