/**
 * Which b-trees a block of ingest writes, page by page, into a big log and into an empty one: the
 * pages a transaction dirties are the frames it appends to the WAL (and later copies into the
 * file), so a table or index whose entries land on random pages costs a frame per message once it
 * no longer fits in memory. Each side commits `block` realistic messages (random messageIds, as
 * SDKs send them) through LogStore.commitRequest in group-commit transactions, then takes in the
 * commit follow-up; after each half the WAL's frames are read and named by SQLite's dbstat table.
 *
 *   node --import tsx bench/ingest-pages.measure.ts [seeded data folder] [messages in it] [block]
 *
 * The folder is copied first (bench/.cache/scale-1000000-seed2/data after `npm run bench scale`),
 * or with IN_PLACE=1 written to as it is (for a copy made already: 17 GB at 10M); naming the pages
 * reads the whole file (seconds a million messages).
 */
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { openDatabase } from '../src-main/engine/store/database';
import { createStores, type Stores } from '../src-main/engine/store/stores';
import { webhookBodyOf } from '../src-main/engine/delivery/payloads';
import { MAX_MESSAGES_PER_COMMIT } from '../src-main/engine/store/group-commit';
import { realisticMessage, scaleConfig } from './support/seed';
import { followUpAtOnce } from './support/follow-up';

const from = process.argv[2] ?? 'bench/.cache/scale-1000000-seed2/data';
const count = Number(process.argv[3] ?? 1_000_000);
const block = Number(process.argv[4] ?? 500);

/** The page numbers of the WAL's frames, in order (a page written by two transactions appears twice). */
function walPages(file: string): number[] {
  if (!existsSync(file)) return [];
  const b = readFileSync(file);
  if (b.length < 32) return [];
  const pageSize = b.readUInt32BE(8);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= b.length; at += 24 + pageSize) pages.push(b.readUInt32BE(at));
  return pages;
}

function ingest(stores: Stores, first: number, n: number): void {
  const now = Date.now();
  const source = stores.config.listSources()[0];
  const destination = stores.config.listDestinations()[0];
  if (!source || !destination) throw new Error('the log needs a source and a destination');
  const items = Array.from({ length: n }, (_, k) => {
    const message = realisticMessage(first + k, count, now);
    message.messageId = `ajs-next-${randomUUID()}`;
    return { message, json: JSON.stringify(message), body: webhookBodyOf(message) ?? undefined, destinationIds: [destination.id] };
  });
  for (let at = 0; at < n; at += MAX_MESSAGES_PER_COMMIT) {
    stores.log.commitRequest({ sourceId: source.id, path: '/v1/batch', receivedAt: now, httpStatus: 200, bytes: 0, userAgent: 'bench' }, source.id, items.slice(at, at + MAX_MESSAGES_PER_COMMIT), [], 86_400_000);
  }
}

function side(dir: string, label: string): void {
  const file = join(dir, 'hookbench.sqlite');
  const db = openDatabase(file);
  // Nothing copies the WAL but this: each half's frames stay in it to be counted.
  db.pragma('wal_autocheckpoint = 0');
  const stores = createStores(db);
  const first = count + 2_000_000;
  // A first block, not counted: statements prepared, the tails of the trees read in.
  ingest(stores, first, block);
  followUpAtOnce(stores);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const t0 = performance.now();
  ingest(stores, first + block, block);
  const commitMs = performance.now() - t0;
  const commits = walPages(`${file}-wal`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const t1 = performance.now();
  followUpAtOnce(stores);
  const followUpMs = performance.now() - t1;
  const followUps = walPages(`${file}-wal`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const wanted = new Set([...commits, ...followUps]);
  const names = new Map<number, string>();
  for (const row of db.prepare('SELECT name, pageno FROM dbstat WHERE aggregate = 0').iterate() as Iterable<{ name: string; pageno: number }>) {
    if (wanted.has(row.pageno)) names.set(row.pageno, row.name);
  }
  // Pages in no b-tree: with incremental vacuum, the pointer maps (every 820th page from page 2).
  const nameOf = (page: number): string => names.get(page) ?? (page === 1 ? '(header page)' : (page - 2) % 820 === 0 ? '(pointer map)' : '(free list)');
  console.log(`${label}: ${block} messages; commits ${commitMs.toFixed(0)} ms, follow-up ${followUpMs.toFixed(0)} ms`);
  for (const [half, pages] of [['commits', commits], ['follow-up', followUps]] as const) {
    const frames = new Map<string, number>();
    for (const p of pages) frames.set(nameOf(p), (frames.get(nameOf(p)) ?? 0) + 1);
    console.log(`  ${half}: ${pages.length} frames, ${(pages.length / block).toFixed(2)} a message`);
    for (const [name, n] of [...frames].sort((a, b) => b[1] - a[1]).filter(([, n]) => n / block >= 0.02)) {
      console.log(`    ${name.padEnd(34)} ${(n / block).toFixed(2).padStart(6)} a message`);
    }
  }
  db.close();
}

const work = mkdtempSync(join(tmpdir(), 'hookbench-ingest-pages-'));
try {
  if (process.env.IN_PLACE === '1') {
    side(from, `into ${count.toLocaleString('en-US')} messages (in place)`);
  } else {
    cpSync(from, join(work, 'n'), { recursive: true });
    side(join(work, 'n'), `into ${count.toLocaleString('en-US')} messages`);
    rmSync(join(work, 'n'), { recursive: true });
  }
  const empty = createEngine({ dataDir: join(work, 'zero') });
  empty.applyConfig(scaleConfig('http://127.0.0.1:9/hook'));
  await empty.stop();
  side(join(work, 'zero'), 'into an empty log');
} finally {
  rmSync(work, { recursive: true, force: true });
}
