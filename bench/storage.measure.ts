/**
 * The data folder under load, against a real `hookbench serve` (a measurement, not one of the
 * `npm run bench` ratios):
 *
 *   node --import tsx bench/storage.measure.ts [seconds of load, default 20] [clients, default 8]
 *
 * 1. Refused flood: 200 calls with a 490 KB unknown write key; the folder before and after.
 * 2. Ingest load: 8 clients (or as many as given) post batches of 100 tracks (about 30 KB) as fast as the server answers,
 *    with a destination attached (a local receiver answering 200) and a 16 MB size cap; the
 *    database file and its WAL are sampled every 200 ms. Prints the ingest rate, the ingest
 *    latency (p50, p99, max: a WAL truncation or a retention slice must not stall it), the WAL
 *    size in the second half of the run (steady state), the largest database file, and how soon
 *    after the load the file is back under the cap.
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Receiver } from '../src-main/engine/testing/receiver';
import { startServe } from '../src-main/serve/testing/process';

const SECONDS = Number(process.argv[2] ?? 20);
const CLIENTS = Number(process.argv[3] ?? 8);
const size = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
const folderBytes = (dir: string): number => readdirSync(dir).reduce((n, f) => n + size(join(dir, f)), 0);
const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;

const receiver = await new Receiver().start();
const dir = mkdtempSync(join(tmpdir(), 'hookbench-storage-bench-'));
const config = join(dir, 'hookbench.json');
writeFileSync(
  config,
  JSON.stringify({
    sources: [{ name: 'bench', writeKey: 'wk_bench' }],
    destinations: [{ name: 'sink', sources: ['bench'], webhooks: [{ url: receiver.url }] }],
    retention: { megabytes: 16 },
  }),
);
const data = join(dir, 'data');
const serve = await startServe(['--config', config, '--data-dir', data, '--port', '0']);
const db = join(data, 'hookbench.sqlite');
try {
  const body = JSON.stringify({ writeKey: 'k'.repeat(490_000), batch: [] });
  const before = folderBytes(data);
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) await (await fetch(`${serve.url}/v1/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer();
  const after = folderBytes(data);
  console.log(`refused flood: 200 calls with a 490 KB unknown write key in ${((performance.now() - t0) / 1000).toFixed(1)} s; folder ${mb(before)} → ${mb(after)} (${after - before >= 0 ? '+' : ''}${((after - before) / 1024).toFixed(0)} KB)`);
  const filler = 'x'.repeat(200);
  const auth = `Basic ${Buffer.from('wk_bench:').toString('base64')}`;
  const samples: { t: number; wal: number; db: number }[] = [];
  const latencies: number[] = [];
  let sent = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  const sampler = setInterval(() => samples.push({ t: performance.now() - start, wal: size(`${db}-wal`), db: size(db) }), 200);
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let k = 0; performance.now() < end; k++) {
        const batch = Array.from({ length: 100 }, (_, i) => ({ type: 'track', userId: `u${i}`, event: 'Bench', messageId: `${c}-${k}-${i}`, properties: { filler } }));
        const t = performance.now();
        const res = await fetch(`${serve.url}/v1/batch`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
        if (res.status === 200) sent += 100;
      }
    }),
  );
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  const steady = samples.filter((s) => s.t > (SECONDS * 1000) / 2).map((s) => s.wal).sort((a, b) => a - b);
  console.log(`ingest (${CLIENTS} clients): ${sent} messages in ${SECONDS} s (${Math.round(sent / SECONDS)}/s); latency p50 ${pct(latencies, 50).toFixed(1)} ms, p99 ${pct(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`);
  console.log(`WAL in the second half: median ${mb(pct(steady, 50))}, max ${mb(steady.at(-1) ?? 0)}; largest database file ${mb(Math.max(...samples.map((s) => s.db)))} (cap 16 MB)`);
  // Ingest faster than slices remove pushes the file past the cap; once it eases, retention brings it back.
  const eased = performance.now();
  while (size(db) > 16 * 1024 * 1024 && performance.now() - eased < 60_000) await new Promise((r) => setTimeout(r, 200));
  console.log(`after the load: database file ${mb(size(db))}, WAL ${mb(size(`${db}-wal`))}, ${((performance.now() - eased) / 1000).toFixed(1)} s after it stopped`);

} finally {
  serve.child.kill('SIGINT');
  await serve.exited;
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
