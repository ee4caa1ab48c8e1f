/**
 * The search index's segments are merged by the engine, in short steps between other work, not by
 * FTS5 inside the transaction that indexes (schema 26): on a big log FTS5's own merging made a
 * follow-up slice of a few dozen messages write hundreds of pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from './clock';
import { createEngineApi } from './api';
import { configWith, startHarness } from './testing/harness';
import { Receiver } from './testing/receiver';
import { stoppedEngine } from './testing/stopped-engine';
import { waitUntil } from './testing/wait';
import { LogInspector } from './store/inspect';
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
