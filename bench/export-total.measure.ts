/**
 * The first page of an export on a seeded log, as Deliveries' and Inbound's Export… ask for it:
 * for each format and filter, how long the call took, the items and the total it answered (the
 * matching count, absent when it could not be counted in a moment), and the longest the engine's
 * event loop went without a turn meanwhile (libuv's delay monitor, 1 ms resolution): what an
 * ingest request arriving then would have waited.
 *
 *   node --import tsx bench/export-total.measure.ts <data folder of a seeded log>
 *
 * It only reads (the engine opens the folder; use a copy if another engine may want it).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
const dir = process.argv[2];
if (!dir) throw new Error('usage: export-total.measure.ts <data folder>');
const engine = createEngine({ dataDir: dir });
engine.start();
const api = createEngineApi(engine);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
await sleep(1000);
for (const [name, call] of [
  ['export ndjson, no filter', () => api.exportMessages({ format: 'ndjson' })],
  ['export ndjson, type track', () => api.exportMessages({ format: 'ndjson', filter: { type: 'track' } })],
  ['export ndjson, event', () => api.exportMessages({ format: 'ndjson', filter: { event: 'Order Completed' } })],
  ['export har', () => api.exportMessages({ format: 'har' })],
] as const) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await sleep(20);
  const t = performance.now();
  const r = (await (call as () => Promise<unknown>)()) as { items: number; total?: number };
  const took = performance.now() - t;
  await sleep(20);
  loop.disable();
  console.log(`  ${name.padEnd(28)}: ${took.toFixed(1)} ms; ${r.items} items, total ${r.total ?? '(none)'}; longest event-loop stall ${(loop.max / 1e6).toFixed(1)} ms`);
}
await engine.stop();
