/**
 * Counts with a text filter on a seeded log, read-only, as the read worker runs them (a
 * measurement, not one of the `npm run bench` rows):
 *
 *   node --import tsx bench/count.measure.ts [data folder, default the 10M seed's] [runs, default 20]
 *
 * Opens the folder's hookbench.sqlite with a read-only connection (nothing is written to it, so a
 * cached seed can be measured in place), then times countDeliveries' read for the needles of
 * `npm run bench scale` (a user per run, as its "count with a text filter" row) and for needles
 * picked to be hard: common trigrams with few or no matches, a dense needle, a time range. Prints
 * the median and p99 of each, and what the last call answered.
 */
import { join } from 'node:path';
import { atOnce, createDeliveryReads, parseDeliveryFilter } from '../src-main/engine/api/deliveries';
import { inReadSnapshot, openReadOnly } from '../src-main/engine/store/database';
import { DeliveryViewStore } from '../src-main/engine/store/delivery-views';
import type { DeliveryCounts, DeliveryFilter } from '../src-shared/api';
import { usersFor } from './support/seed';

const DIR = process.argv[2] ?? 'bench/.cache/scale-10000000-seed2/data';
const RUNS = Number(process.argv[3] ?? 20);

const db = openReadOnly(join(DIR, 'hookbench.sqlite'));
const views = new DeliveryViewStore(db);
const reads = createDeliveryReads(views, atOnce);
const messages = (db.prepare('SELECT MAX(id) AS n FROM messages').get() as { n: number }).n;
const newest = (db.prepare('SELECT MAX(created_at) AS t FROM deliveries').get() as { t: number }).t;
const someUser = (k: number): string => `user_${(k * 37 + 11) % usersFor(messages)}`;

const rows: [string, (k: number) => DeliveryFilter][] = [
  ['a user (the scale bench row)', (k) => ({ text: someUser(k + 1) })],
  ['an event on many messages (capped)', () => ({ text: 'Completed' })],
  ['a user prefix on many messages', () => ({ text: 'user_4' })],
  ['common trigrams, no match', (k) => ({ text: k % 2 ? 'Product Completed' : 'Viewed Order' })],
  ['common trigrams, rare match', (k) => ({ text: `er_${(k * 7919) % 50_000}` })],
  ['a long needle', (k) => ({ text: `Order Completed by user_${(k * 37 + 11) % usersFor(messages)} of anon` })],
  ['no match', (k) => ({ text: `nobody-${k}` })],
  ['a user, last hour', (k) => ({ text: someUser(k + 1), from: new Date(newest - 3_600_000).toISOString() })],
  ['a user, failed', (k) => ({ text: someUser(k + 1), status: 'failed' })],
];

const fmt = (ms: number): string => `${ms.toFixed(2)} ms`;
const answer = (c: DeliveryCounts): string => `${c.matching}${c.capped ? ' capped' : ''}${c.searchedTo ? ` since ${c.searchedTo}` : ''}`;
console.log(`counts with a text filter on ${messages.toLocaleString('en-US')} messages (${DIR}), ${RUNS} runs each, after one not counted`);
for (const [name, filterOf] of rows) {
  const took: number[] = [];
  let last: DeliveryCounts | null = null;
  for (let k = -1; k < RUNS; k++) {
    const f = parseDeliveryFilter(filterOf(Math.max(0, k)));
    const t = performance.now();
    last = await inReadSnapshot(db, () => reads.count(f));
    if (k >= 0) took.push(performance.now() - t);
  }
  took.sort((a, b) => a - b);
  const at = (q: number): number => took[Math.min(took.length - 1, Math.ceil(q * took.length) - 1)] ?? NaN;
  console.log(`${name.padEnd(40)} median ${fmt(at(0.5)).padStart(10)}  p99 ${fmt(at(0.99)).padStart(10)}  last: ${last === null ? '' : answer(last)}`);
}
db.close();
