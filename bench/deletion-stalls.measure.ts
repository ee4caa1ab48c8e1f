/**
 * Deletions with purge on a seeded log, one after another as the scale benchmark makes them: for
 * each, how long the call took, the longest the engine's event loop then went without a turn until
 * the request was forwarded and purged (libuv's delay monitor, 1 ms resolution), and how long that
 * took. On a log whose pages are not in memory the purge's steps meet the disk; this shows what the
 * engine's thread pays for it.
 *
 *   cp -r bench/.cache/scale-1000000-seed2/data /tmp/copy   (after `npm run bench scale`)
 *   node --import tsx bench/deletion-stalls.measure.ts /tmp/copy 1000000 [deletions]
 *
 * It writes to the folder (the users' messages go): use a copy.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngineApi } from '../src-main/engine/api';
import { usersFor } from './support/seed';
import { engineOnSeededCopy } from './support/seeded-engine';

const dir = process.argv[2];
const count = Number(process.argv[3]);
const deletions = Number(process.argv[4] ?? 40);
if (!dir || !Number.isFinite(count)) throw new Error('usage: deletion-stalls.measure.ts <data folder (a copy)> <messages in it> [deletions]');

const { engine, close } = await engineOnSeededCopy(dir);
const api = createEngineApi(engine);
// The users the scale benchmark deletes.
const someUser = (k: number): string => `user_${(k * 37 + 11) % usersFor(count)}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
// The read worker is started.
await api.countDeliveries({ text: 'start-the-read-worker' });
await sleep(500);
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const calls: number[] = [];
const stalls: number[] = [];
const purged: number[] = [];
for (let k = -1; k < deletions; k++) {
  const t = performance.now();
  const d = await api.requestDeletion({ userId: someUser(1000 + k), purge: true });
  const call = performance.now() - t;
  loop.reset();
  for (;;) {
    const x = engine.deletions.get(d.id);
    if (x && x.status === 'forwarded' && x.purgedAt !== null) break;
    await sleep(1);
  }
  const done = performance.now() - t;
  await sleep(5);
  // The first is not counted: code and statements warm up.
  if (k >= 0) {
    calls.push(call);
    purged.push(done);
    stalls.push(loop.max / 1e6);
  }
}
const at = (xs: number[], p: number): string => ([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN).toFixed(1);
console.log(
  `${deletions} deletions with purge: the call median ${at(calls, 0.5)}, p90 ${at(calls, 0.9)}, max ${at(calls, 1)} ms; ` +
    `longest stall after it median ${at(stalls, 0.5)}, p90 ${at(stalls, 0.9)}, max ${at(stalls, 1)} ms; ` +
    `until forwarded and purged median ${at(purged, 0.5)}, p90 ${at(purged, 0.9)} ms`,
);
await close();
