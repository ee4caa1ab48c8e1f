/**
 * A URL filter whose needle only older attempts carry (the seed's receiver, `hooks.example`, after
 * the destination moved to a local one), below a stretch of newer deliveries: how many calls and
 * how long the Deliveries view's reads take to fill a page and to count, with each attempt URL's
 * range of deliveries (schema 31) and with the ranges set aside (as before them: every delivery's
 * attempts checked from the newest down, READ_BUDGET_MS a call). Also how long an upgraded log's
 * ranges took to fill after start (inside the catch-up time printed first).
 *
 *   node --import tsx bench/url-filter-depth.measure.ts <data folder of a seeded log (a copy: written to)> [newer deliveries, default 200000]
 */
import { createEngineApi } from '../src-main/engine/api';
import { LogInspector } from '../src-main/engine/store/inspect';
import type { DeliveryCounts, DeliveryFilter, DeliverySummary, PageResult } from '../src-shared/api';
import { seedDeliveries } from './support/seed';
import { engineOnSeededCopy } from './support/seeded-engine';

const dir = process.argv[2];
const NEWER = Number(process.argv[3] ?? 200_000);
if (!dir) throw new Error('usage: url-filter-depth.measure.ts <data folder (a copy)> [newer deliveries]');
const { engine, config, caughtUpMs, close } = await engineOnSeededCopy(dir);
console.log(`engine on ${dir}: what an upgraded log does after start (the attempt URLs' ranges among it) done in ${(caughtUpMs / 1000).toFixed(1)} s`);
const api = createEngineApi(engine);
const inspect = LogInspector.of(dir);
const newest = inspect.get<{ id: number }>('SELECT MAX(id) AS id FROM deliveries')?.id ?? 0;
const hasNewer = (inspect.get<{ n: number }>("SELECT COUNT(*) AS n FROM attempts WHERE delivery_id > ? - 1000 AND url LIKE '%127.0.0.1%'", newest)?.n ?? 0) > 0;
if (!hasNewer) {
  const t = performance.now();
  const url = config.destinations[0]?.webhooks[0]?.url ?? '';
  seedDeliveries(engine.stores.log, NEWER, { sourceId: 1, destinationId: 1, url, now: Date.now(), batch: 1000 });
  console.log(`added ${NEWER.toLocaleString('en-US')} newer deliveries attempted to ${url} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const range = inspect.get<{ low: number; high: number }>("SELECT first_delivery AS low, last_delivery AS high FROM attempt_urls WHERE url LIKE '%hooks.example%'");
console.log(`hooks.example was attempted for deliveries ${range?.low} to ${range?.high}; the log's newest is ${inspect.get<{ id: number }>('SELECT MAX(id) AS id FROM deliveries')?.id}`);

const filter: DeliveryFilter = { url: 'hooks.example' };
/** Pages as the view asks for them (going on where a partial read stopped) until 100 rows, or 400 calls. */
async function fill(): Promise<{ calls: number; ms: number; rows: number }> {
  const t = performance.now();
  let rows = 0;
  let calls = 0;
  let beforeId: number | undefined;
  while (rows < 100 && calls < 400) {
    const page = (await api.listDeliveries({ ...filter, limit: 100 - rows, ...(beforeId === undefined ? {} : { beforeId }) })) as PageResult<DeliverySummary>;
    calls++;
    rows += page.items.length;
    if (page.nextBeforeId === null) break;
    beforeId = page.nextBeforeId;
  }
  return { calls, ms: performance.now() - t, rows };
}
async function count(): Promise<{ ms: number; said: string }> {
  const t = performance.now();
  const c = (await api.countDeliveries(filter)) as DeliveryCounts;
  return { ms: performance.now() - t, said: `${c.matching}${c.capped ? '+' : ''}${c.searchedTo ? ` counted since ${c.searchedTo}` : ''}` };
}
for (const side of ['with the ranges', 'ranges set aside (as before)', 'with the ranges, again']) {
  inspect.exec(`UPDATE attempt_url_backfill SET below = ${side.startsWith('ranges set aside') ? 1 : 0}`);
  const page = await fill();
  const c = await count();
  console.log(`  ${side.padEnd(30)} a page of 100: ${page.rows} rows in ${page.calls} calls, ${page.ms.toFixed(0)} ms; the count: ${c.said} in ${c.ms.toFixed(1)} ms`);
}
inspect.close();
await close();
