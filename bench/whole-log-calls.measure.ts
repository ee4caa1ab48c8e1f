/**
 * Calls whose answers are about the whole log, on a seeded log: the first page of an export (its
 * total: the matching count) for each format and a few filters, as Deliveries' and Inbound's
 * Export… ask for it, and the tracking plan's view (the violation counts per call). For each, how
 * long the call took, what it answered, and the longest the engine's event loop went without a
 * turn meanwhile (libuv's delay monitor, 1 ms resolution): what an ingest request arriving then
 * would have waited.
 *
 *   node --import tsx bench/whole-log-calls.measure.ts <data folder of a seeded log>
 *
 * It only reads (the engine opens the folder; use a copy if another engine may want it).
 */
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
import { withLongestStall } from './support/stall';
const dir = process.argv[2];
if (!dir) throw new Error('usage: whole-log-calls.measure.ts <data folder>');
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
  ['tracking plan view', () => api.getTrackingPlan()],
] as const) {
  const { result, ms: took, stallMs } = await withLongestStall(call as () => Promise<unknown>);
  const r = result as { items?: number; total?: number; counts?: unknown[]; countedFrom?: string };
  const answered =
    r.counts === undefined
      ? `${r.items} items, total ${r.total ?? '(none)'}`
      : `${r.counts.length} calls with violations, counted ${r.countedFrom === undefined ? 'over the whole log' : `since ${r.countedFrom}`}`;
  console.log(`  ${name.padEnd(28)}: ${took.toFixed(1)} ms; ${answered}; longest event-loop stall ${stallMs.toFixed(1)} ms`);
}
await engine.stop();
