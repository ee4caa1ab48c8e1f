/**
 * hookbench/client vs @segment/analytics-node: 100,000 track calls into one local HTTP server.
 *
 *   node --import tsx bench/client.bench.ts [runs per client and workload, default 2]
 *
 * The parent process runs the server (answers 200 {"success":true} after reading and parsing each
 * body, counting batch items). Each measured run is a fresh child process running one client, so
 * peak memory (resourceUsage().maxRSS, plus sampled heapUsed) is per client and not polluted by the
 * other client or the server. Runs alternate ours/theirs. Same batch size for both: flushAt 100.
 *
 * Two workloads: "paced" (1,000 calls, then yield to the event loop) and "tight" (one synchronous loop;
 * our client is given maxQueueSize 100,000 there, since nothing can be sent before the loop ends).
 * Per run: enqueue rate (calls/s of the synchronous loop of 100,000 calls), end-to-end rate
 * (100,000 / time from the first call until the server has received the last message), peak memory.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const N = 100_000;
const FLUSH_AT = 100;
const WRITE_KEY = 'wk_bench';
type Which = 'hookbench-client' | 'analytics-node';
type Mode = 'tight' | 'paced';
const PACE_CHUNK = 1000;

interface ChildResult {
  which: Which;
  t0: number;
  enqueueMs: number;
  closedMs: number;
  maxRssKb: number;
  peakHeapUsed: number;
  errors: number;
}

interface RunResult extends ChildResult {
  received: number;
  e2eMs: number;
}

const now = (): number => performance.timeOrigin + performance.now();

async function child(which: Which, mode: Mode, url: string): Promise<void> {
  let peakHeap = 0;
  const sample = (): void => {
    const h = process.memoryUsage().heapUsed;
    if (h > peakHeap) peakHeap = h;
  };
  const sampler = setInterval(sample, 5);
  let errors = 0;
  let track: (i: number) => void;
  let close: () => Promise<void>;
  if (which === 'hookbench-client') {
    const { Analytics } = await import('hookbench/client');
    const client = new Analytics({
      writeKey: WRITE_KEY,
      endpoint: url,
      flushAt: FLUSH_AT,
      flushAfter: 10_000,
      maxQueueSize: N, // the loop is synchronous: nothing can be sent before it ends
      maxRetries: 3,
      onError: () => errors++,
    });
    track = (i) =>
      client.track({
        userId: `user-${i % 1000}`,
        event: 'Order Completed',
        properties: { orderId: i, revenue: 12.5, currency: 'USD', sku: 'SKU-12345' },
      });
    close = () => client.close();
  } else {
    const { Analytics } = await import('@segment/analytics-node');
    const client = new Analytics({
      writeKey: WRITE_KEY,
      host: url,
      flushAt: FLUSH_AT,
      flushInterval: 10_000,
      maxRetries: 3,
      httpRequestTimeout: 10_000,
    });
    client.on('error', () => errors++);
    track = (i) =>
      client.track({
        userId: `user-${i % 1000}`,
        event: 'Order Completed',
        properties: { orderId: i, revenue: 12.5, currency: 'USD', sku: 'SKU-12345' },
      });
    close = () => client.closeAndFlush({ timeout: 60_000 });
  }
  const t0 = now();
  let enqueueMs: number;
  if (mode === 'tight') {
    for (let i = 0; i < N; i++) track(i);
    enqueueMs = now() - t0;
  } else {
    // paced: 1,000 calls, then yield to the event loop (as a server handling requests would)
    enqueueMs = 0;
    for (let i = 0; i < N; ) {
      const s = now();
      for (const end = i + PACE_CHUNK; i < end; i++) track(i);
      enqueueMs += now() - s;
      await new Promise<void>((r) => setImmediate(r));
    }
  }
  sample();
  await close();
  const closedMs = now() - t0;
  sample();
  clearInterval(sampler);
  const result: ChildResult = {
    which,
    t0,
    enqueueMs,
    closedMs,
    maxRssKb: process.resourceUsage().maxRSS,
    peakHeapUsed: peakHeap,
    errors,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function parent(): Promise<void> {
  const runsPerClient = Number(process.argv[2] ?? 2);
  let received = 0;
  let lastAt = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { batch?: unknown[] };
      received += body.batch?.length ?? 0;
      lastAt = now();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"success":true}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const self = fileURLToPath(import.meta.url);
  const started = Date.now();
  const modes: Mode[] = ['paced', 'tight'];
  const results: (RunResult & { mode: Mode })[] = [];
  console.log(
    `node ${process.version}, ${N.toLocaleString('en-US')} track calls per run, flushAt ${FLUSH_AT} for both, ` +
      `one fresh child process per run (clients alternate), ${runsPerClient} run(s) per client per workload`,
  );
  console.log(`  paced = ${PACE_CHUNK} calls then yield to the event loop (setImmediate); tight = one synchronous loop of ${N.toLocaleString('en-US')} calls`);
  for (const mode of modes) {
    console.log(`\nworkload: ${mode}`);
    for (let run = 0; run < runsPerClient; run++) {
      for (const which of ['hookbench-client', 'analytics-node'] as const) {
        if (Date.now() - started > 100_000) {
          console.log('  time budget reached; skipping a run');
          continue;
        }
        received = 0;
        lastAt = 0;
        const out = await new Promise<string>((resolve, reject) => {
          const p = spawn(process.execPath, ['--import', 'tsx', self, '--child', which, mode, url], { stdio: ['ignore', 'pipe', 'inherit'] });
          let text = '';
          p.stdout.on('data', (c: Buffer) => (text += c.toString()));
          const killer = setTimeout(() => p.kill('SIGKILL'), 60_000);
          p.on('error', reject);
          p.on('exit', (code) => {
            clearTimeout(killer);
            if (code === 0) resolve(text);
            else reject(new Error(`${which} child exited with ${String(code)}`));
          });
        });
        const r = JSON.parse(out.trim().split('\n').pop() ?? '{}') as ChildResult;
        const res = { ...r, mode, received, e2eMs: lastAt - r.t0 };
        results.push(res);
        console.log(
          `  run ${run + 1} ${which.padEnd(16)} enqueue ${fmt(N / (res.enqueueMs / 1000))} calls/s, ` +
            `end-to-end ${fmt(N / (res.e2eMs / 1000))} msg/s (${res.e2eMs.toFixed(0)} ms, received ${received}), ` +
            `maxRSS ${(res.maxRssKb / 1024).toFixed(1)} MB, peak heapUsed ${(res.peakHeapUsed / 2 ** 20).toFixed(1)} MB, errors ${res.errors}`,
        );
        if (received !== N) console.log(`  !! ${which}: server received ${received} of ${N}`);
      }
    }
  }
  server.close();
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const m = Math.floor(s.length / 2);
    return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
  };
  const summary = (which: Which, mode: Mode): { enqueue: number; e2e: number; rssMb: number; heapMb: number } => {
    const rs = results.filter((r) => r.which === which && r.mode === mode);
    return {
      enqueue: median(rs.map((r) => N / (r.enqueueMs / 1000))),
      e2e: median(rs.map((r) => N / (r.e2eMs / 1000))),
      rssMb: median(rs.map((r) => r.maxRssKb / 1024)),
      heapMb: median(rs.map((r) => r.peakHeapUsed / 2 ** 20)),
    };
  };
  const row = (label: string, a: number, b: number, unit: string): void =>
    console.log(`  ${label.padEnd(26)}${`${fmt(a)} ${unit}`.padStart(17)}${`${fmt(b)} ${unit}`.padStart(17)}${`${(a / b).toFixed(2)}x`.padStart(14)}`);
  for (const mode of modes) {
    const ours = summary('hookbench-client', mode);
    const theirs = summary('analytics-node', mode);
    console.log(`\n${`${mode}: median of runs`.padEnd(28)}hookbench-client   analytics-node   ours/theirs`);
    row('enqueue rate', ours.enqueue, theirs.enqueue, 'calls/s');
    row('end-to-end rate', ours.e2e, theirs.e2e, 'msg/s');
    row('peak RSS (maxRSS)', ours.rssMb, theirs.rssMb, 'MB');
    row('peak heapUsed (sampled)', ours.heapMb, theirs.heapMb, 'MB');
  }
  console.log(`total bench time ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

function fmt(x: number): string {
  return x >= 1000 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1);
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] as Which, process.argv[4] as Mode, process.argv[5] ?? '');
} else {
  await parent();
}
