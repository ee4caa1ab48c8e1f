/**
 * Latency at a steady 1,000 messages/s (batches of 10 every 10 ms, for 10 s): ingest-to-first-
 * attempt from the log's own rows (p50, p99), and end to end from the client's send to the
 * receiver's arrival. The baseline is the same client posting straight to the receiver.
 * Client and receiver run in worker threads. The WAL file's size is sampled every 10 ms under load.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { listen } from '../src-main/serve/server';
import { fmt, percentile, RECEIVER_WORKER, runWorker } from './support/load';
import { LogInspector } from '../src-main/engine/store/inspect';

const require = createRequire(import.meta.url);
const RATE = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PER_TICK = 10;

/** Posts PER_TICK messages every 10 ms; records each message's send time. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require(workerData.undici);
const { url, path, ticks, perTick, auth, raw } = workerData;
const pool = new Pool(url, { connections: 4 });
const sent = [];
let seq = 0, inflight = 0, failures = 0;
const start = performance.now();
let tick = 0;
function fire() {
  const batch = [];
  for (let k = 0; k < perTick; k++) batch.push({ type: 'track', userId: 'u', event: 'E', messageId: 'lat-' + seq++ });
  const now = Date.now();
  for (const m of batch) sent.push([m.messageId, now]);
  inflight += raw ? batch.length : 1;
  const bodies = raw ? batch.map((m) => JSON.stringify(m)) : [JSON.stringify({ batch })];
  for (const body of bodies) {
    pool.request({ path, method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body })
      .then(async (res) => { await res.body.text(); if (res.statusCode !== 200) failures++; })
      .catch(() => failures++)
      .finally(() => { inflight--; });
  }
}
function loop() {
  if (tick >= ticks) {
    const wait = () => inflight > 0 ? setTimeout(wait, 5) : pool.close().then(() => parentPort.postMessage({ sent, failures }));
    return wait();
  }
  tick++;
  fire();
  const nextAt = start + tick * 10;
  setTimeout(loop, Math.max(0, nextAt - performance.now()));
}
loop();
`;

async function arrivalsOf(receiver: import('node:worker_threads').Worker): Promise<Map<string, number>> {
  const reply = new Promise<{ arrivals: [number, string][] }>((resolve) => receiver.once('message', resolve));
  receiver.postMessage('arrivals');
  return new Map((await reply).arrivals.map(([t, id]) => [id, t]));
}

function endToEnd(sent: [string, number][], arrivals: Map<string, number>): number[] {
  return sent.map(([id, t]) => (arrivals.get(id) ?? NaN) - t).filter((d) => !Number.isNaN(d)).sort((a, b) => a - b);
}

const ticks = (RATE / PER_TICK) * SECONDS;
const auth = `Basic ${Buffer.from('wk_lat:').toString('base64')}`;
const dir = mkdtempSync(join(tmpdir(), 'hookbench-bench-latency-'));
const baselineReceiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: true });
const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: true });
try {
  // Baseline: the same client, each message posted straight to a receiver.
  const { port: basePort } = await baselineReceiver.result;
  const base = runWorker<{ sent: [string, number][] }>(CLIENT, { url: `http://127.0.0.1:${basePort}`, path: '/hook', ticks, perTick: PER_TICK, auth, raw: true, undici: require.resolve('undici') });
  const baseSent = (await base.result).sent;
  const baseLat = endToEnd(baseSent, await arrivalsOf(baselineReceiver.worker));

  const { port } = await receiver.result;
  const engine = createEngine({ dataDir: dir });
  engine.applyConfig({
    sources: [{ name: 'lat', writeKey: 'wk_lat' }],
    destinations: [{ name: 'sink', enabled: true, sources: ['lat'], sharedSecret: 's', webhooks: [{ url: `http://127.0.0.1:${port}/hook`, headers: {} }] }],
  });
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  const walPath = join(dir, 'hookbench.sqlite-wal');
  const walSizes: number[] = [];
  const walSampler = setInterval(() => {
    try {
      walSizes.push(statSync(walPath).size);
    } catch {
      walSizes.push(0);
    }
  }, 10);
  const client = runWorker<{ sent: [string, number][]; failures: number }>(CLIENT, { url: server.url, path: '/v1/batch', ticks, perTick: PER_TICK, auth, raw: false, undici: require.resolve('undici') });
  const { sent, failures } = await client.result;
  loopDelay.disable();
  clearInterval(walSampler);
  walSizes.sort((a, b) => a - b);
  const deadline = Date.now() + 30_000;
  while ((engine.stores.log.countDeliveriesByStatus().succeeded ?? 0) < sent.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const e2e = endToEnd(sent, await arrivalsOf(receiver.worker));
  await server.close();
  await engine.stop();
  const inspect = LogInspector.of(dir, { readonly: true });
  const firstAttempt = inspect
    .all<{ ms: number }>('SELECT MIN(a.started_at) - d.created_at AS ms FROM deliveries d JOIN attempts a ON a.delivery_id = d.id GROUP BY d.id')
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  inspect.close();
  console.log(`latency  ${fmt(RATE)} messages/s for ${SECONDS} s (${fmt(sent.length)} messages, ${failures} failed requests)`);
  console.log(`  ingest → first attempt (log rows)     : p50 ${fmt(percentile(firstAttempt, 50))} ms, p99 ${fmt(percentile(firstAttempt, 99))} ms, max ${fmt(firstAttempt.at(-1) ?? NaN)} ms   (goal p99 < 10 ms)`);
  console.log(`  client → receiver through Hookbench   : p50 ${fmt(percentile(e2e, 50))} ms, p99 ${fmt(percentile(e2e, 99))} ms (${fmt(e2e.length)} arrived)`);
  console.log(`  client → receiver directly (baseline) : p50 ${fmt(percentile(baseLat, 50))} ms, p99 ${fmt(percentile(baseLat, 99))} ms`);
  console.log(`  engine event-loop delay during load    : p50 ${fmt(loopDelay.percentile(50) / 1e6, 1)} ms, p99 ${fmt(loopDelay.percentile(99) / 1e6, 1)} ms, max ${fmt(loopDelay.max / 1e6, 1)} ms`);
  console.log(`  WAL file size during load              : p50 ${fmt(percentile(walSizes, 50) / 2 ** 20, 1)} MiB, max ${fmt((walSizes.at(-1) ?? NaN) / 2 ** 20, 1)} MiB`);
  console.log(`  ratio of p99s (baseline / Hookbench)  : ${fmt(percentile(baseLat, 99) / percentile(e2e, 99), 2)}   (goal ≥ 0.2: within 5× of posting directly)`);
} finally {
  await baselineReceiver.worker.terminate();
  await receiver.worker.terminate();
  rmSync(dir, { recursive: true, force: true });
}
