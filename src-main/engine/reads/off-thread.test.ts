import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { seedDeliveries } from '../../../bench/support/seed';
import type { DeliveryFilter, DeliveryPage } from '../../../src-shared/api';
import type { InboundMessage } from '../../../src-shared/events';
import { createEngineApi } from '../api';
import { atOnce, countReadsOffThread, createDeliveryReads, inWindows, pageReadsOffThread, parseDeliveryFilter, parseDeliveryPage, TEXT_SCAN_BUDGET } from '../api/deliveries';
import { ManualClock } from '../clock';
import { createEngine, type Engine } from '../index';
import { classifyStorageError } from '../store/storage-fault';
import { errorOf, RESTART_DELAY_MS } from './off-thread';
import { failureOf, type ReadOp, type ReadResult } from './protocol';
import { MIN_WALK_MESSAGES } from '../store/delivery-views';
import { ANY_MESSAGE, type MessageQueryFilter } from '../store/assertions';
import { BACKGROUND_NICE, threadIdOf } from '../thread-priority';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const HOOK = 'http://127.0.0.1:9/hook';

function newEngine(prefix: string, clock = new ManualClock(T0), readCountBudgetMs = Number.POSITIVE_INFINITY): { engine: Engine; dir: string; clock: ManualClock } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // No time limit on the worker's text counts unless asked: the tests compare them with the engine thread's.
  const engine = createEngine({ dataDir: dir, clock, readCountBudgetMs, readBudgetMs: Number.POSITIVE_INFINITY });
  engine.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: HOOK, headers: {} }] }],
  });
  return { engine, dir, clock };
}

/** newEngine for one test: stopped and its folder removed after it. */
function engineFor(t: TestContext, prefix: string): Engine {
  const { engine, dir } = newEngine(prefix);
  t.after(async () => {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return engine;
}

/** A thread's nice value as the kernel has it: the 19th field of its stat line (after the command's closing parenthesis). */
function niceOfThread(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/** A read that only the worker may answer: its fallback fails the test. */
function onWorker<K extends ReadOp>(engine: Engine, op: K, args: Parameters<Engine['reads']['run']>[1]): Promise<ReadResult<K>> {
  return engine.reads.run(op, args as never, () => Promise.reject(new Error(`${op} ran on the engine's thread, not on the worker`))) as Promise<ReadResult<K>>;
}

/** Calls until the worker (started by the first call) answers one; bounded, since starting it compiles its modules. */
async function untilWorkerAnswers(engine: Engine): Promise<void> {
  const deadline = Date.now() + 60_000;
  const f = parseDeliveryFilter({ text: 'warm' });
  for (;;) {
    const before = engine.reads.stats().offThread;
    await engine.reads.run('deliveries.count', f, async () => ({ total: 0, matching: 0 }));
    if (engine.reads.stats().offThread > before) return;
    if (Date.now() > deadline) throw new Error('the read worker did not answer within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the read worker answers what the engine thread would', () => {
  let engine: Engine;
  let dir: string;
  let replayId = 0;

  before(async () => {
    ({ engine, dir } = newEngine('hookbench-reads-'));
    seedDeliveries(engine.stores.log, 3_000, { sourceId: 1, destinationId: 1, url: 'https://Old-Host.example/hook', now: T0, batch: 1000 });
    replayId = engine.replay(7, { targetUrl: 'http://replay-target.example/x' });
    // Deliveries made after their message's commit, which a text page merges into the index's walk:
    // replays of old deliveries (one of a replay), a test event and a delete notice naming a user.
    engine.replay(engine.replay(1_203));
    engine.replay(2_950);
    const body = (fields: object): Uint8Array => Buffer.from(JSON.stringify(fields));
    engine.stores.log.createTest({ destinationId: 1, payloadType: 'track', body: body({ userId: 'user_42', event: 'Order Completed' }), targetUrl: null, now: T0 });
    engine.stores.log.createPrebuilt({ destinationId: 1, payloadType: 'track', body: body({ userId: 'user_4', event: 'Deletion Requested' }), now: T0 });
    await untilWorkerAnswers(engine);
  });
  after(async () => {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const pages: DeliveryPage[] = [
    { text: 'user_42' },
    { text: 'user_4', limit: 13, beforeId: 2_000 },
    { text: 'user_4', limit: 7, oldest: true },
    { text: 'Zq' },
    { text: 'se', limit: 200 },
    { text: 'ORDER comp' },
    { url: 'old-host' },
    { url: 'replay-target' },
    { url: 'nowhere.example' },
    { type: 'alias' },
    { type: 'track', status: ['failed', 'retrying'] },
    { replayed: true },
    { replayed: false, text: 'user_1', limit: 500 },
    { violations: 'none', text: 'seed-29' },
    { text: 'user_2', from: new Date(T0 - 2_000_000).toISOString(), to: new Date(T0 - 1_000_000).toISOString() },
    { text: 'user_2', status: 'pending' },
    { text: 'Completed', limit: 50 },
    { text: 'Completed', limit: 20, oldest: true },
    { text: 'Completed', limit: 30, beforeId: 1_500, afterId: 200 },
    { text: 'user_4', replayed: true },
    { text: 'user_42', limit: 5, afterId: 2_900 },
    { text: 'Order', type: 'track', limit: 40, beforeId: 3_100 },
  ];

  test('pages and counts, for a table of filters, equal those read on the engine thread in windows', async () => {
    const here = createDeliveryReads(engine.stores.deliveryViews, inWindows, { now: () => 0 });
    for (const page of pages) {
      const p = parseDeliveryPage(page);
      assert.deepEqual(await onWorker(engine, 'deliveries.list', p), await here.list(p), `page ${JSON.stringify(page)}`);
      const { limit: _l, beforeId: _b, afterId: _a, oldest: _o, ...filter } = page;
      const f = parseDeliveryFilter(filter as DeliveryFilter);
      assert.deepEqual(await onWorker(engine, 'deliveries.count', f), await here.count(f), `count ${JSON.stringify(filter)}`);
    }
    // The table is not trivial: most filters find rows.
    const found = await Promise.all(pages.map(async (page) => (await onWorker(engine, 'deliveries.list', parseDeliveryPage(page))).items.length));
    assert.ok(found.filter((n) => n > 0).length >= 10, JSON.stringify(found));
  });

  test('for random needles, limits and directions, the worker pages and counts exactly like the engine thread', async () => {
    const here = createDeliveryReads(engine.stores.deliveryViews, inWindows, { now: () => 0 });
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('u', 's', 'e', 'r', '_', '1', '2', '4', 'd', '-', 'Z', 'O'), minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 60 }),
        fc.boolean(),
        fc.constantFrom(undefined, 'track', 'identify'),
        async (text, limit, oldest, type) => {
          const p = parseDeliveryPage({ text, limit, oldest, ...(type ? { type } : {}) });
          assert.deepEqual(await onWorker(engine, 'deliveries.list', p), await here.list(p));
          const f = parseDeliveryFilter({ text, ...(type ? { type } : {}) });
          assert.deepEqual(await onWorker(engine, 'deliveries.count', f), await here.count(f));
        },
      ),
      { numRuns: 60 },
    );
  });

  test('a text no index answers is read in bounded calls: each says how far it searched, and following them finds what reading the log finds', async () => {
    const views = engine.stores.deliveryViews;
    const budget = 400;
    const windows = createDeliveryReads(views, inWindows, { textScanBudget: budget });
    const whole = createDeliveryReads(views, atOnce, { textScanBudget: budget });
    let partials = 0;
    for (const text of ['Zq', '_7', 'd4', 'se']) {
      const all = views.page({ ...parseDeliveryPage({ text }), limit: 1_000_000 }, false).map((r) => r.id);
      // Newest first, through nextBeforeId: a partial call is never the end.
      const found: number[] = [];
      for (let beforeId: number | undefined, calls = 0; ; calls++) {
        assert.ok(calls < 400, 'bounded calls reach the end of the log');
        const p = parseDeliveryPage({ text, limit: 30, ...(beforeId ? { beforeId } : {}) });
        const page = await windows.list(p);
        assert.deepEqual(await whole.list(p), page, `${text} in windows and at once`);
        found.push(...page.items.map((d) => d.id));
        if (page.partial) {
          partials++;
          assert.ok(page.items.length < 30);
          assert.deepEqual(page.partial.resume, { beforeId: page.nextBeforeId });
          const stop = page.nextBeforeId ?? 0;
          assert.ok((beforeId ?? views.idRange()!.high + 1) - stop <= budget, 'one call reads at most the budget');
          assert.equal(page.partial.searchedTo, new Date(views.firstAtOrAbove(stop)!.created_at).toISOString());
          assert.ok(page.items.every((d) => d.id >= stop));
        }
        if (page.nextBeforeId === null) break;
        beforeId = page.nextBeforeId;
      }
      assert.deepEqual(found, all, `${text}: newest first`);
      // Oldest first, through resume.afterId.
      const oldest: number[] = [];
      for (let afterId: number | undefined, calls = 0; oldest.length < 30; calls++) {
        assert.ok(calls < 100);
        const page = await windows.list(parseDeliveryPage({ text, oldest: true, limit: 30 - oldest.length, ...(afterId ? { afterId } : {}) }));
        assert.equal(page.nextBeforeId, null);
        oldest.push(...page.items.map((d) => d.id).reverse());
        if (!page.partial) break;
        assert.ok('afterId' in page.partial.resume);
        afterId = page.partial.resume.afterId;
      }
      assert.deepEqual(oldest, [...all].reverse().slice(0, 30), `${text}: oldest first`);
      // The count covers the newest ids one call reads, and says since when.
      const f = parseDeliveryFilter({ text });
      const count = await windows.count(f);
      assert.deepEqual(await whole.count(f), count);
      if (!count.capped) {
        const high = views.idRange()!.high;
        const cut = high - budget;
        assert.equal(count.matching, all.filter((id) => id > cut).length, `${text}: counted`);
        assert.equal(count.searchedTo, new Date(views.firstAtOrAbove(cut + 1)!.created_at).toISOString());
      }
    }
    assert.ok(partials >= 10, `${partials} partial calls`);
  });

  test('the API sends wide reads to the worker, and a read right after a write sees it', async () => {
    const api = createEngineApi(engine);
    const before = engine.reads.stats();
    assert.deepEqual((await api.listDeliveries({ url: 'replay-target' })).items.map((d) => d.id), [replayId]);
    const second = engine.replay(8, { targetUrl: 'http://replay-target.example/y' });
    // Committed on the engine's connection a moment ago; the worker's next read transaction starts after it.
    assert.deepEqual((await api.listDeliveries({ url: 'replay-target' })).items.map((d) => d.id), [second, replayId]);
    assert.equal((await api.countDeliveries({ url: 'replay-target' })).matching, 2);
    assert.deepEqual(
      (await api.listRequests({ path: '/v1/', limit: 5 })).items.map((r) => r.id),
      engine.stores.requests.filteredPage({ path: '/v1/' }, Number.MAX_SAFE_INTEGER, 5).map((r) => r.id),
    );
    // Narrow reads stay on the engine's thread.
    await api.listDeliveries({ status: 'failed' });
    await api.countDeliveries({ status: 'failed' });
    const now = engine.reads.stats();
    assert.equal(now.offThread - before.offThread, 4, JSON.stringify({ before, now }));
    assert.equal(now.fallback, before.fallback);
  });

  test("the CI API's reads (the tallies' blocks, a window of messages, of deliveries, the times' ids and count, rows among ids, an anonymousId's MATCH and its batches) equal the engine thread's", async () => {
    // What the follow-up keeps a moment behind ingest: the tallies, the messages' times, the search index.
    while (!engine.stores.tallies.tallyOwed(10_000)) {
      // the rest
    }
    engine.stores.searchIndex.settle();
    const store = engine.stores.assertions;
    const last = store.lastMessageId();
    const filters: MessageQueryFilter[] = [ANY_MESSAGE, { ...ANY_MESSAGE, type: 'track' }, { ...ANY_MESSAGE, event: 'Order Completed', source: 'b' }, { ...ANY_MESSAGE, type: 'alias', violations: 'none' }];
    for (const filter of filters) {
      const label = JSON.stringify(filter);
      assert.deepEqual(await onWorker(engine, 'tallies.blocks', filter), { range: engine.stores.tallies.range(), blocks: engine.stores.tallies.blocks(filter) }, `${label}: blocks`);
      for (const [afterId, limit, throughId] of [[0, 50, last], [700, 20, 1_500], [2_990, 100, last]] as const) {
        const rows = await onWorker(engine, 'assertions.messages', { filter, afterId, limit, throughId });
        assert.deepEqual(rows, store.messages(filter, afterId, limit, throughId), `${label} (${afterId}, ${throughId}] ${limit}: messages`);
      }
      for (const extra of [{ afterDeliveryId: null, status: null, destination: null }, { afterDeliveryId: 100, status: 'pending' as const, destination: 'd' }]) {
        for (const rareStatus of extra.status === null ? [false] : [false, true]) {
          const args = { filter, extra, afterId: 50, limit: 30, throughId: store.lastDeliveryId(), rareStatus };
          assert.deepEqual(await onWorker(engine, 'assertions.deliveries', args), store.deliveries(filter, extra, 50, 30, args.throughId, rareStatus), `${label}: deliveries`);
        }
      }
      const received = store.receivedAfter(1_000) ?? 0;
      for (const [since, until, max] of [[null, null, 10_000], [received, received + 60_000, 10_000], [received, null, 10]] as const) {
        if (filter.violations !== null) continue;
        const args = { filter, since, until, afterId: 500, throughId: last - 100, max };
        assert.deepEqual(await onWorker(engine, 'assertions.countReceived', args), store.countReceived(filter, since, until, 500, last - 100, max), `${label} ${since}-${until}: count`);
        const ids = await onWorker(engine, 'assertions.receivedIds', { since, until, afterId: 500, throughId: last - 100, max });
        assert.deepEqual(ids, store.receivedIds(since, until, 500, last - 100, max), `${since}-${until}: ids`);
        for (const limit of [null, 7]) {
          assert.deepEqual(await onWorker(engine, 'assertions.among', { check: filter, ids: ids ?? [], limit }), store.among(filter, ids ?? [], limit), `${label}: among, limit ${limit}`);
        }
      }
    }
    const match = engine.stores.deliveryViews.exactValueMatch('anon-42');
    assert.ok(match !== null);
    assert.equal(await onWorker(engine, 'assertions.match', { value: 'anon-42' }), match);
    const indexed = { parts: engine.stores.searchIndex.parts(), match, through: engine.stores.searchIndex.through() };
    for (const limit of [null, 5]) {
      const batch = await onWorker(engine, 'assertions.candidateBatch', { indexed, after: 0, through: last, max: 1_000, check: { ...ANY_MESSAGE, anonymousId: 'anon-42' }, limit });
      assert.deepEqual(batch, store.candidateBatch(indexed, 0, last, 1_000, { ...ANY_MESSAGE, anonymousId: 'anon-42' }, limit), `candidates, limit ${limit}`);
      assert.ok(batch.taken >= 1 && (limit === null ? batch.count >= 1 : batch.rows.length >= 1), 'anon-42 is among them');
    }
  });
});

test('a long count on the worker leaves the engine thread idle; the same count in windows here keeps it busy', async (t) => {
  const { engine, dir } = newEngine('hookbench-reads-loop-');
  try {
    seedDeliveries(engine.stores.log, 50_000, { sourceId: 1, destinationId: 1, url: 'https://Old-Host.example/hook', now: T0, batch: 1000 });
    await untilWorkerAnswers(engine);
    // Too short for the search index: every row is read.
    const f = parseDeliveryFilter({ text: 'Zq' });
    const here = createDeliveryReads(engine.stores.deliveryViews, inWindows, { now: () => 0 });
    const measure = async (read: () => Promise<unknown>): Promise<{ ms: number; busy: number; maxGapMs: number; value: unknown }> => {
      let last = performance.now();
      let maxGapMs = 0;
      const beat = setInterval(() => {
        const now = performance.now();
        maxGapMs = Math.max(maxGapMs, now - last);
        last = now;
      }, 1);
      const elu = performance.eventLoopUtilization();
      const t = performance.now();
      const value = await read();
      const ms = performance.now() - t;
      const busy = performance.eventLoopUtilization(elu).utilization;
      clearInterval(beat);
      return { ms, busy, maxGapMs: Math.max(maxGapMs, performance.now() - last), value };
    };
    const off = await measure(() => onWorker(engine, 'deliveries.count', f));
    const on = await measure(() => here.count(f));
    assert.deepEqual(off.value, on.value);
    // Bounded: one call reads the newest TEXT_SCAN_BUDGET ids and says how far it searched.
    const high = engine.stores.deliveryViews.idRange()!.high;
    const searchedTo = new Date(engine.stores.deliveryViews.firstAtOrAbove(high - TEXT_SCAN_BUDGET + 1)!.created_at).toISOString();
    assert.deepEqual(off.value, { total: 50_000, matching: 0, searchedTo });
    const report = JSON.stringify({ off, on });
    t.diagnostic(report);
    // What the worker costs this thread is a message each way; the windows cost the whole read.
    assert.ok(on.busy > 0.7, `in windows the engine thread is busy: ${report}`);
    assert.ok(off.busy < 0.35, `on the worker the engine thread is mostly idle: ${report}`);
    assert.ok(off.maxGapMs < 100, `no event-loop turn waited long while the worker read: ${report}`);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the same count asked again while the worker makes it shares its answer; a different one, or one asked after, is made afresh', async (t) => {
  const engine = engineFor(t, 'hookbench-reads-shared-count-');
  seedDeliveries(engine.stores.log, 2_000, { sourceId: 1, destinationId: 1, url: 'https://Old-Host.example/hook', now: T0, batch: 1000 });
  await untilWorkerAnswers(engine);
  const api = createEngineApi(engine);
  const worked = (): number => engine.reads.stats().offThread;
  const before = worked();
  // Five windows of the Deliveries view asking the same count in one turn, and one asking another.
  const same = await Promise.all(Array.from({ length: 5 }, () => api.countDeliveries({ violations: 'any' })));
  assert.equal(worked() - before, 1, 'five asks of one count: one read on the worker');
  for (const answer of same) assert.deepEqual(answer, same[0]);
  assert.deepEqual(same[0], engine.stores.deliveryViews.count(parseDeliveryFilter({ violations: 'any' })));
  const [any, none] = await Promise.all([api.countDeliveries({ violations: 'any' }), api.countDeliveries({ violations: 'none' })]);
  assert.equal(worked() - before, 3, 'asked after the first answered, and a different filter: a read each');
  assert.equal(any.matching + none.matching, 2_000);
});

test("the read worker runs at a lower CPU priority than the engine's thread, which keeps its own", async (t) => {
  const engine = engineFor(t, 'hookbench-reads-nice-');
  const mine = getPriority();
  await untilWorkerAnswers(engine);
  const priority = engine.reads.priority();
  if (process.platform !== 'linux') {
    assert.equal(priority, null, 'elsewhere a thread has no priority of its own: nothing is lowered');
    return;
  }
  assert.ok(priority !== null, 'on Linux the worker says which thread it is and what it now has');
  // Read from the kernel's side, not from what the worker says of itself.
  assert.equal(niceOfThread(priority.tid), Math.max(mine, BACKGROUND_NICE));
  assert.equal(priority.nice, niceOfThread(priority.tid));
  assert.notEqual(priority.tid, threadIdOf(readlinkSync('/proc/thread-self')));
  assert.equal(getPriority(), mine, "the engine's thread keeps its priority");
  assert.equal(niceOfThread(process.pid), mine, 'and so does the process');
});

test("a text count on the worker stops on the worker's own budget, after its first 100 messages, and says since when", async () => {
  const { engine, dir } = newEngine('hookbench-reads-budget-', new ManualClock(T0), 0);
  try {
    seedDeliveries(engine.stores.log, 3_000, { sourceId: 1, destinationId: 1, url: 'https://Old-Host.example/hook', now: T0, batch: 1000 });
    await untilWorkerAnswers(engine);
    const views = engine.stores.deliveryViews;
    // Every message has a userId "user_…": each is a match, one delivery each.
    const f = parseDeliveryFilter({ text: 'user_' });
    assert.deepEqual(views.count(f), { total: 3_000, matching: 3_000 });
    const high = views.idRange()!.high;
    const counted = await onWorker(engine, 'deliveries.count', f);
    assert.deepEqual(counted, { total: 3_000, matching: MIN_WALK_MESSAGES, searchedTo: new Date(views.firstAtOrAbove(high - MIN_WALK_MESSAGES + 1)!.created_at).toISOString() });
    // Through the API too (the worker answers a text count), and a needle with fewer candidates is counted whole.
    const api = createEngineApi(engine);
    assert.deepEqual(await api.countDeliveries({ text: 'user_' }), counted);
    assert.deepEqual(await api.countDeliveries({ text: 'user_42' }), views.count(parseDeliveryFilter({ text: 'user_42' })));
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('engine.stop() ends the worker thread; a killed worker is replaced and its unanswered call is read here', async () => {
  const { engine, dir, clock } = newEngine('hookbench-reads-life-');
  try {
    seedDeliveries(engine.stores.log, 2_000, { sourceId: 1, destinationId: 1, url: 'https://Old-Host.example/hook', now: T0, batch: 1000 });
    await untilWorkerAnswers(engine);
    const first = engine.reads.thread();
    assert.ok(first !== null && first.threadId > 0);
    const f = parseDeliveryFilter({ text: 'user_1' });
    // A clock that never moves: the count here is never cut short by its time budget on a busy machine.
    const here = createDeliveryReads(engine.stores.deliveryViews, inWindows, { now: () => 0 });
    const expected = await here.count(f);

    // Killed with a call waiting: the call is answered here, then the next calls too until a new worker is up.
    const exited = new Promise((resolve) => first.once('exit', resolve));
    const pending = engine.reads.run('deliveries.count', f, () => here.count(f));
    await first.terminate();
    await exited;
    assert.deepEqual(await pending, expected);
    assert.equal(engine.reads.thread(), null);
    const fallbacks = engine.reads.stats().fallback;
    assert.deepEqual(await engine.reads.run('deliveries.count', f, () => here.count(f)), expected);
    assert.ok(engine.reads.stats().fallback > fallbacks, 'read here while no worker answers');
    // Replaced no sooner than the restart delay after the last start (a worker that dies at once is not restarted in a loop).
    assert.equal(engine.reads.thread(), null);
    clock.advance(RESTART_DELAY_MS);
    await untilWorkerAnswers(engine);
    const second = engine.reads.thread();
    assert.ok(second !== null && second !== first && second.threadId !== first.threadId);
    assert.deepEqual(await onWorker(engine, 'deliveries.count', f), expected);

    const gone = new Promise((resolve) => second.once('exit', resolve));
    await engine.stop();
    await gone;
    assert.equal(second.threadId, -1, 'the thread has ended');
    assert.equal(engine.reads.thread(), null);
  } finally {
    await engine.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an error on the worker reaches the caller as the engine connection would throw it: a storage fault keeps its code', () => {
  const busy = new Database.SqliteError('database is locked', 'SQLITE_BUSY');
  const crossed = errorOf(structuredClone(failureOf(busy)));
  assert.ok(crossed instanceof Database.SqliteError);
  assert.equal((crossed as { code?: string }).code, 'SQLITE_BUSY');
  assert.equal(crossed.message, 'database is locked');
  assert.equal(classifyStorageError(crossed, { dbPath: '/x/hookbench.sqlite' })?.code, 'database_locked');
  const corrupt = errorOf(structuredClone(failureOf(new Database.SqliteError('database disk image is malformed', 'SQLITE_CORRUPT'))));
  assert.equal(classifyStorageError(corrupt, { dbPath: '/x/hookbench.sqlite' })?.code, 'database_corrupt');
  const bug = errorOf(structuredClone(failureOf(new TypeError('x is not a function'))));
  assert.equal(bug.message, 'x is not a function');
  assert.equal(classifyStorageError(bug, { dbPath: '/x/hookbench.sqlite' }), null);
});

test('which reads go to the worker: those that may scan the log; status and time alone stay on the engine thread', () => {
  const from = new Date(T0).toISOString();
  const table: [DeliveryPage, boolean, boolean][] = [
    // filter, page off-thread, count off-thread
    [{}, false, false],
    [{ status: 'failed' }, false, false],
    [{ status: ['failed', 'retrying'], beforeId: 10 }, false, false],
    [{ from }, false, true],
    [{ text: 'ab' }, true, true],
    [{ url: 'example' }, true, true],
    [{ type: 'track' }, true, true],
    [{ replayed: false }, true, true],
    [{ violations: 'any' }, true, true],
    [{ status: 'failed', text: 'user_1', oldest: true }, true, true],
  ];
  for (const [page, list, count] of table) {
    assert.equal(pageReadsOffThread(parseDeliveryPage(page)), list, `page ${JSON.stringify(page)}`);
    const { beforeId: _b, oldest: _o, ...filter } = page;
    assert.equal(countReadsOffThread(parseDeliveryFilter(filter as DeliveryFilter)), count, `count ${JSON.stringify(filter)}`);
  }
});

test('a page of profiles is read on the worker, after the engine thread takes in what the last commit owes them', async (t) => {
  const engine = engineFor(t, 'hookbench-reads-profiles-');
  const iso = new Date(T0).toISOString();
  const commit = (userId: string, traits: Record<string, string>): void => {
    engine.commitInternal({
      sourceId: 1,
      path: '/v1/batch',
      userAgent: 'test',
      messages: [
        { type: 'identify', messageId: `id-${userId}`, userId, anonymousId: `anon-${userId}`, traits, context: {}, integrations: {}, timestamp: iso, receivedAt: iso },
        { type: 'track', messageId: `tr-${userId}`, userId, anonymousId: `anon-${userId}`, event: 'Signed Up', properties: { plan: traits.plan ?? null }, context: {}, integrations: {}, timestamp: iso, receivedAt: iso },
      ],
    });
  };
  for (let k = 0; k < 30; k++) commit(`user-${String(k).padStart(2, '0')}`, { plan: k % 2 === 0 ? 'pro' : 'free', email: `u${k}@example.com` });
  await untilWorkerAnswers(engine);
  // Committed just now: owed to the profiles, not yet taken in by the follow-up.
  commit('user-99', { plan: 'team', email: 'late@example.com' });
  const api = createEngineApi(engine);
  const before = engine.reads.stats().offThread;
  const first = await api.listProfiles({ limit: 20 });
  assert.equal(engine.reads.stats().offThread, before + 1, 'the page was read on the worker');
  assert.deepEqual(first, engine.stores.profiles.page({ text: null, after: '', limit: 20 }));
  const rest = await api.listProfiles({ after: first.next ?? undefined, limit: 20 });
  assert.deepEqual(rest.items.map((p) => p.profileId).at(-1), 'user-99', 'the newest commit is in the page');
  assert.deepEqual(rest.items.at(-1)?.traits, { plan: 'team', email: 'late@example.com' });
  assert.deepEqual(rest.items.at(-1)?.events.map((e) => [e.event, e.count]), [['Signed Up', 1]]);
  // A search by trait value reads the same on the worker as here.
  const found = await onWorker(engine, 'profiles.page', { text: 'late@', after: '', limit: 20 });
  assert.deepEqual(found.items.map((p) => p.profileId), ['user-99']);
});

test("a deletion's rows are read ahead on the worker: the user's links, messages, deliveries and attempts, and no one else's", async (t) => {
  const engine = engineFor(t, 'hookbench-reads-warm-');
  const iso = new Date(T0).toISOString();
  const messages = [
    ...Array.from({ length: 6 }, (_, k) => ({ type: 'track', messageId: `own-${k}`, userId: 'u-warm', anonymousId: 'anon-warm', event: 'E', properties: {}, context: {}, integrations: {}, timestamp: iso, receivedAt: iso })),
    { type: 'track', messageId: 'anon-only', userId: null, anonymousId: 'anon-warm', event: 'E', properties: {}, context: {}, integrations: {}, timestamp: iso, receivedAt: iso },
    { type: 'track', messageId: 'someone-else', userId: 'u-other', anonymousId: 'anon-other', event: 'E', properties: {}, context: {}, integrations: {}, timestamp: iso, receivedAt: iso },
  ];
  engine.commitInternal({ sourceId: 1, path: '/v1/batch', userAgent: 'test', messages: messages as InboundMessage[] });
  await untilWorkerAnswers(engine);
  // Links of all six own messages, then the seven messages of the person (the anonymous one through
  // its link), their seven deliveries; no attempt yet.
  const next = { userId: 'u-warm', linkedIds: [], linksAfter: 0, links: 40, limit: 10 };
  assert.equal(await onWorker(engine, 'deletion.warm', next), 6 + 7 + 7);
  assert.equal(engine.stores.deletions.warm(next), 6 + 7 + 7);
  assert.equal(await onWorker(engine, 'deletion.warm', { ...next, limit: 3 }), 6 + 3 + 3);
  assert.equal(await onWorker(engine, 'deletion.warm', { ...next, userId: 'nobody' }), 0);
  // Ahead of the call: the links only.
  assert.equal(await onWorker(engine, 'deletion.warm', { ...next, limit: 0 }), 6);
});

test('an engine told to start the read worker with it (a server, the app) has it answering before its first long read', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-reads-at-start-'));
  const engine = createEngine({ dataDir: dir, clock: new ManualClock(T0), readWorkerAtStart: true });
  t.after(async () => {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.equal(engine.reads.answering(), false, 'not before the engine starts');
  engine.start();
  const deadline = Date.now() + 60_000;
  while (!engine.reads.answering()) {
    assert.ok(Date.now() < deadline, 'the read worker answered within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const first = await onWorker(engine, 'deliveries.count', parseDeliveryFilter({ text: 'nothing' }));
  assert.deepEqual(first, { total: 0, matching: 0 });
  assert.deepEqual(engine.reads.stats(), { offThread: 1, fallback: 0 }, 'the first read went to the worker');
});
