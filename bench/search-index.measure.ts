/**
 * The search index's upkeep, on bare FTS5 tables like ours (contentless, trigrams, the three
 * fields of realistic messages): a measurement, not one of the `npm run bench` ratios.
 *
 *   node --import tsx bench/search-index.measure.ts merging [messages, default 2000000]
 *   node --import tsx bench/search-index.measure.ts parts [messages, default 1000000] [parts, default 10]
 *   node --import tsx bench/search-index.measure.ts drop [messages, default 524288]
 *
 * `merging` indexes the messages 50 a transaction twice: with FTS5's own merging (automerge, as
 * before schema 26) and with it off and merge steps of 16 pages after each transaction, up to
 * 2 ms of them (as the engine does since). It prints, per quarter of a million, the
 * transactions' and the steps' p50 / p99 / p99.9 / max, and the segments at the end. WAL
 * checkpoints run between transactions, outside the timing (the engine runs them on a thread of
 * its own).
 *
 * `parts` indexes the same messages (the users of a log that size) into one table and into N
 * parts by id, then times the searches the Deliveries view makes (median of 21): on the parts as
 * FTS5 left them, then with every part but the newest merged into one segment (as the engine
 * merges closed parts).
 *
 * `drop` times dropping a part: in one statement, and in the engine's steps (its pages a few
 * hundred rows at a time, its table last).
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realisticMessage } from './support/seed';
import { fmt, percentile } from './support/load';

const [what = 'merging', countArg, partsArg] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'hookbench-search-index-'));
const TABLE = (name: string): string =>
  `CREATE VIRTUAL TABLE ${name} USING fts5(user_id, anonymous_id, event, message_id, content = '', contentless_delete = 1, tokenize = 'trigram');
   INSERT INTO ${name} (${name}, rank) VALUES ('deletemerge', 0);`;

function open(file: string): Database.Database {
  const db = new Database(join(dir, file));
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  return db;
}

/** The indexed fields of realistic message i, with the users of a log of `usersOf` messages (50,000 for 10M). */
function fields(i: number, usersOf = 10_000_000): [number, string | null, string | null, string | null] {
  const m = realisticMessage(i, usersOf, 0);
  return [i, m.userId ?? null, m.anonymousId ?? null, 'event' in m && typeof m.event === 'string' ? m.event : null];
}

const spread = (times: number[]): string => {
  const s = [...times].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(s, 50), 2)}, p99 ${fmt(percentile(s, 99), 1)}, p99.9 ${fmt(percentile(s, 99.9), 1)}, max ${fmt(s.at(-1) ?? NaN, 1)} ms`;
};
const segments = (db: Database.Database, name: string): number => db.prepare(`SELECT COUNT(DISTINCT segid) FROM ${name}_idx`).pluck().get() as number;

function merging(count: number): void {
  for (const way of ['FTS5 merging in the transaction', 'merge steps after it'] as const) {
    const db = open(`merging-${way === 'merge steps after it' ? 'steps' : 'auto'}.sqlite`);
    db.exec(TABLE('t'));
    if (way === 'merge steps after it') db.exec("INSERT INTO t (t, rank) VALUES ('automerge', 0); INSERT INTO t (t, rank) VALUES ('usermerge', 4);");
    const insert = db.prepare('INSERT INTO t (rowid, user_id, anonymous_id, event) VALUES (?, ?, ?, ?)');
    const merge = db.prepare("INSERT INTO t (t, rank) VALUES ('merge', 16)");
    const changes = db.prepare('SELECT total_changes()').pluck();
    let inserts: number[] = [];
    let steps: number[] = [];
    console.log(`${way}:`);
    for (let i = 1; i <= count; i += 50) {
      const t = performance.now();
      db.transaction(() => {
        for (let j = i; j < i + 50 && j <= count; j++) insert.run(...fields(j));
      })();
      inserts.push(performance.now() - t);
      if (way === 'merge steps after it') {
        for (const until = performance.now() + 2; performance.now() < until; ) {
          const s = performance.now();
          const worked = db.transaction(() => {
            const before = changes.get() as number;
            merge.run();
            return (changes.get() as number) - before > 1;
          })();
          steps.push(performance.now() - s);
          if (!worked) break;
        }
      }
      if ((i - 1) % 10_000 === 0) db.pragma('wal_checkpoint(TRUNCATE)');
      const upTo = Math.min(i + 49, count);
      if (upTo % 250_000 === 0 || upTo === count) {
        console.log(`  up to ${fmt(upTo)}: transactions ${spread(inserts)}${steps.length > 0 ? `; merge steps (${fmt(steps.length)}) ${spread(steps)}` : ''}`);
        inserts = [];
        steps = [];
      }
    }
    console.log(`  segments at the end: ${segments(db, 't')}`);
    db.close();
  }
}

function parts(count: number, n: number): void {
  const db = open('parts.sqlite');
  const names = Array.from({ length: n }, (_, k) => `p${k}`);
  db.exec(TABLE('one'));
  for (const name of names) db.exec(TABLE(name));
  const one = db.prepare('INSERT INTO one (rowid, user_id, anonymous_id, event) VALUES (?, ?, ?, ?)');
  const inPart = names.map((name) => db.prepare(`INSERT INTO ${name} (rowid, user_id, anonymous_id, event) VALUES (?, ?, ?, ?)`));
  const per = Math.ceil(count / n);
  for (let i = 1; i <= count; i += 1000) {
    db.transaction(() => {
      for (let j = i; j < i + 1000 && j <= count; j++) {
        const row = fields(j, count);
        one.run(...row);
        inPart[Math.floor((j - 1) / per)]?.run(...row);
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  const match = (needle: string): string => `{user_id anonymous_id event} : "${needle}"`;
  const cases: [string, string, 'ASC' | 'DESC', number][] = [
    ["a user's newest 50", 'user_4242', 'DESC', 50],
    ['an absent user', 'user_99999', 'DESC', 50],
    ["a common event's newest 50", 'Order Completed', 'DESC', 50],
    ["all of a user's, oldest first", 'user_4242', 'ASC', 1_000_000],
  ];
  const time = (sql: string, params: unknown[]): number => {
    const statement = db.prepare(sql);
    const times: number[] = [];
    for (let r = 0; r < 21; r++) {
      const t = performance.now();
      statement.all(...params);
      times.push(performance.now() - t);
    }
    return percentile(times.sort((a, b) => a - b), 50);
  };
  const run = (label: string): void => {
    console.log(`${label} (segments: one table ${segments(db, 'one')}, parts ${names.map((p) => segments(db, p)).join(' ')}):`);
    for (const [name, needle, dir, limit] of cases) {
      const single = time(`SELECT rowid FROM one WHERE one MATCH ? ORDER BY rowid ${dir} LIMIT ${limit}`, [match(needle)]);
      const all = time(`SELECT id FROM (${names.map((p) => `SELECT rowid AS id FROM ${p} WHERE ${p} MATCH ?`).join(' UNION ALL ')} ORDER BY 1 ${dir}) LIMIT ${limit}`, names.map(() => match(needle)));
      console.log(`  ${name.padEnd(32)} one table ${fmt(single, 2)} ms, ${n} parts ${fmt(all, 2)} ms`);
    }
  };
  run(`${fmt(count)} messages, medians of 21, parts as FTS5 left them`);
  for (const name of names.slice(0, -1)) db.exec(`INSERT INTO ${name} (${name}) VALUES ('optimize')`);
  run(`the same, every part but the newest merged into one segment`);
  db.close();
}

function drop(count: number): void {
  for (const way of ['one statement', 'steps'] as const) {
    const db = open(`drop-${way === 'steps' ? 'steps' : 'one'}.sqlite`);
    db.exec(TABLE('part'));
    const insert = db.prepare('INSERT INTO part (rowid, user_id, anonymous_id, event) VALUES (?, ?, ?, ?)');
    for (let i = 1; i <= count; i += 5000) {
      db.transaction(() => {
        for (let j = i; j < i + 5000 && j <= count; j++) insert.run(...fields(j));
      })();
    }
    db.exec("INSERT INTO part (part) VALUES ('optimize')");
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    if (way === 'one statement') {
      const t = performance.now();
      db.exec('DROP TABLE part');
      console.log(`a part of ${fmt(count)} messages (${fmt(pages)} pages) dropped in one statement: ${fmt(performance.now() - t, 1)} ms`);
    } else {
      // As SearchIndexStore.dropRetired does, at 256 pages a step.
      const steps: number[] = [];
      db.unsafeMode(true);
      for (const [table, rows] of [['part_data', 256], ['part_docsize', 256 * 16]] as const) {
        for (let deleted = 1; deleted > 0; ) {
          const t = performance.now();
          deleted = db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} LIMIT ?)`).run(rows).changes;
          steps.push(performance.now() - t);
          if (steps.length % 64 === 0) db.pragma('wal_checkpoint(TRUNCATE)');
        }
      }
      db.unsafeMode(false);
      const t = performance.now();
      db.exec('DROP TABLE part');
      console.log(`the same in steps: ${steps.length} steps, ${spread(steps)}; then the table ${fmt(performance.now() - t, 1)} ms`);
    }
    db.close();
  }
}

try {
  if (what === 'merging') merging(Number(countArg ?? 2_000_000));
  else if (what === 'parts') parts(Number(countArg ?? 1_000_000), Number(partsArg ?? 10));
  else if (what === 'drop') drop(Number(countArg ?? 524_288));
  else throw new Error(`usage: node --import tsx bench/search-index.measure.ts merging|parts|drop [messages] [parts]`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
