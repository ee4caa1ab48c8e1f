/**
 * The search index's segments are merged by the engine, in short steps between other work, not by
 * FTS5 inside the transaction that indexes (schema 26): on a big log FTS5's own merging made a
 * follow-up slice of a few dozen messages write hundreds of pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { systemClock, type ManualClock } from './clock';
import { DAY_MS } from './retention/plan';
import { createEngineApi } from './api';
import { configWith, startHarness } from './testing/harness';
import { createEngine } from './index';
import { Receiver } from './testing/receiver';
import { stoppedEngine } from './testing/stopped-engine';
import { waitUntil } from './testing/wait';
import { LogInspector } from './store/inspect';
import { activePart, mergeable, partTriggersSql, SearchIndexStore } from './store/search-index';
import type { Engine } from './index';
import type { DeliveryQueryFilter } from './store/delivery-views';
import type { InboundMessage } from '../../src-shared/events';

const NO_FILTER: DeliveryQueryFilter = { statuses: null, type: null, url: null, text: null, replayed: null, violations: null };

/** The index's segments: every one that holds a page has rows in its b-tree table, by segment id. */
const SEGMENTS = 'SELECT COUNT(DISTINCT segid) AS n FROM message_text_idx';

function commitTracks(engine: Engine, from: number, count: number): void {
  const at = Date.now();
  const items = Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const message = {
      type: 'track', messageId: `m-${i}`, userId: `user_${i}`, anonymousId: `anon-${(i * 7919) % 100_003}`, event: i % 2 === 0 ? 'Order Completed' : 'Product Viewed',
      properties: {}, context: {}, integrations: {}, timestamp: new Date(at).toISOString(), receivedAt: new Date(at).toISOString(),
    } as InboundMessage;
    return { message, json: JSON.stringify(message), destinationIds: [1] };
  });
  engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: at, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 86_400_000);
}

test('indexing merges nothing; merge steps of a few pages bring the segments down to a few a level, and searches stay exact', async (t) => {
  const { engine, dir } = stoppedEngine(t, systemClock, 'hookbench-search-merge-');
  const inspect = LogInspector.of(dir, { readonly: true });
  t.after(() => inspect.close());
  const segments = (): number => inspect.value<number>(SEGMENTS);
  for (let i = 0; i < 15; i++) {
    commitTracks(engine, i * 40, 40);
    assert.equal(engine.stores.searchIndex.indexOwed(100), false, 'one transaction for these forty');
  }
  // With FTS5's own merging (four segments a level) these would be three or four.
  assert.equal(segments(), 15, 'each indexing transaction left its own segment, merged with none');
  const page = (text: string, textIndex: boolean): number[] =>
    engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 1000 }, textIndex).map((r) => r.id);
  const needles = ['user_3', 'anon-4', 'Completed', 'nothing like it'];
  const fromLog = needles.map((n) => page(n, false));
  assert.deepEqual(needles.map((n) => page(n, true)), fromLog);
  let steps = 0;
  while (!engine.stores.searchIndex.mergeStep(1)) steps++;
  assert.ok(steps >= 3, `the merge took ${steps} steps of a page`);
  assert.ok(segments() <= 4, `${segments()} segments after merging`);
  assert.equal(engine.stores.searchIndex.mergeStep(1), true, 'nothing left to merge');
  assert.deepEqual(needles.map((n) => page(n, true)), fromLog, 'the same messages found');
  assert.equal(fromLog[0]?.length, 111);
});

test('a running engine merges what its follow-ups index: after 200 commits, each indexed on its own, a few segments a level', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url), { clock: systemClock });
  try {
    const { engine } = h;
    const segments = (): number => h.inspect.value<number>(SEGMENTS);
    const track = (i: number): Record<string, unknown> => ({ userId: `user_${i % 7}`, event: i % 2 === 0 ? 'Order Completed' : 'Product Viewed', messageId: `m-${i}` });
    for (let i = 0; i < 200; i++) {
      assert.equal((await h.post('/v1/batch', { batch: [0, 1, 2].map((k) => ({ type: 'track', ...track(i * 3 + k) })) })).status, 200);
      // Each commit's follow-up indexes it alone: a new segment for each.
      await waitUntil(() => engine.stores.takenInThrough() >= engine.stores.log.lastMessageId(), 'the follow-up of the commit');
    }
    // Unmerged, FTS5's backstop would leave up to 15 a level here (crisismerge 16): about 20.
    const merged = await waitUntil(() => segments() <= 8 && segments(), 'the merge steps to catch up', 5_000).catch(() => segments());
    assert.ok(merged <= 8, `${merged} segments after 200 indexing transactions`);
    const api = createEngineApi(engine);
    assert.equal((await api.countDeliveries({ text: 'user_3' })).matching, 86, 'every message of the user is found');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('an index in parts: each removed message leaves its own part, closed parts are merged into one segment each, ids given again across a boundary are found, and a tidy empties every part', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-search-parts-'));
  const engine = createEngine({ dataDir: dir, clock: systemClock, searchIndexPartMessages: 50 });
  engine.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
  });
  const db = new Database(join(dir, 'hookbench.sqlite'));
  t.after(async () => {
    db.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const index = engine.stores.searchIndex;
  const settle = (): void => {
    while (!index.indexOwed(1_000)) {
      // the next part
    }
  };
  const found = (needle: string): number =>
    index.parts().reduce((n, p) => n + (db.prepare(`SELECT COUNT(*) AS n FROM ${p.name} WHERE ${p.name} MATCH ?`).pluck().get(`"${needle}"`) as number), 0);
  const segmentsOf = (name: string): number => db.prepare(`SELECT COUNT(DISTINCT segid) FROM ${name}_idx`).pluck().get() as number;
  const page = (text: string, textIndex: boolean): number[] =>
    engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 1000 }, textIndex).map((r) => r.id);
  const remove = (where: string): void => {
    db.exec(`DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id ${where});
      DELETE FROM deliveries WHERE message_id ${where}; DELETE FROM messages WHERE id ${where};`);
  };

  for (let i = 0; i < 20; i++) commitTracks(engine, i * 20, 20);
  settle();
  const parts = index.parts();
  assert.deepEqual(parts.map((p) => p.low), [0, 50, 100, 150, 200, 250, 300, 350, 400], 'a part for each 50 message ids (the first message is id 1)');
  assert.deepEqual(page('user_77', true), page('user_77', false));

  // Closed parts are merged into one segment each; the newest keeps a few.
  for (const p of parts.slice(0, -1)) assert.ok(segmentsOf(p.name) >= 1);
  while (!index.mergeStep(4)) {
    // the next step
  }
  assert.deepEqual(parts.slice(0, -1).map((p) => segmentsOf(p.name)), Array(8).fill(1), 'one segment in each closed part');
  assert.deepEqual(db.prepare('SELECT merged FROM message_text_parts ORDER BY part').pluck().all(), [1, 1, 1, 1, 1, 1, 1, 1, 0]);

  // The delete triggers take each message out of the part its id falls in.
  for (const i of [42, 75, 333]) assert.equal(found(`user_${i}`), 1);
  remove('IN (43, 76, 334)');
  for (const i of [42, 75, 333]) assert.equal(found(`user_${i}`), 0, `user_${i} (message ${i + 1}) left the index`);

  // The newest messages go, across a part's start, and new ones take their ids again.
  remove('>= 346');
  commitTracks(engine, 1_000, 30);
  settle();
  assert.deepEqual(
    ['user_1000', 'user_1029', 'user_345', 'Order', 'user_10'].map((n) => page(n, true)),
    ['user_1000', 'user_1029', 'user_345', 'Order', 'user_10'].map((n) => page(n, false)),
  );
  assert.equal(page('user_1029', true).length, 1);
  assert.equal(found('user_399'), 0, 'the removed message of the part before');

  // Retention removes the oldest messages: a closed part none of whose messages is left is taken
  // out of the parts, then its table dropped (here with no wait for the reads that listed it).
  remove('< 101');
  const own = new SearchIndexStore(db, 50, 0);
  while (!own.mergeStep(4)) {
    // the next step
  }
  assert.deepEqual(index.parts().map((p) => p.low), [100, 150, 200, 250, 300, 350, 400]);
  const tables = (): string[] => db.prepare("SELECT name FROM sqlite_schema WHERE name IN ('message_text', 'message_text_1', 'message_text_2')").pluck().all() as string[];
  assert.deepEqual(tables(), ['message_text_2']);
  for (const needle of ['user_7', 'user_120', 'Order']) assert.deepEqual(page(needle, true), page(needle, false), needle);

  // Everything goes and ids start again from 1: the first part left takes them.
  remove('> 0');
  for (let i = 0; i < 12; i++) {
    commitTracks(engine, 2_000 + i, 1);
    settle();
  }
  const first = index.parts()[0] as { name: string };
  assert.ok(segmentsOf(first.name) >= 12, 'each commit indexed on its own, into the first part');
  while (!index.mergeStep(4)) {
    // the next step
  }
  assert.ok(segmentsOf(first.name) <= 4, `the part being written is merged like the newest: ${segmentsOf(first.name)} segments`);
  assert.equal(page('user_2004', true).length, 1);
  assert.equal(found('user_2004'), 1);
  remove('> 0');
  assert.equal(found('user_2004'), 0, 'its delete trigger found it');

  // After every message goes, a tidy takes every segment of every part.
  while (!index.tidy(16)) {
    // the next step
  }
  // The steps after ids started again took out the parts left empty; the others are emptied.
  assert.deepEqual(index.parts().map((p) => p.low), [100, 400]);
  assert.deepEqual(index.parts().map((p) => segmentsOf(p.name)), [0, 0]);
  assert.deepEqual(page('Order', true), []);
});

test("an oversized part, the one table of a log from before the parts, is never merged, not even while it is the part being written", async (t) => {
  // The log's index made in one table (parts of 2^19), then read as parts of 50: its table spans
  // 600 ids, twelve times a part's share, as a 10M log's does after the upgrade.
  const { engine, dir } = stoppedEngine(t, systemClock, 'hookbench-search-oversized-');
  for (let i = 0; i < 15; i++) {
    commitTracks(engine, i * 40, 40);
    engine.stores.searchIndex.indexOwed(100);
  }
  const db = new Database(join(dir, 'hookbench.sqlite'));
  t.after(() => db.close());
  const segmentsOf = (name: string): number => db.prepare(`SELECT COUNT(DISTINCT segid) FROM ${name}_idx`).pluck().get() as number;
  const index = new SearchIndexStore(db, 50, 0);
  assert.equal(segmentsOf('message_text'), 15);
  assert.equal(index.mergeStep(4), true, 'nothing to merge: the only part is oversized');
  assert.equal(segmentsOf('message_text'), 15, 'its segments as they were');

  // The first new messages start the next part, which is merged; the oversized one stays as it is.
  for (let i = 0; i < 12; i++) {
    commitTracks(engine, 1_000 + i, 1);
    index.followCommit(engine.stores.log.lastMessageId());
    while (!index.indexOwed(100)) {
      // the rest
    }
  }
  assert.deepEqual(index.parts().map((p) => p.low), [0, 601]);
  assert.equal(segmentsOf('message_text_1'), 12);
  while (!index.mergeStep(4)) {
    // the next step
  }
  assert.ok(segmentsOf('message_text_1') <= 4, `${segmentsOf('message_text_1')} segments in the part being written`);
  assert.equal(segmentsOf('message_text'), 15, 'the oversized part still as it was');
  const page = (text: string, textIndex: boolean): number[] =>
    engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 1000 }, textIndex).map((r) => r.id);
  for (const needle of ['user_3', 'user_1005', 'Order']) assert.deepEqual(page(needle, true), page(needle, false), needle);
});

test("retention on an engine whose index is in parts: what it removes leaves the searches, and the engine's merge steps take out the parts it emptied", async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url), { searchIndexPartMessages: 20 });
  const clock = h.clock as ManualClock;
  const api = createEngineApi(h.engine);
  const delivered = (n: number): Promise<unknown> => waitUntil(() => h.engine.stores.log.countDeliveriesByStatus().succeeded === n, `${n} deliveries`);
  const batch = (from: number): Promise<{ status: number }> =>
    h.post('/v1/batch', { batch: Array.from({ length: 20 }, (_, k) => ({ type: 'track', userId: `user_${from + k}`, event: 'Order Completed' })) });
  try {
    h.engine.retention.stop();
    for (let b = 0; b < 5; b++) {
      assert.equal((await batch(b * 20)).status, 200);
      // A search takes each batch into the index on its own: a part for each 20 ids.
      assert.equal((await api.countDeliveries({ text: 'user_' })).matching, (b + 1) * 20);
    }
    await delivered(100);
    clock.advance(10 * DAY_MS);
    assert.equal((await batch(100)).status, 200);
    await delivered(120);
    assert.equal((await api.countDeliveries({ text: 'Order' })).matching, 120);
    const parts = (): number[] => h.engine.stores.searchIndex.parts().map((p) => p.low);
    // Ids start at 1: the first part holds 19 messages, the 120th message starts the seventh part.
    assert.deepEqual(parts(), [0, 20, 40, 60, 80, 100, 120]);

    clock.advance(21 * DAY_MS);
    for (let more = true; more; ) more = h.engine.retention.runSlice().more;
    assert.equal(h.inspect.count('messages'), 20, 'the ten-day-old batch is left');
    const fromIndex = await api.listDeliveries({ text: 'user_' });
    assert.deepEqual(fromIndex.items.map((d) => d.userId).sort(), Array.from({ length: 20 }, (_, k) => `user_${100 + k}`).sort());

    // The next indexing starts the merge steps, which take out the parts none of whose messages is left.
    assert.equal((await batch(120)).status, 200);
    assert.equal((await api.countDeliveries({ text: 'Order' })).matching, 40);
    await waitUntil(() => parts().length === 3, `the emptied parts taken out (parts from ${parts().join(', ')})`);
    assert.deepEqual(parts(), [100, 120, 140]);
    assert.equal((await api.countDeliveries({ text: 'user_' })).matching, 40);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('activePart, mergeable and partTriggersSql: the first part takes every id below the second, the newest every id from its own; a part far over its share is left unmerged', () => {
  const parts = [
    { part: 2, low: 100, name: 'message_text_2' },
    { part: 3, low: 150, name: 'message_text_3' },
    { part: 4, low: 200, name: 'message_text_4' },
  ];
  assert.equal(activePart(parts, 0).part, 2, 'ids given again from 1 go into the first part');
  assert.equal(activePart(parts, 148).part, 2);
  assert.equal(activePart(parts, 149).part, 3, 'the next id, 150, starts the second');
  assert.equal(activePart(parts, 10_000).part, 4);
  assert.equal(mergeable(62, 50), true, 'a part up to a quarter over its share is merged');
  assert.equal(mergeable(63, 50), false);
  assert.deepEqual(partTriggersSql([{ part: 1, low: 50, name: 'message_text_1' }], parts).split('\n'), [
    'DROP TRIGGER IF EXISTS message_text_delete;',
    'DROP TRIGGER IF EXISTS message_text_delete_1;',
    'CREATE TRIGGER message_text_delete_2 AFTER DELETE ON messages WHEN OLD.id < 150 BEGIN DELETE FROM message_text_2 WHERE rowid = OLD.id; END;',
    'CREATE TRIGGER message_text_delete_3 AFTER DELETE ON messages WHEN OLD.id >= 150 AND OLD.id < 200 BEGIN DELETE FROM message_text_3 WHERE rowid = OLD.id; END;',
    'CREATE TRIGGER message_text_delete_4 AFTER DELETE ON messages WHEN OLD.id >= 200 BEGIN DELETE FROM message_text_4 WHERE rowid = OLD.id; END;',
  ]);
});
