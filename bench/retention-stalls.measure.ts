/**
 * Retention pressing on the size cap of a seeded log, as when a user lowers the cap of a big log:
 * slices remove the oldest messages every few milliseconds while ingest goes on at 1,000 messages/s
 * (batches of 10 every 10 ms, from a client thread, each delivered to a local receiver). For a
 * the run after its first second it prints how long ingest waited for its acknowledgement, the longest the
 * engine's event loop went without a turn (libuv's delay monitor, 1 ms resolution), the WAL's
 * largest size and how many messages retention removed a second.
 *
 *   cp -r bench/.cache/scale-1000000-seed2/data /tmp/copy   (after `npm run bench scale`)
 *   node --import tsx bench/retention-stalls.measure.ts /tmp/copy [seconds, default 20] [cap: share of the data, default 0.9]
 *
 * It writes to the folder (the oldest messages go): use a copy.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fmt, percentile, runWorker } from './support/load';
import { engineOnSeededCopy } from './support/seeded-engine';
import { LogInspector } from '../src-main/engine/store/inspect';

const dir = process.argv[2];
const seconds = Number(process.argv[3] ?? 20);
const share = Number(process.argv[4] ?? 0.9);
if (!dir) throw new Error('usage: retention-stalls.measure.ts <data folder (a copy)> [seconds] [cap as a share of the data]');

/** Posts 10 messages every 10 ms for the given ticks; records each request's time to its answer. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, ticks, warmTicks, auth } = workerData;
const acks = [];
let inflight = 0, failures = 0, tick = 0, seq = 0;
const start = performance.now();
function loop() {
  if (tick >= warmTicks + ticks) {
    const wait = () => inflight > 0 ? setTimeout(wait, 5) : parentPort.postMessage({ acks, failures });
    return wait();
  }
  tick++;
  const batch = Array.from({ length: 10 }, () => ({ type: 'track', userId: 'retention-' + (seq % 500), event: 'Retention Load', messageId: 'ret-' + (seq++) + '-' + Math.random().toString(36).slice(2) }));
  const t = performance.now();
  const counted = tick > warmTicks;
  inflight++;
  fetch(url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) })
    .then(async (res) => { await res.text(); if (res.status !== 200) failures++; if (counted) acks.push(performance.now() - t); })
    .catch(() => failures++)
    .finally(() => { inflight--; });
  setTimeout(loop, Math.max(0, start + tick * 10 - performance.now()));
}
loop();
`;

const { engine, config, server, close } = await engineOnSeededCopy(dir);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
await sleep(500);
const status = engine.retention.status();
const megabytes = Math.floor((status.usedBytes / 2 ** 20) * share);
engine.applyConfig({ sources: [], destinations: [], retention: { ...engine.retentionSettings(), megabytes } });
const source = config.sources[0];
if (!source) throw new Error('the scale config has no source');
const auth = `Basic ${Buffer.from(`${source.writeKey}:`).toString('base64')}`;
const messageCount = (): number => {
  const inspect = LogInspector.of(dir, { readonly: true });
  try {
    return inspect.all<{ n: number }>('SELECT count(*) AS n FROM messages')[0]?.n ?? NaN;
  } finally {
    inspect.close();
  }
};
const messagesBefore = messageCount();
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const walPath = join(dir, 'hookbench.sqlite-wal');
let walMax = 0;
const walSampler = setInterval(() => {
  try {
    walMax = Math.max(walMax, statSync(walPath).size);
  } catch {
    // truncated away
  }
}, 10);
const t0 = performance.now();
const client = runWorker<{ acks: number[]; failures: number }>(CLIENT, { url: `${server.url}/v1/batch`, ticks: seconds * 100, warmTicks: 100, auth });
// The first second (the client's first connections, the code's first runs) is not counted.
const warmedUp = setTimeout(() => {
  loop.reset();
  walMax = 0;
}, 1_000);
const { acks, failures } = await client.result;
clearTimeout(warmedUp);
const elapsed = (performance.now() - t0) / 1000;
loop.disable();
clearInterval(walSampler);
const sent = (acks.length + 100) * 10;
const removed = messagesBefore + sent - messageCount();
acks.sort((a, b) => a - b);
console.log(`retention pressing on a cap of ${fmt(megabytes)} MB (${share} of ${fmt(status.usedBytes / 2 ** 20)} MB of data), ingest at 1,000 messages/s for ${seconds} s`);
console.log(`  ingest acknowledgement: p50 ${fmt(percentile(acks, 50), 1)} ms, p99 ${fmt(percentile(acks, 99), 1)} ms, max ${fmt(acks.at(-1) ?? NaN, 1)} ms (${fmt(acks.length)} requests, ${failures} failed)`);
console.log(`  event-loop delay: p99 ${fmt(loop.percentile(99) / 1e6, 1)} ms, max ${fmt(loop.max / 1e6, 1)} ms; WAL at most ${fmt(walMax / 2 ** 20, 1)} MiB`);
console.log(`  retention removed ${fmt(removed)} messages, ${fmt(removed / elapsed)} a second`);
await close();
