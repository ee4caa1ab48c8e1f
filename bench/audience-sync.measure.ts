/**
 * An audience created on a seeded log, as a user makes one in the Audiences room: saving it
 * evaluates every profile and sends every member (an identify call each, to the space's
 * destinations). It prints how long the call took, how many members were sent, and the longest
 * the engine's event loop went without a turn meanwhile (libuv's delay monitor, 1 ms resolution):
 * what an ingest request arriving then would have waited. Then the same for "Sync now" once
 * nothing has changed, and for deleting the audience.
 *
 *   cp -r bench/.cache/scale-1000000-seed2/data /tmp/copy   (after `npm run bench scale`)
 *   node --import tsx bench/audience-sync.measure.ts /tmp/copy
 *
 * It writes to the folder (an audience and its identify calls): use a copy.
 */
import { createEngineApi } from '../src-main/engine/api';
import { fmt } from './support/load';
import { engineOnSeededCopy } from './support/seeded-engine';
import { withLongestStall } from './support/stall';

const dir = process.argv[2];
if (!dir) throw new Error('usage: audience-sync.measure.ts <data folder (a copy)>');

const { engine, config, close } = await engineOnSeededCopy(dir);
const api = createEngineApi(engine);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
// The profiles' first call catches them up with the log (off the engine's thread).
await api.listProfiles({ limit: 1 });
await sleep(500);
const space = config.sources[0]?.name;
if (!space) throw new Error('the scale config has no source');

async function timed<T>(what: string, call: () => Promise<T>, describe: (r: T) => string): Promise<T> {
  const { result, ms, stallMs } = await withLongestStall(call, 50);
  console.log(`  ${what.padEnd(34)}: ${fmt(ms, 1)} ms; ${describe(result)}; longest event-loop stall ${fmt(stallMs, 1)} ms`);
  return result;
}

console.log(`an audience on the log in ${dir}`);
const audience = await timed(
  'create (the initial sync)',
  () => api.saveAudience({ name: 'Bought once', space, syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed', atLeast: 1 } }),
  (c) => `${fmt(c.lastSync?.sent ?? 0)} members sent`,
);
await timed('sync now, nothing changed', () => api.syncComputation(audience.id), (s) => `${fmt(s.sent)} sent`);
await timed('delete', () => api.deleteComputation(audience.id), () => 'deleted');
await close();
