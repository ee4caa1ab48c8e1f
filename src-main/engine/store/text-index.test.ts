import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createEngineApi } from '../api';
import { parseDeliveryFilter, parseDeliveryPage } from '../api/deliveries';
import { ManualClock } from '../clock';
import { createEngine, type Engine } from '../index';
import type { InboundMessage } from '../../../src-shared/events';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { LogInspector } from './inspect';
import type { DeliveryQueryFilter } from './delivery-views';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const HOOK = 'http://127.0.0.1:9/hook';
const NO_FILTER: DeliveryQueryFilter = { statuses: null, type: null, url: null, text: null, replayed: null, violations: null };

interface Fields {
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  messageId: string;
}

function newEngine(dir: string, clock = new ManualClock(T0), hook = HOOK): Engine {
  const engine = createEngine({ dataDir: dir, clock });
  engine.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: hook, headers: {} }] }],
  });
  return engine;
}

/** Commits messages with exactly these fields through the log's own write path, one delivery each. */
function commit(engine: Engine, rows: Fields[], at = T0): void {
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
    return { message, json: JSON.stringify(message), destinationIds: [1] };
  });
  engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: at, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 24 * 3600 * 1000);
}

const pageOf = (engine: Engine, text: string, textIndex: boolean): number[] =>
  engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 1_000_000 }, textIndex).map((r) => r.id);

test('a search through the trigram index finds exactly what reading the log finds, for any needle and rows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-fts-'));
  const engine = newEngine(dir);
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
    // A count needs no order: the index drives it, one delivery seek per message it finds, and
    // the delete notices by the deliveries_message index; nothing reads every delivery.
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
