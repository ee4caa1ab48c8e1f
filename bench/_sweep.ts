import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
const engine = createEngine({ dataDir: '/tmp/n10/data' });
engine.start();
const api = createEngineApi(engine);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
await sleep(500);
await api.listProfiles({ limit: 1 });
const aud = await api.saveAudience({ name: 'Sweep', space: 'scale', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed', atLeast: 1 } });
const calls: [string, () => Promise<unknown>][] = [
  ['getStorage', () => api.getStorage()],
  ['getHealth', () => api.getHealth()],
  ['getEnvironment', () => api.getEnvironment()],
  ['listComputations', () => api.listComputations()],
  ['listSyncs', () => api.listSyncs(aud.id)],
  ['listRequests path', () => api.listRequests({ path: 'sync', limit: 50 })],
  ['listRequests', () => api.listRequests({ limit: 50 })],
  ['listDeletions', () => api.listDeletions()],
  ['listReceivers', () => api.listReceivers()],
  ['getProfile user_1', () => api.getProfile('user_1')],
  ['countDeliveriesByStatus', () => api.countDeliveriesByStatus()],
  ['getTrackingPlan', () => api.getTrackingPlan()],
  ['listSources', () => api.listSources()],
  ['listDestinations', () => api.listDestinations()],
  ['deleteComputation', () => api.deleteComputation(aud.id)],
];
for (const [name, call] of calls) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await sleep(20);
  const t = performance.now();
  const r = await call();
  const took = performance.now() - t;
  await sleep(10);
  loop.disable();
  console.log(`${name.padEnd(24)} ${took.toFixed(1).padStart(8)} ms  stall ${(loop.max / 1e6).toFixed(1).padStart(7)} ms  ${(JSON.stringify(r) ?? '').length} bytes`);
}
await engine.stop();
