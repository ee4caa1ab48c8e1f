/**
 * Sustained ingest with many users, and the reads that must see every committed message asked
 * meanwhile: a measurement, not one of the `npm run bench` ratios.
 *
 *   node --import tsx bench/follow-up.measure.ts <data folder> [seconds, default 200] [messages/s, default 2000] [users' log size, default 10000000]
 *
 * The data folder is a COPY of a seeded scale log (bench/.cache/scale-<n>-seed2/data; this adds
 * messages to it) or an empty folder (a log of 0). The users are those of a seeded log of the
 * size given (50,000 for 10M), so the profiles' rows are as scattered as there. Starts an engine
 * with a receiver on another thread, waits for what an upgraded log does after start, then posts
 * batches of 20 realistic messages (random messageIds) paced at the rate asked, from this thread:
 * the rate reached says what the engine's thread had to spare. At 60, 120 and 180 s it asks a
 * free-text search and a page of profiles through the control API. It prints the acknowledgements'
 * percentiles, the longest event-loop stall, each read's time, the follow-up's slices (search
 * index, tallies and profiles, timed, and what the long ones were made of) and the search index's
 * merge steps (those an upgraded copy made while it caught up after start apart), and how far
 * behind the follow-up was at the end.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { engineOnSeededCopy } from './support/seeded-engine';
import { realisticMessage } from './support/seed';
import { fmt, percentile } from './support/load';
import { createEngineApi } from '../src-main/engine/api';
import { SearchIndexStore } from '../src-main/engine/store/search-index';

const dataDir = process.argv[2] ?? '';
const SECONDS = Number(process.argv[3] ?? 200);
const RATE = Number(process.argv[4] ?? 2000);
const USERS_OF = Number(process.argv[5] ?? 10_000_000);
if (!dataDir) throw new Error('usage: node --import tsx bench/follow-up.measure.ts <copy of a seeded data folder, or an empty one> [seconds] [messages/s] [log size for the users]');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Step = (n: number) => boolean;
/**
 * Replaces `object[name]` with itself timed: `took` gets each call's time (ms), where the engine
 * calls it; `before` runs first. On a prototype too: the original runs on the object called.
 */
function timeCalls<K extends string>(object: Record<K, Step>, name: K, took: (ms: number) => void, before = (): void => {}): void {
  const original = object[name];
  object[name] = function (this: unknown, n: number): boolean {
    before();
    const t = performance.now();
    try {
      return original.call(this, n);
    } finally {
      took(performance.now() - t);
    }
  };
}
const slices: number[] = [];
const merges: number[] = [];
// The search index's merge steps (since schema 26), timed from the engine's start: those an
// upgraded copy makes while it catches up, then those of the measure itself.
const startSteps: number[] = [];
let steps = startSteps;
const stepProto = SearchIndexStore.prototype as unknown as Partial<Record<'mergeStep', Step>>;
if (stepProto.mergeStep) timeCalls(stepProto as Record<'mergeStep', Step>, 'mergeStep', (ms) => steps.push(ms));

const seeded = await engineOnSeededCopy(dataDir);
steps = merges;
const { engine } = seeded;
const api = createEngineApi(engine);
// The follow-up's slices (stores.takeInOwed) and, since schema 26, the search index's merge steps.
// A slice's parts are timed too: each store's own step (the profiles' with its transaction's
// commit), and the rest, the commit of the transaction the search index and the tallies share.
const part = { index: 0, tallies: 0, profiles: 0 };
const longSlices = { n: 0, index: 0, tallies: 0, profiles: 0, rest: 0 };
const LONG_SLICE_MS = 25;
timeCalls(engine.stores.searchIndex as unknown as Record<'indexOwed', Step>, 'indexOwed', (ms) => (part.index += ms));
timeCalls(engine.stores.tallies as unknown as Record<'tallyOwed', Step>, 'tallyOwed', (ms) => (part.tallies += ms));
timeCalls(engine.stores.profiles as unknown as Record<'followOwed', Step>, 'followOwed', (ms) => (part.profiles += ms));
timeCalls(
  engine.stores as unknown as Record<'takeInOwed', Step>,
  'takeInOwed',
  (ms) => {
    slices.push(ms);
    if (ms > LONG_SLICE_MS) {
      longSlices.n++;
      longSlices.index += part.index;
      longSlices.tallies += part.tallies;
      longSlices.profiles += part.profiles;
      longSlices.rest += ms - part.index - part.tallies - part.profiles;
    }
  },
  // Each slice's parts from nothing: a read's own settling in between counts for none.
  () => (part.index = part.tallies = part.profiles = 0),
);
// How far behind the follow-up is (NaN on a commit from before takenInThrough, for comparisons).
const owed = (): number => {
  const stores = engine.stores as Partial<Pick<typeof engine.stores, 'takenInThrough'>> & { log: Partial<Pick<typeof engine.stores.log, 'lastMessageId'>> };
  return stores.takenInThrough && stores.log.lastMessageId ? stores.log.lastMessageId() - stores.takenInThrough() : NaN;
};

const pool = new Pool(seeded.server.url, { connections: 4 });
const auth = `Basic ${Buffer.from(`${seeded.config.sources[0]?.writeKey ?? ''}:`).toString('base64')}`;
const acks: number[] = [];
const reads: string[] = [];
let failures = 0;
let sent = 0;
let next = USERS_OF + 5_000_000;
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const t0 = performance.now();
const at = (): string => `${fmt((performance.now() - t0) / 1000)} s`;
async function timedRead(label: string, call: () => Promise<unknown>): Promise<void> {
  const behind = owed();
  const t = performance.now();
  await call();
  reads.push(`  ${label} at ${at()}, ${fmt(behind)} messages owed: ${fmt(performance.now() - t)} ms`);
}
const readsAt = [60, 120, 180];
const inflight = new Set<Promise<void>>();
const batchesPerTick = Math.max(1, Math.round(RATE / 100 / 20));
while (performance.now() - t0 < SECONDS * 1000) {
  const tick = performance.now();
  if (readsAt.length > 0 && tick - t0 > (readsAt[0] as number) * 1000) {
    readsAt.shift();
    void timedRead('free-text search', () => api.listDeliveries({ text: 'user_77' })).then(() => timedRead('page of profiles', () => api.listProfiles({})));
  }
  for (let b = 0; b < batchesPerTick; b++) {
    const batch = Array.from({ length: 20 }, () => {
      const m = realisticMessage(next++, USERS_OF, Date.now());
      m.messageId = `ajs-next-${randomUUID()}`;
      return m;
    });
    sent += batch.length;
    const start = performance.now();
    const request = pool
      .request({ path: '/v1/batch', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) })
      .then(async (res) => {
        await res.body.text();
        if (res.statusCode !== 200) failures++;
        acks.push(performance.now() - start);
      })
      .catch(() => void failures++)
      .finally(() => inflight.delete(request));
    inflight.add(request);
  }
  await sleep(Math.max(0, 10 - (performance.now() - tick)));
}
await Promise.all(inflight);
loop.disable();
const seconds = (performance.now() - t0) / 1000;
const sortedAcks = [...acks].sort((a, b) => a - b);
const behindAtEnd = owed();
console.log(`follow-up  ${dataDir}: ${fmt(sent)} messages in ${fmt(seconds)} s (${fmt(sent / seconds)} messages/s of ${fmt(RATE)} asked), users of a ${fmt(USERS_OF)}-message log, ${failures} failed`);
console.log(`  acknowledgements: p50 ${fmt(percentile(sortedAcks, 50), 1)} ms, p99 ${fmt(percentile(sortedAcks, 99), 1)} ms, p99.9 ${fmt(percentile(sortedAcks, 99.9), 1)} ms, max ${fmt(sortedAcks.at(-1) ?? NaN, 1)} ms`);
console.log(`  event loop: p99 ${fmt(loop.percentile(99) / 1e6, 1)} ms, longest stall ${fmt(loop.max / 1e6, 1)} ms`);
console.log(reads.join('\n'));
/** Count, percentiles, maximum and how many took over 20 and 50 ms. */
const spread = (times: number[]): string => {
  const sorted = [...times].sort((a, b) => a - b);
  const over = (ms: number): string => fmt(sorted.filter((x) => x > ms).length);
  return `${fmt(sorted.length)}, p50 ${fmt(percentile(sorted, 50), 2)} ms, p99 ${fmt(percentile(sorted, 99), 1)} ms, max ${fmt(sorted.at(-1) ?? NaN, 1)} ms, ${over(20)} over 20 ms, ${over(50)} over 50 ms`;
};
console.log(`  follow-up slices: ${spread(slices)}; owed at the end ${fmt(behindAtEnd)} messages`);
const mean = (ms: number): string => `${fmt(ms / Math.max(1, longSlices.n), 1)} ms`;
console.log(
  `  slices over ${LONG_SLICE_MS} ms: ${fmt(longSlices.n)}, on average search index ${mean(longSlices.index)}, tallies ${mean(longSlices.tallies)}, ` +
    `profiles (with their commit) ${mean(longSlices.profiles)}, the search index's and tallies' commit ${mean(longSlices.rest)}`,
);
console.log(`  search index merge steps: ${merges.length === 0 ? 'none (FTS5 merged inside the slices)' : spread(merges)}`);
const startMs = startSteps.reduce((a, b) => a + b, 0);
console.log(
  `  merge steps while the log caught up after start (${fmt(seeded.caughtUpMs / 1000, 1)} s): ${startSteps.length === 0 ? 'none' : `${spread(startSteps)}, ${fmt(startMs)} ms in all`}`,
);
await pool.close();
const stopping = performance.now();
await seeded.close();
console.log(`  the engine's stop took in the rest in ${fmt(performance.now() - stopping)} ms`);
