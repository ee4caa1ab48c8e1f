/**
 * The log at scale: every call the UI and the control API make, against a log of 1 million
 * messages (SCALE=10m for 10 million, or any count such as SCALE=200k), one delivery each with its
 * attempts, seeded through the store's own write paths with messages the size and mix of real
 * traffic (bench/support/seed.ts, realisticMessage).
 *
 *   npm run bench scale            SCALE=10m npm run bench scale            RUNS=30 npm run bench scale
 *   SEED_ONLY=1 SCALE=10m npm run bench scale     (seed the cache and stop)
 *   INGEST_ONLY=1 npm run bench scale              (only ingest at N against at 0, below, then stop)
 *   UNDER_LOAD_ONLY=3 npm run bench scale          (only the ingest acknowledgement quiet and under the UI calls, 3 rounds each with the read worker lowered and not)
 *
 * The seeded data folder is cached under bench/.cache/ (gitignored), keyed by the size and the
 * seed's version, so a rerun skips seeding; each run works on a copy of it, since a deletion
 * purges. A cache seeded under an older schema is brought up to date on the copy (the migrations'
 * time is printed; a new index is built there); one from a newer schema is seeded again. Prints:
 *   - seeding time (or that the cache was used), the file's size per message, and the seeding rate
 *     of each tenth of the log (the store's write paths, so ingest's: it must stay flat);
 *   - ingest's write path into the copied log of N messages against a fresh empty one, in
 *     alternating blocks in the same process (bench/support/ingest-flat.ts): messages/s each and
 *     the ratio "at N / at 0" (INGEST_SECONDS per side, 10 by default), last, since it adds
 *     messages to the copy (with INGEST_ONLY=1, only that, right after the copy);
 *   - per call, the median and p99 of its runs (warm), and the ratio of the median to the raw
 *     baseline: a primary-key lookup of one message on the same file, on a connection of its own;
 *   - the first profiles call after start, and, for a cache seeded before commits kept profiles
 *     current, how long the profiles' catch-up of that log takes in slices after start (once);
 *   - start-up to listening on the seeded folder;
 *   - ingest acknowledgement latency at 1,000 messages/s, quiet and while the heaviest UI calls run
 *     in a loop (as the control API would run them), after a first run that is not counted: with
 *     the read worker in UNDER_LOAD_ROUNDS rounds (3 by default), each printed and then pooled,
 *     then once on an engine without it (every read on the engine's thread). Each phase also
 *     says the engine thread's longest stall, its longest GC pause and the WAL's largest size.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine, type Engine } from '../src-main/engine';
import { BACKGROUND_NICE } from '../src-main/engine/thread-priority';
import { createEngineApi } from '../src-main/engine/api';
import { createAssertions } from '../src-main/engine/assertions/service';
import { MIGRATIONS } from '../src-main/engine/store/schema';
import { MAX_MESSAGES_PER_COMMIT } from '../src-main/engine/store/group-commit';
import { openDatabase } from '../src-main/engine/store/database';
import { listen } from '../src-main/serve/server';
import type { EngineApi } from '../src-shared/api';
import { fmt, percentile, RECEIVER_WORKER, runWorker } from './support/load';
import { scaleConfig, seedDeliveries, seededMessageId, usersFor } from './support/seed';
import { costPerMessage, formatCosts } from './support/dbstat';
import { ingestFlat } from './support/ingest-flat';
import { upgradeCaughtUp } from './support/seeded-engine';
import { followUpAtOnce } from './support/follow-up';

const require = createRequire(import.meta.url);
/** Bump when the seed's rows change, so a cached folder of the old shape is not reused. */
const SEED_VERSION = 2;
const SCALE = (process.env.SCALE ?? '1m').toLowerCase();
const COUNT = Math.round(Number.parseFloat(SCALE) * (SCALE.endsWith('m') ? 1e6 : SCALE.endsWith('k') ? 1e3 : 1));
const RUNS = Number(process.env.RUNS ?? 20);
/** A slow call stops repeating after this long (it still runs at least MIN_RUNS times). */
const CALL_BUDGET_MS = Number(process.env.CALL_BUDGET_MS ?? 8000);
const MIN_RUNS = 5;
const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 6);
/** Rounds of quiet-then-under-the-UI ingest with the read worker, pooled for the p99s. */
const UNDER_LOAD_ROUNDS = Number(process.env.UNDER_LOAD_ROUNDS ?? 3);
const WRITE_KEY = 'wk_scale';
const HOOK_PATH = '/hook';

if (!Number.isFinite(COUNT) || COUNT < 1000) throw new Error(`SCALE must be a count of at least 1k (such as 1m, 10m, 200k), not "${SCALE}"`);

const root = new URL('..', import.meta.url).pathname;
const cacheDir = join(root, 'bench', '.cache', `scale-${COUNT}-seed${SEED_VERSION}`);
const folderBytes = (dir: string): number => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function schemaOf(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

async function seed(): Promise<void> {
  if (existsSync(join(cacheDir, 'done')) && schemaOf(join(cacheDir, 'data', 'hookbench.sqlite')) <= MIGRATIONS.length) {
    console.log(`seeded folder: cached (${cacheDir}), ${fmt(folderBytes(join(cacheDir, 'data')) / 1024 / 1024)} MB`);
    return;
  }
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  const data = join(cacheDir, 'data');
  const t0 = performance.now();
  const engine = createEngine({ dataDir: data });
  engine.applyConfig(scaleConfig('http://127.0.0.1:9/hook'));
  const source = engine.stores.config.listSources()[0]!;
  const destination = engine.stores.config.listDestinations()[0]!;
  // Ingest's write path must stay flat as the log grows: the seeding rate of each tenth of the log.
  const tenth = Math.ceil(COUNT / 10);
  const tenths: number[] = [];
  let mark = performance.now();
  const onBatch = (seeded: number): void => {
    // What the engine does a moment after each commit, counted in the rate: the batch's messages
    // into the search index and the profiles (the follow-up).
    followUpAtOnce(engine.stores);
    if (seeded % tenth !== 0 && seeded !== COUNT) return;
    const now = performance.now();
    tenths.push((seeded - tenths.length * tenth) / ((now - mark) / 1000));
    mark = now;
  };
  // Newest message a minute ago; older ones a millisecond apart.
  seedDeliveries(engine.stores.log, COUNT, { sourceId: source.id, destinationId: destination.id, url: 'https://hooks.example.com/segment', now: Date.now() - 60_000, batch: 1000, realistic: true, onBatch });
  await engine.stop();
  const db = new Database(join(data, 'hookbench.sqlite'));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const seconds = (performance.now() - t0) / 1000;
  const bytes = folderBytes(data);
  mkdirSync(join(cacheDir, 'done'));
  console.log(`seeded ${fmt(COUNT)} messages in ${fmt(seconds, 1)} s (${fmt(COUNT / seconds)}/s); ${fmt(bytes / 1024 / 1024)} MB, ${fmt(bytes / COUNT)} bytes per message`);
  console.log(`seeding rate by tenth of the log (messages/s): ${tenths.map((r) => fmt(r)).join(', ')}; last tenth / first: ${fmt((tenths.at(-1) ?? NaN) / (tenths[0] ?? NaN), 2)}`);
}

interface Timing {
  name: string;
  runs: number[];
}

async function timeCall(name: string, fn: (run: number) => Promise<unknown> | unknown): Promise<Timing> {
  await fn(-1); // warm
  const runs: number[] = [];
  const started = performance.now();
  for (let k = 0; k < RUNS && (k < MIN_RUNS || performance.now() - started < CALL_BUDGET_MS); k++) {
    const t = performance.now();
    await fn(k);
    runs.push(performance.now() - t);
  }
  return { name, runs: runs.sort((a, b) => a - b) };
}

function baselineLookup(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true });
  const get = db.prepare('SELECT * FROM messages WHERE id = ?');
  const runs: number[] = [];
  for (let k = 0; k < 2000; k++) {
    const id = 1 + ((k * 104_729) % COUNT);
    const t = performance.now();
    get.get(id);
    runs.push(performance.now() - t);
  }
  db.close();
  return percentile(runs.sort((a, b) => a - b), 50);
}

/** Posts batches of 10 messages every 10 ms for `seconds`; each request's acknowledgement time. */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require(workerData.undici);
const { url, seconds, auth, tag } = workerData;
const pool = new Pool(url, { connections: 8 });
const acks = [];
let seq = 0, inflight = 0, failures = 0, tick = 0;
const ticks = seconds * 100;
const start = performance.now();
function loop() {
  if (tick >= ticks) {
    const wait = () => inflight > 0 ? setTimeout(wait, 5) : pool.close().then(() => parentPort.postMessage({ acks, failures }));
    return wait();
  }
  tick++;
  const batch = [];
  for (let k = 0; k < 10; k++) batch.push({ type: 'track', userId: 'load-' + (seq % 100), event: 'Load', messageId: tag + '-' + seq++, properties: { k } });
  const t = performance.now();
  inflight++;
  pool.request({ path: '/v1/batch', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) })
    .then(async (res) => { await res.body.text(); if (res.statusCode !== 200) failures++; acks.push(performance.now() - t); })
    .catch(() => failures++)
    .finally(() => { inflight--; });
  setTimeout(loop, Math.max(0, start + tick * 10 - performance.now()));
}
loop();
`;

async function ingestAcks(url: string, tag: string): Promise<{ acks: number[]; failures: number }> {
  const auth = `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`;
  const client = runWorker<{ acks: number[]; failures: number }>(CLIENT, { url, seconds: LOAD_SECONDS, auth, tag, undici: require.resolve('undici') });
  const r = await client.result;
  await client.worker.terminate();
  return { acks: r.acks.sort((a, b) => a - b), failures: r.failures };
}

async function untilSettled(engine: Engine, deletionId: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const d = engine.deletions.get(deletionId);
    if (d && d.status === 'forwarded' && d.purgedAt !== null) return;
    if (Date.now() > deadline) throw new Error(`deletion ${deletionId} not forwarded and purged within 120 s: ${JSON.stringify(d)}`);
    await sleep(1);
  }
}

/** The k-th of a spread of users the seed made, for the calls that name one. */
function someUser(k: number): string {
  return `user_${(k * 37 + 11) % usersFor(COUNT)}`;
}

interface Phase {
  acks: number[];
  failures: number;
  /** The engine thread's longest event-loop stall, and the WAL file's largest size seen (every 20 ms). */
  stallMs: number;
  /** The longest garbage collection pause on the engine's thread. */
  gcMs: number;
  walMaxBytes: number;
}

interface UnderLoad {
  quiet: Phase;
  loaded: Phase;
  uiCalls: number;
}

/** Ingest acknowledgements for LOAD_SECONDS, with what the engine's thread and the WAL did meanwhile. */
async function phase(url: string, tag: string, walPath: string): Promise<Phase> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs = Math.max(gcMs, e.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  let walMaxBytes = 0;
  const sampler = setInterval(() => {
    walMaxBytes = Math.max(walMaxBytes, existsSync(walPath) ? statSync(walPath).size : 0);
  }, 20);
  try {
    const r = await ingestAcks(url, tag);
    return { ...r, stallMs: loop.max / 1e6, gcMs, walMaxBytes };
  } finally {
    gc.disconnect();
    clearInterval(sampler);
    loop.disable();
  }
}

/**
 * Ingest acknowledgement quiet, then with the heaviest UI calls in a loop. A first run, not
 * counted, lets what came before settle (the checkpoint of the profiles' and purges' writes) and
 * warms the client's connections (and starts the read worker, when there is one).
 */
async function ingestUnderLoad(url: string, api: EngineApi, walPath: string): Promise<UnderLoad> {
  let uiCalls = 0;
  const heavy = [
    () => api.countDeliveries({ text: someUser(uiCalls) }),
    () => api.listDeliveries({ text: `nobody-${uiCalls}` }),
    () => api.listDeliveries({ url: `nowhere-${uiCalls}.example` }),
    () => api.countDeliveriesByStatus(),
    () => api.listProfiles({}),
    () => api.countDeliveries({ violations: 'any' }),
    () => api.listDeliveries({ status: 'failed', replayed: true }),
  ];
  for (const call of heavy) await call();
  await ingestAcks(url, `warm-${Date.now()}`);
  const quiet = await phase(url, `quiet-${Date.now()}`, walPath);
  let loading = true;
  const ui = (async () => {
    while (loading) {
      await heavy[uiCalls % heavy.length]!();
      uiCalls++;
      // A transport answers one call, then reads the next from the socket: a turn of the loop between.
      await new Promise((r) => setImmediate(r));
    }
  })();
  const loaded = await phase(url, `loaded-${Date.now()}`, walPath);
  loading = false;
  await ui;
  return { quiet, loaded, uiCalls };
}

async function main(): Promise<void> {
  console.log(`scale  ${fmt(COUNT)} messages, one delivery each (${fmt(usersFor(COUNT))} users); median and p99 of up to ${RUNS} warm runs`);
  await seed();
  if (process.env.SEED_ONLY) return;
  const work = mkdtempSync(join(tmpdir(), 'hookbench-bench-scale-'));
  const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: false });
  try {
    const t0 = performance.now();
    cpSync(join(cacheDir, 'data'), join(work, 'data'), { recursive: true });
    console.log(`copied the seeded folder in ${fmt((performance.now() - t0) / 1000, 1)} s`);
    // Nothing of the copy is left to write back while the calls run (a user's log has no 17 GB
    // backlog queued ahead of its reads); on these machines the copy is written back as it goes
    // and this takes no time, elsewhere it may.
    const tSync = performance.now();
    spawnSync('sync');
    console.log(`wrote the copy to disk (sync) in ${fmt((performance.now() - tSync) / 1000, 1)} s`);
    const dbPath = join(work, 'data', 'hookbench.sqlite');
    if (schemaOf(dbPath) < MIGRATIONS.length) {
      const t = performance.now();
      const from = schemaOf(dbPath);
      openDatabase(dbPath).close();
      console.log(`migrated the copy from schema ${from} to ${MIGRATIONS.length} in ${fmt((performance.now() - t) / 1000, 1)} s`);
    }
    if (process.env.INGEST_ONLY) {
      await ingestAtNAgainst0(work);
      return;
    }
    const { port } = await receiver.result;
    const hook = `http://127.0.0.1:${port}${HOOK_PATH}`;
    if (process.env.UNDER_LOAD_ONLY) {
      await underLoadOnly(work, hook, Number(process.env.UNDER_LOAD_ONLY) || 1);
      return;
    }

    // Start-up to listening, on the seeded folder (the first start also applies the config).
    const startups: number[] = [];
    for (let k = 0; k < 3; k++) {
      const t = performance.now();
      const e = createEngine({ dataDir: join(work, 'data') });
      if (k === 0) e.applyConfig(scaleConfig(hook));
      e.start();
      const s = await listen(e, '127.0.0.1', 0);
      startups.push(performance.now() - t);
      await s.close();
      await e.stop();
    }

    const base = baselineLookup(dbPath);
    const engine = createEngine({ dataDir: join(work, 'data') });
    engine.start();
    const server = await listen(engine, '127.0.0.1', 0);
    const api = createEngineApi(engine);
    // A log from before commits kept the profiles current owes them its backlog, read in slices
    // after start; the first profiles call answers at once with what is built.
    const tFirst = performance.now();
    const firstPage = await api.listProfiles({});
    const firstCall = performance.now() - tFirst;
    const owed = firstPage.catchingUp;
    await engine.personas.current();
    const catchUp = performance.now() - tFirst;
    console.log(
      owed === undefined
        ? 'profiles: current at start (the seed kept them as it committed)'
        : `profiles: caught up with a log from before in ${fmt(catchUp / 1000, 1)} s after start (${fmt(owed.of - owed.read)} messages owed)`,
    );
    // A log from before the search index is taken into it in slices after start; measured until done.
    const tIndex = performance.now();
    while (!engine.stores.deliveryViews.textIndexReady()) await sleep(20);
    console.log(`search index caught up in ${fmt((performance.now() - tIndex) / 1000, 1)} s`);
    // Bodies written before they were packed are packed in slices after start; measured until done.
    const tPack = performance.now();
    while (!engine.stores.log.bodiesPacked()) await sleep(20);
    console.log(`delivery bodies packed in ${fmt((performance.now() - tPack) / 1000, 1)} s after the search index`);
    // A log from before the message tallies is tallied in slices after start, newest first.
    const tTallies = performance.now();
    while (engine.stores.tallies.range().below !== 0) await sleep(20);
    console.log(`message tallies caught up ${fmt((performance.now() - tTallies) / 1000, 1)} s after the bodies`);
    // A log from before the list of rare delivery statuses is listed in slices after start, newest first.
    const tRare = performance.now();
    while (!engine.stores.rareStatuses.ready()) await sleep(20);
    console.log(`retrying, failed and discarded deliveries listed ${fmt((performance.now() - tRare) / 1000, 1)} s after the tallies`);
    const tTimes = performance.now();
    while (!engine.stores.messageTimes.ready()) await sleep(20);
    console.log(`the messages' times taken in ${fmt((performance.now() - tTimes) / 1000, 1)} s after the rare statuses`);
    const tUrls = performance.now();
    while (!engine.stores.attemptUrlRanges.ready()) await sleep(20);
    console.log(`the attempt URLs' ranges filled ${fmt((performance.now() - tUrls) / 1000, 1)} s after the messages' times`);
    // What each table and index costs now, on a connection of its own (dbstat reads every page).
    const stat = new Database(dbPath, { readonly: true });
    console.log(formatCosts(costPerMessage(stat)));
    stat.close();

    const rows: Timing[] = [];
    rows.push(await timeCall('deliveries, first page, no filter', () => api.listDeliveries({})));
    const second = (await api.listDeliveries({})).nextBeforeId ?? undefined;
    rows.push(await timeCall('deliveries, next page (keyset)', () => api.listDeliveries({ beforeId: second })));
    rows.push(await timeCall('free-text search, user that exists', (k) => api.listDeliveries({ text: someUser(k + 1) })));
    rows.push(await timeCall('free-text search, no match', (k) => api.listDeliveries({ text: `nobody-${k}` })));
    rows.push(await timeCall('URL filter, no match', (k) => api.listDeliveries({ url: `nowhere-${k}.example` })));
    rows.push(await timeCall('status filter with no rows (pending)', () => api.listDeliveries({ status: 'pending' })));
    rows.push(await timeCall('status filter, failed', () => api.listDeliveries({ status: 'failed' })));
    rows.push(await timeCall('type + status filter (identify, failed)', () => api.listDeliveries({ type: 'identify', status: 'failed' })));
    rows.push(await timeCall('count with a text filter', (k) => api.countDeliveries({ text: someUser(k + 1) })));
    rows.push(await timeCall('free-text search, an event on many messages', () => api.listDeliveries({ text: 'Completed' })));
    rows.push(await timeCall('count with a text filter on many messages (capped)', () => api.countDeliveries({ text: 'Completed' })));
    rows.push(await timeCall('free-text search, a messageId (exact)', (k) => api.listDeliveries({ text: seededMessageId((k * 7919) % COUNT) })));
    rows.push(await timeCall('free-text search, the start of a messageId', (k) => api.listDeliveries({ text: seededMessageId((k * 7919) % COUNT).slice(0, 12) })));
    rows.push(await timeCall('free-text search, two characters (read in windows)', (k) => api.listDeliveries({ text: `q${k % 10}` })));
    // Filters no index serves, each call bounded in time (READ_BUDGET_MS), found by walking the UI at 10M.
    rows.push(await timeCall('violations filter (tracking plan), page', () => api.listDeliveries({ violations: 'any' })));
    rows.push(await timeCall('violations filter, count', () => api.countDeliveries({ violations: 'any' })));
    rows.push(await timeCall('URL filter, the URL of old attempts', () => api.listDeliveries({ url: 'hooks.example' })));
    rows.push(await timeCall('URL filter, the URL of old attempts, count', () => api.countDeliveries({ url: 'hooks.example' })));
    rows.push(await timeCall('replayed filter (failed, replayed)', () => api.listDeliveries({ status: 'failed', replayed: true })));
    rows.push(await timeCall('replayed filter, count', () => api.countDeliveries({ status: 'failed', replayed: true })));
    rows.push(await timeCall('count with no filter', () => api.countDeliveries({})));
    rows.push(await timeCall('count by status', () => api.countDeliveriesByStatus()));
    rows.push(await timeCall('delivery detail', (k) => api.getDelivery(1 + (((k + 2) * 7919) % COUNT))));
    rows.push(await timeCall('Inbound, first page', () => api.listRequests({})));
    rows.push(await timeCall('deletions list', () => api.listDeletions()));

    rows.push(await timeCall('profiles, first page', () => api.listProfiles({})));
    const somePages: string[] = [];
    for (let after = (await api.listProfiles({})).next; after !== null && somePages.length < 20; after = (await api.listProfiles({ after })).next) somePages.push(after);
    rows.push(await timeCall('profiles, a later page', (k) => api.listProfiles({ after: somePages[Math.max(0, k) % somePages.length] })));
    rows.push(await timeCall('profile detail', (k) => api.getProfile(someUser(k + 3))));
    rows.push(await timeCall('audience preview', () =>
      api.previewComputation({ condition: { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 } })));
    rows.push(await timeCall('audience preview, event and trait', () =>
      api.previewComputation({ condition: { kind: 'and', all: [{ kind: 'event', event: 'Order Completed', atLeast: 2 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] } })));
    rows.push(await timeCall('computed trait preview (last property)', () =>
      api.previewComputation({ rule: { kind: 'last_property', event: 'Product Viewed', property: 'product_id' } })));
    // The CI assertions API (/api/messages/wait, /api/messages): after a marker, as a CI run asks,
    // by a user (indexed), and by fields the message tallies keep, without a marker.
    const assertions = createAssertions(engine);
    const marked = await assertions.reset({ mark: 'scale-bench' });
    const marker = 'marker' in marked ? marked.marker.name : 'scale-bench';
    rows.push(await timeCall('CI: a wait after a marker (timeout 0)', () => assertions.wait({ marker, event: 'Order Completed', timeout: 0 })));
    rows.push(await timeCall("CI: a user's messages, no marker", (k) => assertions.messages({ userId: someUser(k + 5) })));
    rows.push(await timeCall('CI: an event nobody sent, no marker', () => assertions.messages({ event: 'Never Sent' })));
    rows.push(await timeCall('CI: a wait for an event, no marker (count and page)', () => assertions.wait({ event: 'Order Completed', timeout: 0 })));
    rows.push(await timeCall('CI: a rare type, no marker', () => assertions.messages({ type: 'alias' })));
    const middle = engine.stores.assertions.receivedAfter(Math.floor(engine.stores.assertions.lastMessageId() / 2)) ?? 0;
    rows.push(await timeCall('CI: a type in a minute of the log, no marker', () => assertions.count({ type: 'identify', since: middle, until: middle + 60_000 })));
    rows.push(await timeCall('CI: violation counts, the whole log', () => assertions.violationCounts()));
    // A deletion with purge: the call (what the UI waits for), then until the notice is delivered
    // and the purge's steps are done in the background, and the longest the engine's event loop
    // went without a turn meanwhile (libuv's timer; read a moment after, since it records a stall
    // at its next tick).
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const deletion = { call: [] as number[], purged: [] as number[], stall: [] as number[] };
    for (let k = -1; k < RUNS; k++) {
      const t = performance.now();
      const d = await api.requestDeletion({ userId: someUser(1000 + k), purge: true });
      const call = performance.now() - t;
      loop.reset();
      await untilSettled(engine, d.id);
      const purged = performance.now() - t;
      await sleep(5);
      if (k < 0) continue;
      deletion.call.push(call);
      deletion.purged.push(purged);
      deletion.stall.push(loop.max / 1e6);
    }
    loop.disable();
    const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
    rows.push({ name: 'deletion with purge: the call', runs: sorted(deletion.call) });
    rows.push({ name: 'deletion with purge, until forwarded and purged', runs: sorted(deletion.purged) });
    rows.push({ name: 'deletion with purge: longest event-loop stall after the call', runs: sorted(deletion.stall) });

    // Ingest acknowledgement at 1,000 messages/s, quiet and under the heaviest UI calls: with the
    // read worker, then on an engine without one (every read on its thread, the wide ones in windows).
    spawnSync('sync');
    const withWorker = await underLoadRounds('with the read worker', UNDER_LOAD_ROUNDS, () => ingestUnderLoad(server.url, api, `${dbPath}-wal`));
    await server.close();
    await engine.stop();
    const bare = createEngine({ dataDir: join(work, 'data'), readWorkerEntry: null });
    bare.start();
    const bareServer = await listen(bare, '127.0.0.1', 0);
    const withoutWorker = await underLoadRounds('without it (every read on the engine thread, wide ones in windows)', 1, () =>
      ingestUnderLoad(bareServer.url, createEngineApi(bare), `${dbPath}-wal`),
    );
    await bareServer.close();
    await bare.stop();

    const w = Math.max(...rows.map((r) => r.name.length));
    console.log(`raw baseline: primary-key lookup of one message on the same file: median ${fmt(base * 1000, 1)} µs`);
    console.log(`${'call'.padEnd(w)}  runs    median       p99   median/baseline`);
    for (const r of rows) {
      const med = percentile(r.runs, 50);
      console.log(`${r.name.padEnd(w)}  ${String(r.runs.length).padStart(4)}  ${fmt(med, 2).padStart(8)} ms ${fmt(percentile(r.runs, 99), 2).padStart(8)} ms  ${fmt(med / base).padStart(10)}×`);
    }
    console.log(`${'first profiles call after start'.padEnd(w)}     1  ${fmt(firstCall, 2).padStart(8)} ms`);
    if (owed !== undefined) console.log(`${"profiles' catch-up of a log from before (slices)".padEnd(w)}     1  ${fmt(catchUp, 0).padStart(8)} ms`);
    const su = startups.sort((a, b) => a - b);
    console.log(`${'start-up to listening'.padEnd(w)}     3  ${fmt(percentile(su, 50), 0).padStart(8)} ms ${fmt(su.at(-1) ?? NaN, 0).padStart(8)} ms`);
    console.log(`ingest acknowledgement, 1,000 messages/s in batches of 10 for ${LOAD_SECONDS} s:`);
    for (const l of [...withWorker, ...withoutWorker]) console.log(l);
    // Last: it adds messages to the copy, which the calls above must not read (a started engine
    // would also be sending their deliveries while the calls run).
    await ingestAtNAgainst0(work);
  } finally {
    await receiver.worker.terminate();
    rmSync(work, { recursive: true, force: true });
  }
}

function underLoadLines(label: string, m: UnderLoad): string[] {
  const line = (what: string, r: Phase): string =>
    `    ${what}: ${fmt(r.acks.length)} requests, p50 ${fmt(percentile(r.acks, 50), 1)} ms, p99 ${fmt(percentile(r.acks, 99), 1)} ms, max ${fmt(r.acks.at(-1) ?? NaN, 1)} ms, ${r.failures} failed; ` +
    `longest stall ${fmt(r.stallMs, 1)} ms (GC ${fmt(r.gcMs, 1)} ms), WAL up to ${fmt(r.walMaxBytes / 2 ** 20, 1)} MiB`;
  return [
    `  ${label}:`,
    line('quiet                        ', m.quiet),
    line(`heaviest UI calls in a loop  `, m.loaded) + ` (${fmt(m.uiCalls)} UI calls)`,
    `    ratio of p99s (quiet / under UI load): ${fmt(percentile(m.quiet.acks, 99) / percentile(m.loaded.acks, 99), 2)}`,
  ];
}

/** Every round's acknowledgements together, quiet and under the UI calls: their p50s, p99s and the ratio of the p99s. */
function pooledLine(label: string, rounds: number, quiet: number[], loaded: number[]): string {
  const [q, l] = [[...quiet].sort((a, b) => a - b), [...loaded].sort((a, b) => a - b)];
  return (
    `  ${label}, all ${rounds} rounds: quiet p50 ${fmt(percentile(q, 50), 1)} ms, p99 ${fmt(percentile(q, 99), 1)} ms; under the UI calls p50 ${fmt(percentile(l, 50), 1)} ms, ` +
    `p99 ${fmt(percentile(l, 99), 1)} ms; ratio of p99s (quiet / under UI load) ${fmt(percentile(q, 99) / percentile(l, 99), 2)}`
  );
}

/**
 * `rounds` rounds of ingestUnderLoad, each printed, then every round's requests together: one
 * round's p99 is its sixth slowest request, and the rounds together say more than any one.
 */
async function underLoadRounds(label: string, rounds: number, round: () => Promise<UnderLoad>, print = false): Promise<string[]> {
  const lines: string[] = [];
  const say = (more: string[]): void => {
    lines.push(...more);
    if (print) for (const l of more) console.log(l);
  };
  const quiet: number[] = [];
  const loaded: number[] = [];
  for (let k = 1; k <= rounds; k++) {
    const r = await round();
    say(underLoadLines(`${label}, round ${k} of ${rounds}`, r));
    quiet.push(...r.quiet.acks);
    loaded.push(...r.loaded.acks);
  }
  say([pooledLine(label, rounds, quiet, loaded)]);
  return lines;
}

/**
 * Only the ingest acknowledgement quiet and under the UI's heaviest calls, for comparing a change
 * to it without the whole table: `rounds` rounds each on an engine whose read worker runs at the
 * lower priority it has (BACKGROUND_NICE) and on one whose worker runs at the engine's, the two
 * alternating (and which goes first too), then each side's rounds pooled.
 */
async function underLoadOnly(work: string, hook: string, rounds: number): Promise<void> {
  const sides = [
    { label: `read worker at nice ${BACKGROUND_NICE}`, nice: BACKGROUND_NICE, quiet: [] as number[], loaded: [] as number[] },
    { label: "read worker at the engine's priority", nice: null, quiet: [] as number[], loaded: [] as number[] },
  ];
  console.log(`ingest acknowledgement, 1,000 messages/s in batches of 10 for ${LOAD_SECONDS} s:`);
  for (let k = 1; k <= rounds; k++) {
    for (const side of k % 2 === 1 ? sides : [...sides].reverse()) {
      const engine = createEngine({ dataDir: join(work, 'data'), readWorkerNice: side.nice });
      engine.applyConfig(scaleConfig(hook));
      engine.start();
      const server = await listen(engine, '127.0.0.1', 0);
      const t0 = performance.now();
      try {
        await engine.personas.current();
        while (!upgradeCaughtUp(engine)) await sleep(20);
        if (k === 1) console.log(`caught up after start in ${fmt((performance.now() - t0) / 1000, 1)} s (profiles, search index, packed bodies, tallies, rare statuses, times)`);
        // What the copy, the catch-ups and the last round wrote is flushed before measuring, so
        // that the disk's write-back of them does not land in one phase or the other.
        spawnSync('sync');
        const r = await ingestUnderLoad(server.url, createEngineApi(engine), join(work, 'data', 'hookbench.sqlite-wal'));
        for (const l of underLoadLines(`${side.label}, round ${k} of ${rounds}`, r)) console.log(l);
        side.quiet.push(...r.quiet.acks);
        side.loaded.push(...r.loaded.acks);
      } finally {
        await server.close();
        await engine.stop();
      }
    }
  }
  for (const side of sides) console.log(pooledLine(side.label, rounds, side.quiet, side.loaded));
}

/** Ingest into the copied log against ingest into an empty one, alternating: flat from 0 to N? */
async function ingestAtNAgainst0(work: string): Promise<void> {
  const flat = await ingestFlat({ dataDir: join(work, 'data'), count: COUNT, seconds: Number(process.env.INGEST_SECONDS ?? 10) });
  console.log(
    `ingest's write path (commits of ${MAX_MESSAGES_PER_COMMIT} realistic messages, then the follow-up), ${fmt(flat.blocks)} alternating blocks each side: ` +
      `at ${fmt(COUNT)} ${fmt(flat.atN.rate)} messages/s (${fmt(flat.atN.messages)} in ${fmt(flat.atN.seconds, 1)} s), ` +
      `at 0 ${fmt(flat.atZero.rate)} messages/s (${fmt(flat.atZero.messages)} in ${fmt(flat.atZero.seconds, 1)} s); at N / at 0: ${fmt(flat.ratio, 2)}`,
  );
  console.log(
    `  of which the commits: ${fmt(flat.atN.commitSeconds, 1)} s at N, ${fmt(flat.atZero.commitSeconds, 1)} s at 0 (ratio ${fmt(flat.atZero.commitSeconds / flat.atN.commitSeconds, 2)}); ` +
      `the follow-ups: ${fmt(flat.atN.followUpSeconds, 1)} s at N, ${fmt(flat.atZero.followUpSeconds, 1)} s at 0 (ratio ${fmt(flat.atZero.followUpSeconds / flat.atN.followUpSeconds, 2)})`,
  );
}

await main();
