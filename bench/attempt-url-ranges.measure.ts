/**
 * What keeping each attempt URL's range of deliveries (schema 31) costs the write path: the
 * insert trigger on attempts also widens the URL's row when an attempt falls outside its range,
 * which for new deliveries is nearly every first attempt. Times, on a fresh file, the insert of
 * attempts (each for a new delivery, in transactions of 50 as a round's start writes them, to one
 * of two URLs), alternately with the trigger as it is and as it was before (the URL only listed):
 *
 *   node --import tsx bench/attempt-url-ranges.measure.ts [attempts, default 100000] [rounds, default 4]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src-main/engine/store/database';

const N = Number(process.argv[2] ?? 100_000);
const ROUNDS = Number(process.argv[3] ?? 4);
const BATCH = 50;

type Side = 'ranges (as it is)' | 'listed only (before)';

function run(side: Side): number {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-url-ranges-'));
  try {
    const db = openDatabase(join(dir, 'hookbench.sqlite'));
    if (side === 'listed only (before)') {
      db.exec(`DROP TRIGGER attempt_urls_insert;
        CREATE TRIGGER attempt_urls_insert AFTER INSERT ON attempts BEGIN
          INSERT OR IGNORE INTO attempt_urls (url) VALUES (NEW.url);
        END`);
    }
    // The deliveries first, untimed: each attempt is for one of them.
    const delivery = db.prepare("INSERT INTO deliveries (message_id, destination_id, payload_type, status, created_at, next_attempt_at) VALUES (NULL, 1, 'track', 'pending', 0, 0)");
    db.transaction(() => {
      for (let i = 0; i < N; i++) delivery.run();
    })();
    const attempt = db.prepare(
      "INSERT INTO attempts (delivery_id, round, url, started_at, state, request_headers) VALUES (?, 1, ?, 0, 'in_flight', '{\"User-Agent\":\"Segment.io/1.0\"}')",
    );
    const urls = ['https://receiver.example.com/hooks/segment', 'http://127.0.0.1:4000/hook'];
    const t = performance.now();
    for (let from = 0; from < N; from += BATCH) {
      db.transaction(() => {
        for (let i = from; i < from + BATCH; i++) attempt.run(i + 1, urls[i % 2]);
      })();
    }
    const us = ((performance.now() - t) * 1000) / N;
    db.close();
    return us;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SIDES: Side[] = ['ranges (as it is)', 'listed only (before)'];
const results = new Map<Side, number[]>(SIDES.map((side) => [side, []]));
for (let k = 1; k <= ROUNDS; k++) {
  // The side that goes first alternates, so neither always runs on a warmer machine.
  for (const side of k % 2 === 1 ? SIDES : [...SIDES].reverse()) {
    const us = run(side);
    results.get(side)?.push(us);
    console.log(`round ${k}, ${side.padEnd(20)}: ${us.toFixed(2)} µs an attempt`);
  }
}
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const [ranges, listed] = SIDES.map((side) => mean(results.get(side) ?? []));
console.log(`mean over ${ROUNDS} rounds: ranges ${ranges?.toFixed(2)} µs, listed only ${listed?.toFixed(2)} µs an attempt; ranges / listed only ${((ranges ?? 0) / (listed ?? 1)).toFixed(2)}`);
