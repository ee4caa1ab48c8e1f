/**
 * The Deliveries view's filters that no index serves (violations, a URL, a type, replays), each a
 * page and a count through the engine's API on a seeded log, twice (a process just started, then
 * again), with what each answered: whole, capped, or how far it got (a measurement, not one of the
 * `npm run bench` ratios). Each call reads the log for at most READ_BUDGET_MS; a log whose newest
 * deliveries match none of these (a load after the seed, as after a walk with ingest running)
 * shows what the budget costs: the answer comes in several calls.
 *
 *   node --import tsx bench/deliveries-filters.measure.ts <data folder of a seeded log (a copy: written to)>
 */
import { createEngineApi } from '../src-main/engine/api';
import { engineOnSeededCopy } from './support/seeded-engine';

const dir = process.argv[2];
if (!dir) throw new Error('usage: deliveries-filters.measure.ts <data folder (a copy)>');
const { engine, close } = await engineOnSeededCopy(dir);
const api = createEngineApi(engine);
const calls: [string, () => Promise<unknown>][] = [
  ['page, violations (any)', () => api.listDeliveries({ violations: 'any', limit: 100 })],
  ['count, violations (any)', () => api.countDeliveries({ violations: 'any' })],
  ['page, violations (none)', () => api.listDeliveries({ violations: 'none', limit: 100 })],
  ['count, violations (none)', () => api.countDeliveries({ violations: 'none' })],
  ['page, a URL of old attempts', () => api.listDeliveries({ url: 'hooks.example', limit: 100 })],
  ['count, a URL of old attempts', () => api.countDeliveries({ url: 'hooks.example' })],
  ['page, type identify', () => api.listDeliveries({ type: 'identify', limit: 100 })],
  ['count, type identify', () => api.countDeliveries({ type: 'identify' })],
  ['page, identify and retrying', () => api.listDeliveries({ type: 'identify', status: ['retrying'], limit: 100 })],
  ['count, identify and retrying', () => api.countDeliveries({ type: 'identify', status: ['retrying'] })],
  ['page, failed and replayed', () => api.listDeliveries({ status: ['failed'], replayed: true, limit: 100 })],
  ['count, failed and replayed', () => api.countDeliveries({ status: ['failed'], replayed: true })],
  ['count, failed and never replayed', () => api.countDeliveries({ status: ['failed'], replayed: false })],
];
for (const pass of ['first calls after start', 'the same calls again']) {
  console.log(`the Deliveries view's filters on the log in ${dir}, ${pass}`);
  for (const [name, call] of calls) {
    const t = performance.now();
    const result = (await call()) as { items?: unknown[]; partial?: { searchedTo: string } } & Record<string, unknown>;
    const ms = performance.now() - t;
    const said = result.items
      ? `${result.items.length} rows${result.partial ? `, read down to ${result.partial.searchedTo}` : ''}`
      : JSON.stringify(result);
    console.log(`  ${name.padEnd(36)} ${ms.toFixed(1).padStart(9)} ms  ${said}`);
  }
}
await close();
