/**
 * What merging the search index costs ingest, inside the commits (FTS5's default, before schema
 * 20) and between them (the search upkeep since): a measurement, not one of the `npm run bench`
 * ratios.
 *
 *   node --import tsx bench/search-upkeep.measure.ts [messages per run, default 200000] [runs each, default 2]
 *
 * Writes realistic messages (bench/support/seed.ts) into fresh logs with the real schema, in
 * transactions of 10 (one ingest request of a client sending batches of 10), the two ways
 * alternately in one process. Between commits it does what the engine's other threads and turns
 * would: a WAL checkpoint every 500 commits (the checkpointer's, off the timings) and, for the
 * upkeep, its merge slices (timed on their own: each is a turn of the engine's thread too). Prints
 * the commits' time percentiles, the slices', and a search's time on the finished index.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src-main/engine/store/database';
import { SearchIndexStore } from '../src-main/engine/store/search-index';
import { nextTimedSize } from '../src-main/engine/sliced-work';
import { SEARCH_UPKEEP_SLICES } from '../src-main/engine/search-upkeep';
import { realisticMessage, seededMessageId } from './support/seed';

const N = Number(process.argv[2] ?? 200_000);
const RUNS = Number(process.argv[3] ?? 2);
const PER_COMMIT = 10;
type Shape = 'merges inside commits' | 'merges between commits';

const rows = Array.from({ length: N }, (_, i) => {
  const m = realisticMessage(i, N, Date.UTC(2026, 10, 22) + i);
  return [seededMessageId(i), seededMessageId(i), m.type, m.userId ?? null, m.anonymousId ?? null, 'event' in m ? m.event : null, JSON.stringify(m)] as const;
});

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const summary = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b);
  return `p50 ${pct(s, 0.5).toFixed(2)}, p99 ${pct(s, 0.99).toFixed(2)}, p99.9 ${pct(s, 0.999).toFixed(2)}, max ${(s.at(-1) ?? NaN).toFixed(1)} ms; total ${(s.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s`;
};

function run(shape: Shape): void {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-merge-'));
  const db = openDatabase(join(dir, 'hookbench.sqlite'));
  try {
    db.pragma('wal_autocheckpoint = 0');
    // FTS5's defaults, as every log had them before schema 20.
    if (shape === 'merges inside commits') db.exec("INSERT INTO message_text (message_text, rank) VALUES ('automerge', 4); INSERT INTO message_text (message_text, rank) VALUES ('crisismerge', 16);");
    const index = new SearchIndexStore(db);
    const insert = db.prepare(
      `INSERT INTO messages (source_id, request_id, message_id, dedupe_key, type, user_id, anonymous_id, event, received_at, json)
       VALUES (1, 1, ?, ?, ?, ?, ?, ?, 0, ?)`,
    );
    const commit = db.transaction((from: number) => {
      for (let i = from; i < Math.min(N, from + PER_COMMIT); i++) insert.run(...(rows[i] as readonly unknown[]));
    });
    const commits: number[] = [];
    const slices: number[] = [];
    let pages = SEARCH_UPKEEP_SLICES.first;
    for (let from = 0, k = 0; from < N; from += PER_COMMIT, k++) {
      if (k % 500 === 0) db.pragma('wal_checkpoint(PASSIVE)');
      const t = performance.now();
      commit(from);
      commits.push(performance.now() - t);
      if (shape === 'merges between commits') {
        // One slice per commit while there is work, as the engine interleaves them with its turns.
        const s = performance.now();
        const done = index.merge(pages);
        const took = performance.now() - s;
        slices.push(took);
        pages = done ? SEARCH_UPKEEP_SLICES.first : nextTimedSize(SEARCH_UPKEEP_SLICES, pages, took);
      }
    }
    while (shape === 'merges between commits' && !index.merge(SEARCH_UPKEEP_SLICES.max)) {
      // The rest of the backlog once the writes stop.
    }
    const q = performance.now();
    const found = (db.prepare("SELECT COUNT(*) AS n FROM message_text WHERE message_text MATCH '\"Completed\"'").get() as { n: number }).n;
    const searchMs = performance.now() - q;
    console.log(`  ${shape}`);
    console.log(`    commits of ${PER_COMMIT}: ${summary(commits)}`);
    if (slices.length > 0) console.log(`    merge slices (one after each commit): ${summary(slices)}`);
    console.log(`    a search for "Completed" afterwards: ${searchMs.toFixed(1)} ms (${found.toLocaleString('en-US')} messages)`);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`search index merging: ${N.toLocaleString('en-US')} realistic messages per run, commits of ${PER_COMMIT}`);
for (let k = 0; k < RUNS; k++) for (const s of ['merges inside commits', 'merges between commits'] as Shape[]) run(s);
