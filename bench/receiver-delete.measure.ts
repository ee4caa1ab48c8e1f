/**
 * Deleting a test receiver that has taken many requests (a load test pointed at it): how long the
 * call takes and the longest the engine's event loop went without a turn meanwhile (libuv's delay
 * monitor, 1 ms resolution), what an ingest request arriving then would have waited.
 *
 *   node --import tsx bench/receiver-delete.measure.ts [requests, default 1000000]
 *
 * The requests are written straight into a fresh engine's log, 600-byte signed-delivery-sized bodies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
import { withLongestStall } from './support/stall';

const N = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'hookbench-receiver-delete-'));
try {
  const engine = createEngine({ dataDir: dir });
  engine.start();
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
  const t0 = performance.now();
  for (let done = 0; done < N; done += 10_000) {
    db.transaction(() => {
      for (let i = done; i < Math.min(N, done + 10_000); i++) insert.run(id, i, headers, body);
    })();
  }
  db.close();
  console.log(`wrote ${N.toLocaleString('en')} receiver requests in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const { ms, stallMs } = await withLongestStall(() => api.deleteReceiver('loaded'));
  console.log(`deleteReceiver: the call ${ms.toFixed(1)} ms; longest event-loop stall ${stallMs.toFixed(1)} ms`);
  const { ms: listMs } = await withLongestStall(() => api.listReceivers());
  console.log(`listReceivers right after: ${listMs.toFixed(1)} ms`);
  await engine.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
