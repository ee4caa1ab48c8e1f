/**
 * The engine API's small calls on a seeded log, the ones the scale benchmark does not time (the
 * views' side calls: storage, health, computations and their syncs, deletions, receivers, the
 * tracking plan, a profile), with an audience of every buyer in place as a user would have one:
 * for each, how long it took, how big its answer was, and the longest the engine's event loop went
 * without a turn meanwhile (libuv's delay monitor, 1 ms resolution). A sweep for calls that grew
 * with the log: each found one is fixed and measured on its own (whole-log-calls, inbound-detail,
 * audience-sync).
 *
 *   node --import tsx bench/api-sweep.measure.ts <data folder of a seeded log (a copy: written to)>
 *
 * The audience's identify calls are delivered to a local receiver; the audience is deleted at the end.
 */
import { createEngineApi } from '../src-main/engine/api';
import { engineOnSeededCopy } from './support/seeded-engine';
import { withLongestStall } from './support/stall';

const dir = process.argv[2];
if (!dir) throw new Error('usage: api-sweep.measure.ts <data folder (a copy)>');
const { engine, config, close } = await engineOnSeededCopy(dir);
const api = createEngineApi(engine);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
await sleep(500);
await api.listProfiles({ limit: 1 });
const space = config.sources[0]?.name ?? 'scale';
const audience = await api.saveAudience({ name: 'Sweep', space, syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed', atLeast: 1 } });
const calls: [string, () => Promise<unknown>][] = [
  ['getStorage', () => api.getStorage()],
  ['getHealth', () => api.getHealth()],
  ['getEnvironment', () => api.getEnvironment()],
  ['listComputations', () => api.listComputations()],
  ['listSyncs', () => api.listSyncs(audience.id)],
  ['listRequests, path filter', () => api.listRequests({ path: 'sync', limit: 50 })],
  ['listRequests', () => api.listRequests({ limit: 50 })],
  ['listDeletions', () => api.listDeletions()],
  ['listReceivers', () => api.listReceivers()],
  ['getProfile user_1', () => api.getProfile('user_1')],
  ['countDeliveriesByStatus', () => api.countDeliveriesByStatus()],
  ['getTrackingPlan', () => api.getTrackingPlan()],
  ['listSources', () => api.listSources()],
  ['listDestinations', () => api.listDestinations()],
  ['deleteComputation', () => api.deleteComputation(audience.id)],
];
console.log(`the API's side calls on the log in ${dir}, with an audience of ${audience.size} members`);
for (const [name, call] of calls) {
  const { result, ms, stallMs } = await withLongestStall(call);
  console.log(`  ${name.padEnd(26)} ${ms.toFixed(1).padStart(8)} ms; ${(JSON.stringify(result) ?? '').length} bytes; longest event-loop stall ${stallMs.toFixed(1)} ms`);
}
await close();
