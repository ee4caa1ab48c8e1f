/**
 * What the search index costs per message on the write path, with and without the messageId's
 * trigrams (a measurement, not one of the `npm run bench` ratios):
 *
 *   node --import tsx bench/text-index.measure.ts [messages per run, default 20000] [runs each, default 3]
 *
 * Inserts realistic messages (bench/support/seed.ts) into fresh logs in transactions of 100, with
 * the index's insert trigger as migration 18 made it (three columns) and as migration 16 had it
 * (the messageId too), alternately in one process, and with no index at all as the floor. Prints
 * microseconds per message for each run and the medians.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src-main/engine/store/database';
import { realisticMessage, seededMessageId } from './support/seed';

const N = Number(process.argv[2] ?? 20_000);
const RUNS = Number(process.argv[3] ?? 3);
type Shape = 'without messageId' | 'with messageId' | 'no index';

const OLD_TRIGGER = `DROP TRIGGER message_text_insert;
  CREATE TRIGGER message_text_insert AFTER INSERT ON messages BEGIN
    INSERT INTO message_text (rowid, user_id, anonymous_id, event, message_id)
    VALUES (NEW.id, NEW.user_id, NEW.anonymous_id, NEW.event, NEW.message_id);
  END;`;

const rows = Array.from({ length: N }, (_, i) => {
  const m = realisticMessage(i, 1_000_000, Date.UTC(2026, 10, 22) + i);
  return [seededMessageId(i), seededMessageId(i), m.type, m.userId ?? null, m.anonymousId ?? null, 'event' in m ? m.event : null, JSON.stringify(m)] as const;
});

function run(shape: Shape): number {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-cost-'));
  const db = openDatabase(join(dir, 'hookbench.sqlite'));
  try {
    if (shape === 'with messageId') db.exec(OLD_TRIGGER);
    if (shape === 'no index') db.exec('DROP TRIGGER message_text_insert');
    const insert = db.prepare(
      `INSERT INTO messages (source_id, request_id, message_id, dedupe_key, type, user_id, anonymous_id, event, received_at, json)
       VALUES (1, 1, ?, ?, ?, ?, ?, ?, 0, ?)`,
    );
    const batch = db.transaction((from: number) => {
      for (let i = from; i < Math.min(N, from + 100); i++) insert.run(...(rows[i] as readonly unknown[]));
    });
    const t = performance.now();
    for (let from = 0; from < N; from += 100) batch(from);
    return ((performance.now() - t) * 1000) / N;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const shapes: Shape[] = ['with messageId', 'without messageId', 'no index'];
const took = new Map<Shape, number[]>(shapes.map((s) => [s, []]));
for (let k = 0; k < RUNS; k++) for (const s of shapes) took.get(s)?.push(run(s));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
console.log(`search index on the write path: ${N.toLocaleString('en-US')} realistic messages per run, transactions of 100, µs per message`);
for (const s of shapes) console.log(`  ${s.padEnd(18)}: ${(took.get(s) ?? []).map((x) => x.toFixed(1)).join(', ')}  (median ${median(took.get(s) ?? []).toFixed(1)})`);
