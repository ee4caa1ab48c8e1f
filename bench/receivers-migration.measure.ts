/**
 * What the per-message receivers migration (the one creating receiver_requests_message) costs at
 * start-up on a log already holding many test-receiver requests (a measurement, not one of the
 * `npm run bench` ratios):
 *
 *   node --import tsx bench/receivers-migration.measure.ts [receiver requests, default 1000000]
 *
 * Builds a data file at the schema before it with the app's own migrations, fills
 * receiver_requests with signed-delivery-sized rows (600-byte bodies), and times the app's own
 * open of it (openDatabase: settings and migration, as at a start); then a second open of the
 * migrated file, the baseline. The ALTERs cost nothing; the partial index reads every receiver
 * request once, which is what the difference measures.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../src-main/engine/store/database';
import { MIGRATIONS } from '../src-main/engine/store/schema';

const N = Number(process.argv[2] ?? 1_000_000);
// Found by what it creates, so the measure survives the migration being renumbered.
const TARGET = MIGRATIONS.findIndex((m) => m.includes('receiver_requests_message'));
if (TARGET < 0) throw new Error('no migration creates receiver_requests_message');
const dir = mkdtempSync(join(tmpdir(), 'hookbench-receivers-migration-'));
const path = join(dir, 'hookbench.db');
try {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  for (let version = 0; version < TARGET; version++) {
    db.exec(MIGRATIONS[version] as string);
    db.pragma(`user_version = ${version + 1}`);
  }
  db.prepare("INSERT INTO receivers (name, script, created_at, updated_at) VALUES ('r', '[{}]', 0, 0)").run();
  const insert = db.prepare(
    `INSERT INTO receiver_requests (receiver_id, received_at, tls, method, path, headers, body, body_bytes, body_ms, step, signatures, outcome, status)
     VALUES (1, ?, 0, 'POST', '/receivers/r', ?, ?, 600, 0, 0, '[]', 'answered', 200)`,
  );
  const headers = JSON.stringify([['Content-Type', 'application/json'], ['X-Signature', 'a'.repeat(40)]]);
  const body = Buffer.alloc(600, 0x61);
  for (let done = 0; done < N; done += 10_000) {
    db.transaction(() => {
      for (let i = done; i < Math.min(N, done + 10_000); i++) insert.run(i, headers, body);
    })();
  }
  db.close();
  const timedOpen = (): number => {
    const started = performance.now();
    openDatabase(path).close();
    return (performance.now() - started) / 1000;
  };
  const migrating = timedOpen();
  const migrated = timedOpen();
  const mb = Math.round(statSync(path).size / 2 ** 20);
  console.log(
    `open with migration ${TARGET + 1} over ${N.toLocaleString('en')} receiver requests (${mb} MB file): ${migrating.toFixed(3)} s; ` +
      `the same file opened again: ${migrated.toFixed(3)} s`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
