/**
 * Latency at a steady 1,000 messages/s (batches of 10 every 10 ms, for 10 s): ingest-to-first-
 * attempt from the log's own rows (p50, p99), and end to end from the client's send to the
 * receiver's arrival, split into its three legs. The baseline is the same client posting straight
 * to the receiver. Client and receiver run in worker threads. The WAL file's size is sampled every
 * 10 ms under load.
 *
 * Both paths first run a second at the same rate that is not counted in the steady figures (JIT,
 * first connections, first pages of a new log: what any process pays once); that second is
 * printed on its own line, so the cold start stays visible.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { listen } from '../src-main/serve/server';
import { fmt, percentile, RECEIVER_WORKER, runWorker } from './support/load';
import { localCertificate } from './support/tls';
import { LogInspector } from '../src-main/engine/store/inspect';

const require = createRequire(import.meta.url);
const RATE = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARM_SECONDS = Number(process.env.BENCH_WARM_SECONDS ?? 1);
const PER_TICK = 10;
/** messageIds sent during the warm-up start with this; the steady run's with `lat-`. */
const WARM = 'warm-';

/** Posts PER_TICK messages every 10 ms; records each message's send time. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require(workerData.undici);
const { url, path, ticks, warmTicks, perTick, auth, raw, ca } = workerData;
const pool = new Pool(url, { connections: 4, ...(ca ? { connect: { ca } } : {}) });
const sent = [];
let seq = 0, inflight = 0, failures = 0;
const start = performance.now();
let tick = 0;
function fire() {
  const batch = [];
  const prefix = tick <= warmTicks ? 'warm-' : 'lat-';
  for (let k = 0; k < perTick; k++) batch.push({ type: 'track', userId: 'u', event: 'E', messageId: prefix + seq++ });
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
  if (tick >= warmTicks + ticks) {
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

/** Send-to-arrival times, in ms, of the messages whose id starts with `prefix`, sorted. */
function endToEnd(sent: [string, number][], arrivals: Map<string, number>, prefix: string): number[] {
  return sent.filter(([id]) => id.startsWith(prefix)).map(([id, t]) => (arrivals.get(id) ?? NaN) - t).filter((d) => !Number.isNaN(d)).sort((a, b) => a - b);
}

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
const p50p99 = (xs: number[]): string => `p50 ${fmt(percentile(xs, 50))} ms, p99 ${fmt(percentile(xs, 99))} ms, max ${fmt(xs.at(-1) ?? NaN)} ms`;

const ticks = (RATE / PER_TICK) * SECONDS;
const warmTicks = (RATE / PER_TICK) * WARM_SECONDS;
const auth = `Basic ${Buffer.from('wk_lat:').toString('base64')}`;
const dir = mkdtempSync(join(tmpdir(), 'hookbench-bench-latency-'));
// RECEIVER_TLS=1: the receiver (and the baseline's) answers over TLS with a certificate the
// engine and the baseline client trust as their CA, as a receiver behind https would.
const tls = process.env.RECEIVER_TLS === '1' ? await localCertificate() : null;
const scheme = tls ? 'https' : 'http';
const baselineReceiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: true, tls: tls && { key: tls.key, cert: tls.cert } });
const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: true, tls: tls && { key: tls.key, cert: tls.cert } });
try {
  // Baseline: the same client, each message posted straight to a receiver.
  const { port: basePort } = await baselineReceiver.result;
  const base = runWorker<{ sent: [string, number][] }>(CLIENT, { url: `${scheme}://127.0.0.1:${basePort}`, path: '/hook', ticks, warmTicks, perTick: PER_TICK, auth, raw: true, undici: require.resolve('undici'), ca: tls?.ca });
  const baseSent = (await base.result).sent;
  const baseArrivals = await arrivalsOf(baselineReceiver.worker);
  const baseLat = endToEnd(baseSent, baseArrivals, 'lat-');
  const baseCold = endToEnd(baseSent, baseArrivals, WARM);

  const { port } = await receiver.result;
  // SENDER_THREAD=1: attempts sent from a thread of their own (delivery/sender-thread.ts), for comparison.
  const onThread = process.env.SENDER_THREAD === '1';
  const engine = createEngine({
    dataDir: dir,
    warmUpAtStart: process.env.WARM_UP !== '0',
    ...(tls ? { ca: tls.ca } : {}),
    ...(onThread ? { senderWorkerEntry: new URL('../src-main/engine/delivery/sender-worker.ts', import.meta.url) } : {}),
  });
  engine.applyConfig({
    sources: [{ name: 'lat', writeKey: 'wk_lat' }],
    destinations: [{ name: 'sink', enabled: true, sources: ['lat'], sharedSecret: 's', webhooks: [{ url: `${scheme}://127.0.0.1:${port}/hook`, headers: {} }] }],
  });
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0);
  // As the app and `hookbench serve` start it; WARM_UP=0 leaves the first traffic to compile the path.
  const warmUp = await engine.warmedUp();
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
  const client = runWorker<{ sent: [string, number][]; failures: number }>(CLIENT, { url: server.url, path: '/v1/batch', ticks, warmTicks, perTick: PER_TICK, auth, raw: false, undici: require.resolve('undici') });
  // The loop's delay and the WAL's size count from the end of the warm-up, like the latencies.
  let busySince = performance.eventLoopUtilization();
  const warmedUp = setTimeout(() => {
    busySince = performance.eventLoopUtilization();
    loopDelay.reset();
    walSizes.length = 0;
  }, WARM_SECONDS * 1000);
  const { sent, failures } = await client.result;
  clearTimeout(warmedUp);
  const busy = performance.eventLoopUtilization(busySince).utilization;
  loopDelay.disable();
  clearInterval(walSampler);
  walSizes.sort((a, b) => a - b);
  const deadline = Date.now() + 30_000;
  while ((engine.stores.log.countDeliveriesByStatus().succeeded ?? 0) < sent.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const arrivals = await arrivalsOf(receiver.worker);
  const e2e = endToEnd(sent, arrivals, 'lat-');
  const cold = endToEnd(sent, arrivals, WARM);
  await server.close();
  await engine.stop();
  // Each message's own rows: when its request committed (messages.received_at is stamped with the
  // commit) and when its first attempt started.
  const inspect = LogInspector.of(dir, { readonly: true });
  const rows = inspect.all<{ id: string; committed: number; created: number; started: number }>(
    `SELECT m.message_id AS id, m.received_at AS committed, d.created_at AS created, MIN(a.started_at) AS started
       FROM messages m JOIN deliveries d ON d.message_id = m.id JOIN attempts a ON a.delivery_id = d.id GROUP BY d.id`,
  );
  // Attempts that opened a connection (their timings name its phases; later ones reused it).
  const connections = inspect.all<{ warm: number; n: number }>(
    `SELECT substr(m.message_id, 1, ${WARM.length}) = '${WARM}' AS warm, COUNT(*) AS n FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
       JOIN messages m ON m.id = d.message_id WHERE a.timings LIKE '%"connectMs"%' GROUP BY 1`,
  );
  const opened = (warm: boolean): number => connections.find((c) => Boolean(c.warm) === warm)?.n ?? 0;
  inspect.close();
  const sentAt = new Map(sent);
  const steady = rows.filter((r) => r.id.startsWith('lat-'));
  const firstAttempt = sorted(steady.map((r) => r.started - r.created));
  const coldFirstAttempt = sorted(rows.filter((r) => r.id.startsWith(WARM)).map((r) => r.started - r.created));
  const toCommit = sorted(steady.map((r) => r.committed - (sentAt.get(r.id) ?? NaN)));
  const toArrival = sorted(steady.map((r) => (arrivals.get(r.id) ?? NaN) - r.started));
  const ratio = percentile(baseLat, 99) / percentile(e2e, 99);
  console.log(`latency  ${fmt(RATE)} messages/s for ${SECONDS} s after ${WARM_SECONDS} s of warm-up (${fmt(e2e.length)} messages, ${failures} failed requests), attempts sent ${onThread ? 'from the sending thread' : "from the engine's thread"}, receiver over ${scheme}`);
  console.log(`  ingest → first attempt (log rows)     : ${p50p99(firstAttempt)}   (goal p99 < 10 ms)`);
  console.log(`  client → receiver through Hookbench   : ${p50p99(e2e)}`);
  console.log(`    of which client → committed        : ${p50p99(toCommit)}`);
  console.log(`    of which attempt → receiver        : ${p50p99(toArrival)}`);
  console.log(`  client → receiver directly (baseline) : ${p50p99(baseLat)}`);
  console.log(`  ratio of p99s (baseline / Hookbench)  : ${fmt(ratio, 2)}   (goal ≥ 0.2: within 5× of posting directly)`);
  console.log(`  engine thread busy during load        : ${fmt(100 * busy)}% of the time`);
  console.log(`  engine event-loop delay during load    : p50 ${fmt(loopDelay.percentile(50) / 1e6, 1)} ms, p99 ${fmt(loopDelay.percentile(99) / 1e6, 1)} ms, max ${fmt(loopDelay.max / 1e6, 1)} ms`);
  console.log(`  WAL file size during load              : p50 ${fmt(percentile(walSizes, 50) / 2 ** 20, 1)} MiB, max ${fmt((walSizes.at(-1) ?? NaN) / 2 ** 20, 1)} MiB`);
  console.log(`  the warm-up second (cold start)        : first attempt ${p50p99(coldFirstAttempt)}; end to end ${p50p99(cold)}; directly ${p50p99(baseCold)}`);
  const coldRows = rows.filter((r) => r.id.startsWith(WARM));
  console.log(`    of which client → committed        : ${p50p99(sorted(coldRows.map((r) => r.committed - (sentAt.get(r.id) ?? NaN))))}`);
  console.log(`    of which attempt → receiver        : ${p50p99(sorted(coldRows.map((r) => (arrivals.get(r.id) ?? NaN) - r.started)))}`);
  // The whole run, cold second included, as a load test that starts with the engine would see it.
  const whole = sorted([...e2e, ...cold]);
  const baseWhole = sorted([...baseLat, ...baseCold]);
  const wholeFirst = sorted([...firstAttempt, ...coldFirstAttempt]);
  console.log(`  the whole run, warm-up included        : first attempt ${p50p99(wholeFirst)}; end to end ${p50p99(whole)}; directly ${p50p99(baseWhole)}; ratio of p99s ${fmt(percentile(baseWhole, 99) / percentile(whole, 99), 2)}`);
  console.log(`  the warm-up at start                   : ${warmUp ? `${fmt(warmUp.ms)} ms, ${warmUp.answered} of ${warmUp.sent} attempts answered` : 'none (WARM_UP=0)'}`);
  console.log(`  connections the engine opened          : ${fmt(opened(true))} in the warm-up second, ${fmt(opened(false))} after it`);
} finally {
  await baselineReceiver.worker.terminate();
  await receiver.worker.terminate();
  rmSync(dir, { recursive: true, force: true });
}
