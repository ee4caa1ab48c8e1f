/**
 * What the list of rare delivery statuses (schema 28) and the messages' times (schema 29) cost
 * the write path. The list's trigger fires on every change of a delivery's status, and checks
 * whether the old or the new one is rare; the times are taken in by the follow-up, not by a
 * trigger on each insert. Times, on a fresh file, the insert of a message with its delivery (in
 * transactions of 50) and the two updates every delivered delivery makes (pending to in flight,
 * then to succeeded), alternately: as it is; without the status trigger; and with an insert
 * trigger for the times (the design not taken):
 *
 *   node --import tsx bench/status-list.measure.ts [deliveries, default 100000] [rounds, default 4]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src-main/engine/store/database';

const N = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 4);
const BATCH = 50;

/** Microseconds an insert (a message and its delivery) and an update of a delivery's status take. */
type Side = 'as it is' | 'no status trigger' | 'times by trigger';

function run(side: Side): { insertUs: number; updateUs: number } {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-status-list-'));
  try {
    const db = openDatabase(join(dir, 'hookbench.sqlite'));
    if (side === 'no status trigger') db.exec('DROP TRIGGER rare_status_update');
    if (side === 'times by trigger') {
      db.exec(`CREATE TRIGGER message_times_insert AFTER INSERT ON messages BEGIN
        INSERT OR IGNORE INTO message_times (received_at, id, source_id, type, event, violating)
          VALUES (NEW.received_at, NEW.id, NEW.source_id, NEW.type, NEW.event, NEW.violations IS NOT NULL);
      END`);
    }
    const request = db.prepare("INSERT INTO requests (source_id, path, received_at, http_status, bytes) VALUES (1, '/v1/batch', 0, 200, 0)");
    const message = db.prepare(
      "INSERT INTO messages (source_id, request_id, message_id, dedupe_key, type, user_id, event, received_at, json) VALUES (1, ?, ?, ?, 'track', ?, 'Order Completed', 0, ?)",
    );
    const delivery = db.prepare("INSERT INTO deliveries (message_id, destination_id, payload_type, status, created_at, next_attempt_at) VALUES (?, 1, 'track', 'pending', 0, 0)");
    const update = db.prepare('UPDATE deliveries SET status = ?, next_attempt_at = NULL WHERE id = ?');
    const json = JSON.stringify({ type: 'track', event: 'Order Completed', properties: { total: 42.5, sku: 'abc-123' } });
    let t = performance.now();
    for (let from = 0; from < N; from += BATCH) {
      db.transaction(() => {
        const requestId = request.run().lastInsertRowid;
        for (let i = from; i < from + BATCH; i++) {
          const id = `m-${i}-${(i * 2654435761) % 1_000_003}`;
          delivery.run(message.run(requestId, id, id, `user_${i % 5000}`, json).lastInsertRowid);
        }
      })();
    }
    const insertUs = ((performance.now() - t) * 1000) / N;
    t = performance.now();
    for (let from = 1; from <= N; from += BATCH) {
      for (const status of ['in_flight', 'succeeded']) {
        db.transaction(() => {
          for (let id = from; id < from + BATCH; id++) update.run(status, id);
        })();
      }
    }
    const updateUs = ((performance.now() - t) * 1000) / (2 * N);
    db.close();
    return { insertUs, updateUs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SIDES: Side[] = ['as it is', 'no status trigger', 'times by trigger'];
const results = new Map<Side, { insertUs: number; updateUs: number }[]>(SIDES.map((side) => [side, []]));
for (let k = 1; k <= ROUNDS; k++) {
  for (const side of SIDES) {
    const r = run(side);
    results.get(side)?.push(r);
    console.log(`round ${k}, ${side.padEnd(17)}: insert ${r.insertUs.toFixed(2)} µs a message and its delivery, update ${r.updateUs.toFixed(2)} µs a status`);
  }
}
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`mean over ${ROUNDS} rounds:`);
for (const side of SIDES) {
  const rs = results.get(side) ?? [];
  console.log(`  ${side.padEnd(17)}: insert ${mean(rs.map((r) => r.insertUs)).toFixed(2)} µs, update ${mean(rs.map((r) => r.updateUs)).toFixed(2)} µs`);
}
