import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createEngineApi } from '../api';
import { atOnce, createDeliveryReads, parseDeliveryFilter, parseDeliveryPage } from '../api/deliveries';
import { ManualClock } from '../clock';
import { createEngine, type Engine } from '../index';
import type { DeliveryFilter, DeliveryPage } from '../../../src-shared/api';
import type { InboundMessage } from '../../../src-shared/events';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { LogInspector } from './inspect';
import { hasTimeRange, MIN_WALK_MESSAGES, PREFIX_SET_LIMIT, probedTrigrams, sparseTextQuery, trigramsOf, type DeliveryQueryFilter, type DeliveryQueryPage } from './delivery-views';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const HOOK = 'http://127.0.0.1:9/hook';
const NO_FILTER: DeliveryQueryFilter = { statuses: null, type: null, url: null, text: null, replayed: null, violations: null };

interface Fields {
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  messageId: string;
}

/** The search index in one part, and in parts of 37 messages (store/search-index.ts): the searches must not tell them apart. */
const PARTS = [{ label: '', partMessages: undefined }, { label: ' (an index in parts of 37 messages)', partMessages: 37 }];

function newEngine(dir: string, clock = new ManualClock(T0), hook = HOOK, searchIndexPartMessages?: number): Engine {
  const engine = createEngine({ dataDir: dir, clock, searchIndexPartMessages });
  engine.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: hook, headers: {} }] }],
  });
  return engine;
}

/** Commits messages with exactly these fields through the log's own write path, one delivery each. */
function commit(engine: Engine, rows: Fields[], at = T0, destinationIds = [1]): void {
  const items = rows.map((r) => {
    const message = {
      type: r.event === null ? 'identify' : 'track',
      messageId: r.messageId,
      userId: r.userId,
      anonymousId: r.anonymousId ?? (r.userId === null ? 'anon' : null),
      ...(r.event === null ? {} : { event: r.event }),
      properties: {},
      context: {},
      integrations: {},
      timestamp: new Date(at).toISOString(),
      receivedAt: new Date(at).toISOString(),
    } as InboundMessage;
    return { message, json: JSON.stringify(message), destinationIds };
  });
  engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: at, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 24 * 3600 * 1000);
}

const pageOf = (engine: Engine, text: string, textIndex: boolean): number[] =>
  engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 1_000_000 }, textIndex).map((r) => r.id);

for (const { label, partMessages } of PARTS) test(`a search through the trigram index finds exactly what reading the log finds, for any needle and rows${label}`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-'));
  const engine = newEngine(dir, undefined, undefined, partMessages);
  try {
    // Mixed case, a non-ASCII letter in both cases, and the characters FTS5 queries give meaning to.
    const char = fc.constantFrom('a', 'A', 'b', 'B', 'x', '-', '_', '1', ' ', 'é', 'É', '"', '*', ':', '(');
    const text = fc.string({ unit: char, minLength: 0, maxLength: 8 });
    const row = fc.record({ userId: fc.option(text), anonymousId: fc.option(text), event: fc.option(text), messageId: text });
    let serial = 0;
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 15 }), fc.string({ unit: char, minLength: 1, maxLength: 5 }), fc.nat(), (rows, random, pick) => {
        commit(engine, rows.map((r) => ({ ...r, messageId: `${r.messageId}#${serial++}` })));
        // Half the needles are cut from a value the log holds, so matches are common.
        const values = rows.flatMap((r) => [r.userId, r.anonymousId, r.event, r.messageId]).filter((v): v is string => v !== null && v.length >= 3);
        const source = values[pick % Math.max(1, values.length)];
        const needle = pick % 2 === 0 && source !== undefined ? source.slice(pick % (source.length - 2), (pick % (source.length - 2)) + 3 + (pick % 3)) : random;
        const viaIndex = pageOf(engine, needle, true);
        assert.deepEqual(viaIndex, pageOf(engine, needle, false), `needle ${JSON.stringify(needle)}`);
        const f = { ...NO_FILTER, text: needle };
        assert.deepEqual(engine.stores.deliveryViews.count(f), engine.stores.deliveryViews.count(f, false), `count for ${JSON.stringify(needle)}`);
      }),
      { numRuns: 150, seed: 14 },
    );
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a needle of three characters or more is looked up in the index; a shorter one reads the log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-plan-'));
  const engine = newEngine(dir);
  try {
    commit(engine, [{ userId: 'alice', anonymousId: null, event: 'Order Completed', messageId: 'm-1' }]);
    const plan = (text: string): string => engine.stores.deliveryViews.pagePlan(parseDeliveryPage({ text })).join('\n');
    assert.match(plan('ali'), /SCAN message_text VIRTUAL TABLE/);
    assert.match(plan('ali'), /SEARCH x USING COVERING INDEX deliveries_message/);
    assert.doesNotMatch(plan('ali'), /^SCAN d\b/m);
    assert.doesNotMatch(plan('al'), /message_text/);
    // A count walks the index (newest first, in FTS5's own order): one delivery seek per message it
    // finds, and the delete notices by the deliveries_message index; nothing reads every delivery.
    const count = engine.stores.deliveryViews.countPlan(parseDeliveryFilter({ text: 'ali' })).join('\n');
    assert.match(count, /SCAN message_text VIRTUAL TABLE/);
    assert.match(count, /SEARCH d USING (COVERING )?INDEX deliveries_message \(message_id=\?\)/);
    assert.doesNotMatch(count, /^\s*SCAN d\b/m);
    assert.doesNotMatch(count, /LIST SUBQUERY|B-TREE/, 'no set of every match built first');
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a needle with a NUL in it reads the log: FTS5 would refuse the query, and its index stops at a NUL', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-nul-'));
  const engine = newEngine(dir);
  const api = createEngineApi(engine);
  try {
    commit(engine, [
      { userId: null, anonymousId: 'ab\u0000cd-1', event: 'Order Completed', messageId: 'm-1' },
      { userId: null, anonymousId: 'abxcd-1', event: 'Order Completed', messageId: 'm-2' },
    ]);
    const plan = engine.stores.deliveryViews.pagePlan(parseDeliveryPage({ text: 'ab\u0000cd' })).join('\n');
    assert.doesNotMatch(plan, /message_text/);
    const page = await api.listDeliveries({ text: 'ab\u0000cd' });
    assert.deepEqual(
      page.items.map((d) => d.messageId),
      ['m-1'],
    );
    assert.equal((await api.countDeliveries({ text: 'ab\u0000cd' })).matching, 1);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a messageId is found exactly or by its start, through messages_dedupe, not the trigram index', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-mid-'));
  const engine = newEngine(dir);
  const inspect = LogInspector.of(dir, { readonly: true });
  try {
    const api = createEngineApi(engine);
    commit(engine, [
      { userId: 'alice', anonymousId: null, event: 'Order Completed', messageId: 'ajs-next-7f3a-91' },
      { userId: 'bob', anonymousId: null, event: 'Signed Up', messageId: 'ajs-next-7f3b-02' },
      { userId: 'carol', anonymousId: null, event: 'Signed Up', messageId: 'srv-Ab9' },
    ]);
    assert.equal(engine.stores.deliveryViews.textIndexReady(), true);
    const found = async (text: string): Promise<(string | null)[]> => (await api.listDeliveries({ text })).items.map((d) => d.messageId).sort();
    assert.deepEqual(await found('ajs-next-7f3a-91'), ['ajs-next-7f3a-91'], 'exact');
    assert.deepEqual(await found('ajs-next-7f3'), ['ajs-next-7f3a-91', 'ajs-next-7f3b-02'], 'a prefix');
    assert.deepEqual(await found('srv-Ab9'), ['srv-Ab9']);
    assert.equal((await api.countDeliveries({ text: 'ajs-next' })).matching, 2);
    // The promise now: a messageId by its start, as written; its middle or another case finds nothing.
    assert.deepEqual(await found('7f3a-91'), []);
    assert.deepEqual(await found('SRV-AB9'), []);
    // The index no longer takes messageIds: no trigram of one, in any column.
    assert.equal(inspect.value('SELECT COUNT(*) FROM message_text WHERE message_text MATCH ?', '"7f3a"'), 0);
    assert.equal(inspect.value('SELECT COUNT(*) FROM message_text WHERE message_text MATCH ?', '"ali"'), 1);
    // A row indexed before migration 18 still has its messageId in the fourth column: never searched.
    const writable = LogInspector.of(dir);
    const carol = writable.value<number>("SELECT id FROM messages WHERE message_id = 'srv-Ab9'");
    writable.exec(`DELETE FROM message_text WHERE rowid = ${carol}`);
    writable.run("INSERT INTO message_text (rowid, user_id, anonymous_id, event, message_id) VALUES (?, 'carol', NULL, 'Signed Up', 'srv-Ab9')", carol);
    writable.close();
    assert.equal(inspect.value('SELECT COUNT(*) FROM message_text WHERE message_text MATCH ?', '"Ab9"'), 1);
    assert.deepEqual(await found('Ab9'), []);
    assert.deepEqual(await found('srv-A'), ['srv-Ab9']);
    const plan = engine.stores.deliveryViews.pagePlan(parseDeliveryPage({ text: 'ajs-next-7f3' })).join('\n');
    assert.match(plan, /SEARCH k USING (COVERING )?INDEX messages_dedupe \(source_id=\? AND dedupe_key>\? AND dedupe_key<\?\)/);
    assert.doesNotMatch(plan, /^SCAN (d|m|k)\b/m);
  } finally {
    inspect.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a purged user and a cleared log are not found by the index any more', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-delete-'));
  const clock = new ManualClock(T0);
  const receiver = await new Receiver().start('/hook');
  const engine = newEngine(dir, clock, receiver.url);
  const inspect = LogInspector.of(dir, { readonly: true });
  const indexed = (needle: string): number => inspect.get<{ n: number }>('SELECT COUNT(*) AS n FROM message_text WHERE message_text MATCH ?', `"${needle}"`)?.n ?? -1;
  try {
    const api = createEngineApi(engine);
    commit(engine, [
      { userId: 'alice-1', anonymousId: null, event: 'Signed Up', messageId: 'a-1' },
      { userId: 'alice-1', anonymousId: null, event: 'Order Completed', messageId: 'a-2' },
      { userId: 'bob', anonymousId: 'anon-bob', event: 'Order Completed', messageId: 'b-1' },
    ]);
    assert.equal((await api.countDeliveries({ text: 'ALICE' })).matching, 2);
    assert.equal(indexed('alice'), 2);
    engine.start();
    const deletion = await api.requestDeletion({ userId: 'alice-1', purge: true });
    await waitUntil(() => {
      clock.advance(0);
      return engine.deletions.get(deletion.id)?.purgedAt;
    }, 'the purge to run');
    assert.equal(indexed('alice'), 0, 'the purged messages left the index');
    // The delete notice (no message of its own) is still found by its body's userId.
    const afterPurge = await api.listDeliveries({ text: 'alice' });
    assert.ok(afterPurge.items.every((d) => d.messageId === null), JSON.stringify(afterPurge.items));
    assert.ok(afterPurge.items.length > 0, 'the notice is found');
    assert.equal((await api.countDeliveries({ text: 'alice' })).matching, afterPurge.items.length, 'and counted');
    assert.equal((await api.countDeliveries({ text: 'Completed' })).matching, 1);
    await api.clearLog();
    assert.equal(indexed('Completed'), 0);
    assert.equal(indexed('bob'), 0);
    assert.deepEqual((await api.listDeliveries({ text: 'Completed' })).items, []);
  } finally {
    inspect.close();
    await engine.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a log from before the index is taken in after start: until then the API says so and reads the log, with the same results', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-backfill-'));
  const rows: Fields[] = Array.from({ length: 5_000 }, (_, i) => ({ userId: `user_${i % 97}`, anonymousId: null, event: i % 2 ? 'Order Completed' : null, messageId: `old-${i}` }));
  let engine = newEngine(dir);
  commit(engine, rows.slice(0, 2_500));
  commit(engine, rows.slice(2_500));
  const expected = pageOf(engine, 'user_42', false);
  assert.ok(expected.length >= 50, `${expected.length} rows`);
  await engine.stop();
  // As a log migrated from an older version leaves it: messages, and an empty index that owes them.
  const raw = LogInspector.of(dir);
  raw.exec(`INSERT INTO message_text (message_text) VALUES ('delete-all'); UPDATE message_text_backfill SET below = (SELECT MAX(id) + 1 FROM messages);`);
  raw.close();
  engine = newEngine(dir);
  try {
    const api = createEngineApi(engine);
    assert.equal(engine.stores.deliveryViews.textIndexReady(), false);
    const during = await api.countDeliveries({ text: 'user_42' });
    assert.deepEqual(during, { total: 5_000, matching: expected.length, textIndexCatchingUp: true });
    // A message that arrives meanwhile is indexed by the trigger, not again by the catch-up.
    commit(engine, [{ userId: 'user_42', anonymousId: null, event: null, messageId: 'new-1' }]);
    engine.start();
    for (let k = 0; k < 1_000 && !engine.stores.deliveryViews.textIndexReady(); k++) await new Promise((r) => setImmediate(r));
    assert.equal(engine.stores.deliveryViews.textIndexReady(), true, 'caught up');
    const after = await api.countDeliveries({ text: 'user_42' });
    assert.deepEqual(after, { total: 5_001, matching: expected.length + 1 });
    assert.deepEqual(pageOf(engine, 'user_42', true), pageOf(engine, 'user_42', false));
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const { label, partMessages } of PARTS) test(`a text page walks the index newest (oldest) first and merges the deliveries made later: the same pages as reading the log, for every filter and bound${label}`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-walk-'));
  const engine = createEngine({ dataDir: dir, clock: new ManualClock(T0), searchIndexPartMessages: partMessages });
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [
        { name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: HOOK, headers: {} }] },
        { name: 'e', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/other', headers: {} }] },
      ],
    });
    const log = engine.stores.log;
    const body = (fields: object): Uint8Array => Buffer.from(JSON.stringify(fields));
    // Batches of messages, two deliveries each (one for the first destination only, now and then);
    // between batches, deliveries made later for older messages, test events and delete notices.
    for (let batch = 0; batch < 30; batch++) {
      const at = T0 + batch * 60_000;
      const rows = Array.from({ length: 20 }, (_, k): Fields => {
        const i = batch * 20 + k;
        return { userId: i % 5 === 0 ? null : `user_${i % 37}`, anonymousId: `anon-${i % 11}`, event: i % 3 ? 'Order Completed' : 'Signed Up', messageId: `mid-${i}` };
      });
      commit(engine, rows, at, batch % 4 === 3 ? [1] : [1, 2]);
      if (batch > 0) {
        // A replay of an old delivery (and, once, a replay of that replay), to a URL or not.
        const original = 1 + ((batch * 37) % (batch * 30));
        const replay = engine.replay(original, batch % 2 ? { targetUrl: 'http://replay-target.example/x' } : {});
        if (batch % 7 === 0) engine.replay(replay);
        log.createTest({ destinationId: 1, payloadType: 'track', body: body({ userId: `user_${batch % 37}`, event: 'Order Completed' }), targetUrl: null, now: at });
        log.createPrebuilt({ destinationId: 2, payloadType: 'track', body: body({ userId: `user_${(batch * 3) % 37}`, event: 'Deletion Requested' }), now: at });
      }
    }
    const views = engine.stores.deliveryViews;
    const high = views.idRange()?.high ?? 0;
    const shapes: DeliveryPage[] = [
      {},
      { limit: 7 },
      { limit: 1 },
      { limit: 9, beforeId: Math.floor(high / 2) },
      { limit: 9, beforeId: 40 },
      { afterId: high - 30 },
      { limit: 5, afterId: 200, beforeId: 900 },
      { limit: 9, oldest: true },
      { limit: 9, oldest: true, afterId: 300 },
      { limit: 9, oldest: true, afterId: 300, beforeId: 600 },
      { type: 'identify', limit: 20 },
      { replayed: true },
      { replayed: false, limit: 30 },
      { url: 'replay-target', limit: 10 },
      { url: 'other', limit: 10, oldest: true },
      { status: 'pending', limit: 15 },
      { violations: 'none', limit: 10 },
      { from: new Date(T0 + 5 * 60_000).toISOString(), to: new Date(T0 + 12 * 60_000).toISOString(), limit: 25 },
      { limit: 500 },
    ];
    const needles = ['user_1', 'USER_2', 'Completed', 'signed', 'anon-3', 'mid-1', 'mid-29', 'Deletion', 'user_5', 'nobody'];
    // Whole answers to compare: a filter no index serves (url, type, never replayed, violations)
    // is otherwise cut at READ_BUDGET_MS, which a busy machine reaches (a CI run did).
    const reads = createDeliveryReads(views, undefined, { readBudgetMs: Number.POSITIVE_INFINITY });
    let walked = 0;
    for (const text of needles) {
      for (const shape of shapes) {
        const input = { ...shape, text };
        const p = parseDeliveryPage(input);
        const viaIndex = views.page(p).map((r) => r.id);
        assert.deepEqual(viaIndex, views.page(p, false).map((r) => r.id), JSON.stringify(input));
        // Both plans, whichever this needle takes.
        assert.deepEqual(views.page(p, 'walk').map((r) => r.id), viaIndex, `walk ${JSON.stringify(input)}`);
        assert.deepEqual(views.page(p, 'set').map((r) => r.id), viaIndex, `set ${JSON.stringify(input)}`);
        if (viaIndex.length > 0) walked++;
        // And through the API's reads (keyset bounds from a time range, the page's continuation).
        const page = await reads.list(p);
        assert.deepEqual(page.items.map((d) => d.id), viaIndex, `list ${JSON.stringify(input)}`);
      }
    }
    assert.ok(walked >= 120, `${walked} non-empty pages`);
    assert.equal(views.textParts().length, partMessages === undefined ? 1 : Math.ceil(600 / partMessages), 'the parts the index was read in');
    // Counts: through the index (a clock that never runs out) exactly what reading the log counts,
    // for each needle and filter; and a walk stopped after a few messages counts exactly the
    // matching deliveries from where it stopped up, which is what searchedTo says.
    const counts: DeliveryFilter[] = [
      {},
      { type: 'identify' },
      { replayed: true },
      { replayed: false },
      { url: 'replay-target' },
      { url: 'other' },
      { status: 'pending' },
      { violations: 'none' },
      { from: new Date(T0 + 5 * 60_000).toISOString(), to: new Date(T0 + 12 * 60_000).toISOString() },
      { from: new Date(T0 + 20 * 60_000).toISOString() },
    ];
    const unhurried = createDeliveryReads(views, atOnce, { now: () => 0 });
    const inspect = LogInspector.of(dir, { readonly: true });
    let stopped = 0;
    for (const text of needles) {
      for (const shape of counts) {
        const input = { ...shape, text };
        const f = parseDeliveryFilter(input);
        const exact = views.count(f, false);
        assert.deepEqual(await unhurried.count(f), exact, `count ${JSON.stringify(input)}`);
        assert.deepEqual(views.count(f), exact, `store count ${JSON.stringify(input)}`);
        if (!views.pageUsesTextIndex(f)) continue;
        for (const after of [1, 3, 10]) {
          let asked = 0;
          const bounds = hasTimeRange(f) ? { afterId: (views.idAtOrAfter(f.fromMs ?? 0) ?? 1) - 1, beforeId: (f.toMs ?? null) === null ? high + 1 : (views.idAtOrAfter(f.toMs ?? 0) ?? high + 1) } : null;
          const { n, fromId } = views.countByIndex(f, bounds, () => ++asked > after, 0);
          if (fromId === null) {
            assert.equal(n, exact.capped ? n : exact.matching, `whole ${JSON.stringify(input)}`);
            continue;
          }
          stopped++;
          const upTo = bounds?.beforeId ?? high + 1;
          assert.equal(n, views.countIn(f, fromId - 1, upTo), `from ${fromId}: ${JSON.stringify(input)} after ${after}`);
          assert.ok(n <= exact.matching || exact.capped === true, 'at most the whole count');
        }
        // However soon the clock runs out, the walk reads MIN_WALK_MESSAGES first: a needle with
        // fewer candidates is counted whole, and one with more stops no sooner.
        const candidates = views
          .textParts()
          .reduce((sum, part) => sum + (inspect.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${part} WHERE ${part} MATCH ?`, views.countTextQuery(text))?.n ?? 0), 0);
        const soon = views.countByIndex(f, null, () => true);
        if (candidates <= MIN_WALK_MESSAGES) assert.equal(soon.fromId, null, `whole at once ${JSON.stringify(input)}`);
        else if (soon.fromId !== null) assert.ok(soon.fromId < views.countByIndex(f, null, () => true, 1).fromId!, 'further than a walk that may stop at once');
        // Through the API, a clock that moves a millisecond a look says how far it counted.
        let ms = 0;
        const hurried = await createDeliveryReads(views, atOnce, { now: () => ms++, countBudgetMs: 4 }).count(f);
        if (hurried.searchedTo !== undefined) {
          const from = views.idAtOrAfter(Date.parse(hurried.searchedTo));
          assert.ok(from !== null);
          assert.ok(hurried.matching <= exact.matching, JSON.stringify({ input, hurried, exact }));
        } else assert.deepEqual(hurried, exact, `hurried ${JSON.stringify(input)}`);
      }
    }
    inspect.close();
    assert.ok(stopped >= 40, `${stopped} stopped walks`);
    // Paging by nextBeforeId through a many-match needle lists each match once, newest first, as the log does.
    const all = views.page({ ...parseDeliveryPage({ text: 'Completed' }), limit: 1_000_000 }, false).map((r) => r.id);
    const paged: number[] = [];
    for (let beforeId: number | undefined; ; ) {
      const page = await reads.list(parseDeliveryPage({ text: 'Completed', limit: 17, ...(beforeId ? { beforeId } : {}) }));
      paged.push(...page.items.map((d) => d.id));
      if (page.nextBeforeId === null) break;
      beforeId = page.nextBeforeId;
    }
    assert.deepEqual(paged, all);
    assert.ok(all.length > 300, `${all.length} matches`);
    // The walk is read in the index's order and stops at the page: no sort of every match.
    const plan = (page: DeliveryPage): string => views.pagePlan(parseDeliveryPage(page), 'walk').join('\n');
    for (const page of [{ text: 'Completed' }, { text: 'Completed', oldest: true }, { text: 'Completed', beforeId: 500, afterId: 20 }]) {
      // In parts, each part is walked in that order and SQLite merges the walks.
      const walk = partMessages === undefined ? /CO-ROUTINE t\nSCAN message_text VIRTUAL TABLE INDEX (64|192):M/ : /CO-ROUTINE t\nMERGE \(UNION ALL\)\n(.*\n)+SCAN message_text_\d+ VIRTUAL TABLE INDEX (64|192):M/;
      assert.match(plan(page), walk, JSON.stringify(page));
      assert.match(plan(page), /USE TEMP B-TREE FOR LAST TERM OF ORDER BY/, JSON.stringify(page));
      assert.match(plan(page), /SEARCH x USING COVERING INDEX deliveries_replay_of/, JSON.stringify(page));
    }
    assert.match(plan({ text: 'Completed', beforeId: 500 }), /SEARCH b USING INTEGER PRIMARY KEY \(rowid<\?\)/);
    // Which plan a needle takes: one that starts a messageId is probed forwards, any other walked.
    assert.equal(views.textPagePlan(parseDeliveryFilter({ text: 'Completed' })).kind, 'walk');
    assert.equal(views.textPagePlan(parseDeliveryFilter({ text: 'user_12' })).kind, 'walk');
    assert.equal(views.textPagePlan(parseDeliveryFilter({ text: 'mid-29' })).kind, 'set');
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a needle that starts more messageIds than a page takes as a set reads the log, with the same results', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-prefix-'));
  const engine = newEngine(dir);
  try {
    const rows = Array.from({ length: PREFIX_SET_LIMIT + 1 }, (_, i): Fields => ({ userId: `u${i % 13}`, anonymousId: null, event: 'Order Completed', messageId: `ajs-${i}` }));
    commit(engine, rows);
    const views = engine.stores.deliveryViews;
    const p: DeliveryQueryPage = parseDeliveryPage({ text: 'ajs-1', limit: 50 });
    assert.equal(views.pageUsesTextIndex(p), true, 'about 1,111 messageIds start with ajs-1');
    assert.equal(views.pageUsesTextIndex(parseDeliveryPage({ text: 'ajs-' })), false, 'every messageId starts with ajs-');
    for (const text of ['ajs-', 'ajs-1', 'ajs-20']) {
      const page = parseDeliveryPage({ text, limit: 50 });
      assert.deepEqual((await createDeliveryReads(views).list(page)).items.map((d) => d.id), views.page(page, false).map((r) => r.id), text);
      // The count takes the same road as the page, and counts what reading the log counts.
      const f = parseDeliveryFilter({ text });
      assert.deepEqual(await createDeliveryReads(views, atOnce, { now: () => 0 }).count(f), views.count(f, false), `count ${text}`);
    }
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a count's MATCH asks for the needle's rare trigrams only, as substrings of it", () => {
  assert.deepEqual(trigramsOf('ab"cé'), [
    { at: 0, trigram: 'ab"' },
    { at: 1, trigram: 'b"c' },
    { at: 2, trigram: '"cé' },
  ]);
  assert.deepEqual(trigramsOf('ab'), []);
  const cols = '{user_id anonymous_id event} : ';
  // "use", "ser", "er_" on every message, "r_1" on a tenth: the rare tail of the needle is asked for.
  const user = new Map([['use', 8_000_000], ['ser', 8_000_000], ['er_', 8_000_000], ['r_1', 1_800_000], ['_12', 180_000], ['122', 144_000]]);
  assert.equal(sparseTextQuery('user_122', user), `${cols}"_122"`);
  // Two rare runs apart: each a phrase, ANDed; a quote is doubled inside its phrase.
  const apart = new Map([['a"b', 10], ['"bc', 5_000_000], ['bcd', 5_000_000], ['cde', 12]]);
  assert.equal(sparseTextQuery('a"bcde', apart), `${cols}("a""b" AND "cde")`);
  // As rare as each other, but together past what one silent read may cost: the rarest alone.
  const even = new Map([['Com', 451_000], ['omp', 451_000], ['mpl', 451_000]]);
  assert.equal(sparseTextQuery('Compl', even), `${cols}"Com"`);
  // Cheap enough together: the whole needle.
  const cheap = new Map([['Com', 1_000], ['omp', 1_000], ['mpl', 1_000]]);
  assert.equal(sparseTextQuery('Compl', cheap), `${cols}"Compl"`);
  // A trigram no message has: asked for alone, it finds nothing at once.
  assert.equal(sparseTextQuery('user_zz', new Map([['use', 8e6], ['ser', 8e6], ['er_', 8e6], ['r_z', 0], ['_zz', 0]])), `${cols}"r_zz"`);
  // A long needle is judged on a spread of its trigrams.
  assert.equal(probedTrigrams('abcdefghijklmnopqrstuvwxyz').length, 16);
});

test('a deletion only marks its rows gone in the search index; tidy steps give the space back and searches stay exact', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-tidy-'));
  const engine = newEngine(dir);
  const inspect = LogInspector.of(dir);
  try {
    // No deliveries: every message may go.
    for (let c = 0; c < 40; c++) {
      commit(
        engine,
        Array.from({ length: 100 }, (_, k) => {
          const i = c * 100 + k;
          return { userId: `user_${i % 37}`, anonymousId: `anon-${i}`, event: i % 5 === 0 ? 'Order Completed' : 'Product Viewed', messageId: `m-${i}` };
        }),
        T0,
        [],
      );
      engine.stores.searchIndex.settle();
    }
    const rows = (): number => inspect.count('message_text_data');
    const indexed = rows();
    assert.equal(inspect.value("SELECT v FROM message_text_config WHERE k = 'deletemerge'"), 0);

    // Three quarters of the log go, 50 messages a transaction, as retention's slices take them.
    for (let after = 0; after < 3000; ) {
      const r = engine.stores.retention.slice({ cutoff: T0 + 1, maxMessageId: 3000, limit: 50, afterMessageId: after, afterRequestId: 0 });
      assert.equal(r.messages, 50);
      after = r.nextMessageId;
    }
    assert.equal(inspect.count('messages'), 1000);
    // Nothing was merged while deleting: the segments are all still there.
    assert.ok(rows() >= indexed, `${rows()} rows of the index after the deletions, ${indexed} before`);

    let steps = 0;
    while (!engine.stores.searchIndex.tidy(16)) steps++;
    assert.ok(steps > 1, `${steps} steps`);
    assert.ok(rows() < indexed / 2, `${rows()} rows of the index after tidying, ${indexed} before`);
    assert.equal(engine.stores.searchIndex.tidy(16), true, 'nothing left to tidy');
    assert.equal(inspect.value("SELECT v FROM message_text_config WHERE k = 'deletemerge'"), 0, 'left off after each step');

    for (const needle of ['user_7', 'user_1', 'anon-3999', 'anon-12', 'Order Comp', 'ct Vie']) {
      const found = inspect.all<{ rowid: number }>('SELECT rowid FROM message_text WHERE message_text MATCH ? ORDER BY rowid', `"${needle}"`).map((r) => r.rowid);
      const inLog = inspect
        .all<{ id: number }>('SELECT id FROM messages WHERE instr(user_id, ?) OR instr(anonymous_id, ?) OR instr(event, ?) ORDER BY id', needle, needle, needle)
        .map((r) => r.id);
      assert.deepEqual(found, inLog, needle);
    }
  } finally {
    inspect.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
