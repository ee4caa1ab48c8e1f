/**
 * Ingest throughput: messages/s accepted through POST /v1/batch (batches of 100, acknowledged only
 * after commit) and taken in by the commit follow-up (the search index, the tallies, the times and
 * the profiles), against the raw rate of inserting the same rows into SQLite alone, in one run.
 * The scheduler is not started, so this measures the ingest path on its own.
 *
 * An engine that is not started leaves its follow-up to be asked for, so the follow-up runs once
 * the last request is acknowledged (`owedTakenIn`) and its time is added to the posting's: the
 * same work on the engine's one thread as when it runs between the commits. The ratio is taken on
 * that sum; the acknowledgements' rate alone is printed beside it, since until 2026-11-28 it was
 * the only figure, the follow-up left to the engine's stop and never timed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { openDatabase } from '../src-main/engine/store/database';
import { listen } from '../src-main/serve/server';
import { fmt, postBatches } from './support/load';
import { LogInspector } from '../src-main/engine/store/inspect';

const BATCH = 100;
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

function message(i: number): Record<string, unknown> {
  return {
    type: 'track',
    userId: `user-${i % 5000}`,
    event: 'Order Completed',
    messageId: `bench-${i}`,
    timestamp: '2026-11-22T12:00:00.000Z',
    properties: { orderId: `o-${i}`, total: 42.5, currency: 'EUR', items: 3 },
    context: { library: { name: 'analytics-node', version: '3.1.0' } },
  };
}

/** The same rows the ingest writes (request, messages, deliveries), straight into SQLite. */
function rawBaseline(dir: string): number {
  const db = openDatabase(join(dir, 'raw.sqlite'));
  const req = db.prepare('INSERT INTO requests (source_id, path, received_at, http_status, bytes, items, accepted) VALUES (1, ?, ?, 200, 0, ?, ?)');
  const msg = db.prepare(
    'INSERT INTO messages (source_id, request_id, message_id, dedupe_key, type, user_id, anonymous_id, event, received_at, json) VALUES (1, ?, ?, ?, ?, ?, NULL, ?, ?, ?)',
  );
  const del = db.prepare("INSERT INTO deliveries (message_id, destination_id, payload_type, status, created_at, next_attempt_at) VALUES (?, 1, 'track', 'pending', ?, ?)");
  // Rows are built outside the timing, as a driver would have them ready.
  const rows = Array.from({ length: MESSAGES }, (_, i) => {
    const m = message(i);
    return { id: m.messageId as string, user: m.userId as string, json: JSON.stringify({ ...m, receivedAt: '2026-11-22T12:00:00.000Z' }) };
  });
  const insertBatch = db.transaction((from: number) => {
    const now = Date.now();
    const requestId = req.run('/v1/batch', now, BATCH, BATCH).lastInsertRowid;
    for (let i = from; i < from + BATCH; i++) {
      const r = rows[i]!;
      const id = msg.run(requestId, r.id, r.id, 'track', r.user, 'Order Completed', now, r.json).lastInsertRowid;
      del.run(id, now, now);
    }
  });
  const t0 = performance.now();
  for (let i = 0; i < MESSAGES; i += BATCH) insertBatch(i);
  const seconds = (performance.now() - t0) / 1000;
  db.close();
  return MESSAGES / seconds;
}


async function hookbench(dir: string): Promise<{ acknowledged: number; takenIn: number }> {
  const engine = createEngine({ dataDir: join(dir, 'engine') });
  engine.applyConfig({
    sources: [{ name: 'bench', writeKey: 'wk_bench' }],
    destinations: [{ name: 'sink', enabled: true, sources: ['bench'], sharedSecret: 's', webhooks: [{ url: 'http://127.0.0.1:9/none', headers: {} }] }],
  });
  const server = await listen(engine, '127.0.0.1', 0);
  const bodies: string[] = [];
  for (let i = 0; i < MESSAGES; i += BATCH) {
    bodies.push(JSON.stringify({ batch: Array.from({ length: BATCH }, (_, k) => message(i + k)), sentAt: '2026-11-22T12:00:00.000Z' }));
  }
  const { ms, failures } = await postBatches(server.url, bodies, { writeKey: 'wk_bench', connections: CONNECTIONS, lanes: CONNECTIONS * 2 });
  const acknowledgedAt = performance.now();
  await engine.owedTakenIn();
  const followUpMs = performance.now() - acknowledgedAt;
  const owed = engine.stores.log.lastMessageId() - engine.stores.takenInThrough();
  if (owed > 0) throw new Error(`the follow-up still owes ${owed} messages`);
  await server.close();
  await engine.stop();
  const inspect = LogInspector.of(join(dir, 'engine'), { readonly: true });
  const stored = inspect.count('messages');
  inspect.close();
  if (failures > 0 || stored !== MESSAGES) throw new Error(`ingest lost data: ${failures} failed requests, ${stored}/${MESSAGES} stored`);
  return { acknowledged: MESSAGES / (ms / 1000), takenIn: MESSAGES / ((ms + followUpMs) / 1000) };
}

const dir = mkdtempSync(join(tmpdir(), 'hookbench-bench-ingest-'));
try {
  const raw = process.env.BENCH_SKIP_RAW ? NaN : rawBaseline(dir);
  const ours = await hookbench(dir);
  console.log(`ingest  ${fmt(MESSAGES)} messages in batches of ${BATCH}, ${CONNECTIONS} connections, durable (WAL, synchronous=NORMAL)`);
  console.log(`  raw SQLite insert of the same rows       : ${fmt(raw)} messages/s`);
  console.log(`  Hookbench POST /v1/batch, acknowledged   : ${fmt(ours.acknowledged)} messages/s (${fmt(ours.acknowledged / raw, 2)} of raw)`);
  console.log(`  ... and taken in by the follow-up        : ${fmt(ours.takenIn)} messages/s`);
  console.log(`  ratio (taken in)                         : ${fmt(ours.takenIn / raw, 2)}   (goal ≥ 0.50 and ≥ 40,000 messages/s)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
