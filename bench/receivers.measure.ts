/**
 * A test receiver that has taken many requests (a load test pointed at it): what a new request to
 * it costs, what listing the receivers costs, and what deleting it costs, each with the longest the
 * engine's event loop went without a turn meanwhile (libuv's delay monitor, 1 ms resolution): what
 * an ingest request arriving then would have waited.
 *
 *   node --import tsx bench/receivers.measure.ts [requests, default 1000000]
 *
 * The requests are written straight into a fresh engine's log (600-byte signed-delivery-sized
 * bodies) through a connection of its own; then 200 requests are posted to the receiver one after
 * another over HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
import { listen } from '../src-main/serve/server';
import { fmt, percentile } from './support/load';
import { withLongestStall } from './support/stall';

const N = Number(process.argv[2] ?? 1_000_000);
const POSTS = 200;
const dir = mkdtempSync(join(tmpdir(), 'hookbench-receivers-'));
try {
  const engine = createEngine({ dataDir: dir });
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0);
  const api = createEngineApi(engine);
  for (const name of ['loaded', 'other']) await api.saveReceiver({ name, responses: [{ status: 200 }] });
  // A connection of its own to the engine's file: WAL lets it write beside the engine.
  const db = new Database(join(dir, 'hookbench.sqlite'));
  db.pragma('busy_timeout = 5000');
  const id = (db.prepare("SELECT id FROM receivers WHERE name = 'loaded'").get() as { id: number }).id;
  const insert = db.prepare(
    `INSERT INTO receiver_requests (receiver_id, received_at, tls, method, path, headers, body, body_bytes, body_ms, step, signatures, outcome, status)
     VALUES (?, ?, 0, 'POST', '/receivers/loaded', ?, ?, 600, 0, 0, '[]', 'answered', 200)`,
  );
  const headers = JSON.stringify([['Content-Type', 'application/json'], ['X-Signature', 'a'.repeat(40)]]);
  const body = Buffer.alloc(600, 0x61);
  // Received over the last N ms: inside retention's 30 days.
  const now = Date.now();
  const t0 = performance.now();
  for (let done = 0; done < N; done += 10_000) {
    db.transaction(() => {
      for (let i = done; i < Math.min(N, done + 10_000); i++) insert.run(id, now - (N - i), headers, body);
    })();
  }
  db.close();
  console.log(`wrote ${fmt(N)} receiver requests in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  // The same requests to a receiver with none: the baseline from the same run.
  const postTo = async (name: string): Promise<{ p50: number; p99: number; stallMs: number }> => {
    const times: number[] = [];
    const { stallMs } = await withLongestStall(async () => {
      for (let k = 0; k < POSTS; k++) {
        const t = performance.now();
        const res = await fetch(`${server.url}/receivers/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body.toString() });
        await res.arrayBuffer();
        times.push(performance.now() - t);
      }
    });
    times.sort((a, b) => a - b);
    return { p50: percentile(times, 50), p99: percentile(times, 99), stallMs };
  };
  const empty = await postTo('other');
  const loaded = await postTo('loaded');
  for (const [label, r] of [['to a receiver with none (baseline)', empty], [`to the one with ${fmt(N)}`, loaded]] as const) {
    console.log(`${POSTS} requests ${label}, one at a time: p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms; longest event-loop stall ${fmt(r.stallMs, 1)} ms`);
  }
  console.log(`ratio of p50s (baseline / loaded): ${fmt(empty.p50 / loaded.p50, 2)}`);
  const list = await withLongestStall(() => api.listReceivers());
  console.log(`listReceivers: ${fmt(list.ms, 1)} ms (${list.result.map((r) => `${r.name} ${fmt(r.requests)}`).join(', ')}); longest event-loop stall ${fmt(list.stallMs, 1)} ms`);
  const removal = await withLongestStall(() => api.deleteReceiver('loaded'));
  console.log(`deleteReceiver: the call ${fmt(removal.ms, 1)} ms; longest event-loop stall ${fmt(removal.stallMs, 1)} ms`);
  await server.close();
  await engine.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
