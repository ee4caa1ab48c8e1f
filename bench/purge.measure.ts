/**
 * Where a deletion with purge spends its time on a big log: a measurement, not one of the
 * `npm run bench` ratios.
 *
 *   node --import tsx bench/purge.measure.ts <data folder> [runs, default 20] [first user, default 1000]
 *
 * The data folder must be a COPY of a seeded scale log (bench/.cache/scale-<n>-seed2/data; the
 * runs purge users from it). Starts an engine on it with one destination and a receiver on
 * another thread, waits for the background work after start (the search index, the packing of
 * bodies, the profiles), then, as `npm run bench scale` does, asks for a deletion with purge of a
 * different seeded user per run and waits until it is forwarded and purged. For each run it
 * prints: the call; the wait until the scheduler reported the notice delivered; how long settling
 * the request held the thread then (before the purge ran in steps: the whole purge and its
 * commit); until purged as a poller saw it; the longest event-loop delay meanwhile (libuv's
 * timer, 1 ms resolution); and the footprint (the user's messages with their anonymous ones).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
import { listen } from '../src-main/serve/server';
import { fmt, percentile, RECEIVER_WORKER, runWorker } from './support/load';
import { scaleConfig, usersFor } from './support/seed';
import * as purgeModule from '../src-main/engine/deletion/purge';
import { upgradeCaughtUp } from './support/seeded-engine';

const PURGE_SIZING_OF_ENGINE = (purgeModule as { PURGE_SIZING?: { first: number; next(size: number, ms: number): number } }).PURGE_SIZING;

const dataDir = process.argv[2] ?? '';
const RUNS = Number(process.argv[3] ?? 20);
/** Where the users purged start (each run a later one): a second run on the same copy needs another. */
const FROM = Number(process.argv[4] ?? 1000);
if (!dataDir) throw new Error('usage: node --import tsx bench/purge.measure.ts <copy of a seeded data folder> [runs]');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The longest time the event loop went without a turn, as libuv's timer sees it (ms). */
function loopGaps(): { reset(): void; max(): number; stop(): void } {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  return { reset: () => h.reset(), max: () => h.max / 1e6, stop: () => h.disable() };
}

interface Run {
  call: number;
  untilDelivered: number;
  settleStretch: number;
  untilPurged: number;
  maxGap: number;
  messages: number;
}

async function main(): Promise<void> {
  const dbPath = `${dataDir}/hookbench.sqlite`;
  const probe = new Database(dbPath, { readonly: true });
  const count = (probe.prepare('SELECT MAX(id) AS n FROM messages').get() as { n: number }).n;
  probe.close();
  const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: false });
  const { port } = await receiver.result;
  // Each background step's time, as the purge's own sizing sees it (absent before steps existed).
  const steps: number[] = [];
  const sizing = PURGE_SIZING_OF_ENGINE;
  const engine = createEngine({ dataDir, ...(sizing ? { purgeSizing: { first: sizing.first, next: (size: number, ms: number) => (steps.push(ms), sizing.next(size, ms)) } } : {}) });
  engine.applyConfig(scaleConfig(`http://127.0.0.1:${port}/hook`));
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0);
  const api = createEngineApi(engine);
  await engine.personas.current();
  while (!upgradeCaughtUp(engine)) await sleep(50);
  console.log(`purge on ${dataDir}: ${fmt(count)} messages, ${fmt(usersFor(count))} users`);
  // The footprint, read on a connection of its own before each purge.
  const reader = new Database(dbPath, { readonly: true });
  const footprint = reader.prepare(`SELECT COUNT(*) AS n FROM messages WHERE user_id = @u OR (user_id IS NULL AND anonymous_id IN
    (SELECT anonymous_id FROM messages WHERE user_id = @u))`);

  // The notice's delivery is reported to the deletions room (deliveriesChanged), which settles
  // the request there and then: what that holds the thread for is timed around it.
  let delivered = 0;
  let stretch = 0;
  const deletions = engine.deletions;
  const changed = deletions.deliveriesChanged.bind(deletions);
  deletions.deliveriesChanged = (ids) => {
    const t = performance.now();
    changed(ids);
    const took = performance.now() - t;
    if (took > stretch) {
      stretch = took;
      delivered = t;
    }
  };

  const gaps = loopGaps();
  const users = usersFor(count);
  const runs: Run[] = [];
  const runSteps: number[] = [];
  for (let k = -1; k < RUNS; k++) {
    // Users ≡ 1 (mod 5) only ever sent anonymous calls in the seed: nothing to purge, skipped.
    let u = (FROM + k * 7) % users;
    if (u % 5 === 1) u = (u + 1) % users;
    const userId = `user_${u}`;
    const messages = (footprint.get({ u: userId }) as { n: number }).n;
    delivered = 0;
    stretch = 0;
    await sleep(20);
    gaps.reset();
    const t0 = performance.now();
    const d = await api.requestDeletion({ userId, purge: true });
    const call = performance.now() - t0;
    // The call runs on the engine's thread from start to answer: its time is its stall.
    gaps.reset();
    for (;;) {
      const r = engine.deletions.get(d.id);
      if (r && r.status === 'forwarded' && r.purgedAt !== null) break;
      if (performance.now() - t0 > 120_000) throw new Error(`deletion ${d.id} not purged in 120 s`);
      await sleep(1);
    }
    const untilPurged = performance.now() - t0;
    runSteps.push(Math.max(0, ...steps.splice(0)));
    // The delay monitor records a stall at its next tick, which may come after this one's.
    await sleep(5);
    if (k >= 0) runs.push({ call, untilDelivered: delivered - t0, settleStretch: stretch, untilPurged, maxGap: gaps.max(), messages });
  }
  gaps.stop();
  reader.close();

  const row = (label: string, pick: (r: Run) => number): void => {
    const xs = runs.map(pick).sort((a, b) => a - b);
    console.log(`${label.padEnd(50)} median ${fmt(percentile(xs, 50), 2).padStart(8)} ms  p99 ${fmt(percentile(xs, 99), 2).padStart(8)} ms`);
  };
  row('the call (requestDeletion)', (r) => r.call);
  row('call → notice reported delivered', (r) => r.untilDelivered);
  row('what settling it held the thread for', (r) => r.settleStretch);
  row('call → forwarded and purged (polled every 1 ms)', (r) => r.untilPurged);
  row('longest event-loop delay after it, until purged', (r) => r.maxGap);
  if (PURGE_SIZING_OF_ENGINE) {
    const xs = runSteps.slice(1).sort((a, b) => a - b);
    console.log(`${'longest background step of each purge'.padEnd(50)} median ${fmt(percentile(xs, 50), 2).padStart(8)} ms  p99 ${fmt(percentile(xs, 99), 2).padStart(8)} ms`);
  }
  const perMessage = runs.map((r) => r.untilPurged / Math.max(1, r.messages)).sort((a, b) => a - b);
  console.log(`footprint: ${fmt(runs.reduce((n, r) => n + r.messages, 0) / Math.max(1, runs.length), 1)} messages per user (mean); call → purged per message: median ${fmt(percentile(perMessage, 50) * 1000, 1)} µs`);
  await server.close();
  await engine.stop();
  await receiver.worker.terminate();
}

await main();
