/**
 * The Watch store and the bulk replay over the real engine: calls go through the renderer's own
 * HTTP transport to a real headless server (real JSON, real validation errors); live events come
 * straight from the engine (Node 20 has no EventSource). Receivers are real HTTP servers.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LiveEvent } from '../../../src-shared/api';
import { startHarness, configWith, type Harness } from '../../../src-main/engine/testing/harness';
import { Receiver, status } from '../../../src-main/engine/testing/receiver';
import { waitUntil } from '../../../src-main/engine/testing/wait';
import { createDeliveriesStore } from './store';
import { httpTransport, type Transport } from '../../transport';
import { replayFailedInFilter, type BulkProgress } from './bulk-replay';

describe('watch over a real engine', () => {
  let receiver: Receiver;
  let h: Harness;
  let transport: Transport;
  const statusOf = (id: number): string => (h.inspect.get('SELECT status FROM deliveries WHERE id = ?', id) as { status: string }).status;
  const failedIds = (): number[] => (h.inspect.all(`SELECT id FROM deliveries WHERE status = 'failed' ORDER BY id DESC`) as { id: number }[]).map((r) => r.id);

  before(async () => {
    receiver = await new Receiver().start();
    // 400 is not retried: each delivery fails at its first attempt, no clock to move.
    receiver.respond(status(400));
    h = await startHarness(configWith(receiver.url));
    const http = httpTransport(h.server.token, h.server.url);
    transport = {
      call: http.call,
      subscribe(onEvent: (e: LiveEvent) => void, onState) {
        onState('connected');
        return h.engine.onLive(onEvent);
      },
    };
    const batch = ['ann', 'ann', 'ann', 'ben', 'ben'].map((userId, i) => ({ type: 'track', userId, event: 'Order Completed', messageId: `bulk-${i}` }));
    assert.equal((await h.post('/v1/batch', { batch })).status, 200);
    await waitUntil(() => failedIds().length === 5, 'five failed deliveries');
    receiver.respond(status(200));
  });

  after(async () => {
    await h?.close();
    await receiver?.close();
  });

  test('bulk replay: every failed delivery in the filter, with progress; cancel stops after the call in flight', async () => {
    const progress: BulkProgress[] = [];
    let calls = 0;
    const counting: Transport['call'] = (m, p) => {
      calls++;
      return transport.call(m, p);
    };
    // Cancelled as soon as the first replay is reported: exactly one was made.
    const cancelled = await replayFailedInFilter(counting, { text: 'ANN' }, { pageSize: 2, isCancelled: () => progress.some((p) => p.done >= 1), onProgress: (p) => progress.push(p) });
    assert.deepEqual([cancelled.done, cancelled.total, cancelled.replayed, cancelled.failed], [1, 3, 1, 0]);
    assert.equal(calls, 3, 'count, one page, one replay');

    progress.length = 0;
    const annFailed = failedIds().slice(-3); // ann's are the three oldest
    const result = await replayFailedInFilter(transport.call, { text: 'ann', status: 'succeeded' }, { pageSize: 2, onProgress: (p) => progress.push(p) });
    assert.deepEqual(
      progress.map((p) => `${p.done}/${p.total}`),
      ['0/3', '1/3', '2/3', '3/3'],
      'the status asked for is replaced by failed, and paging crosses pages',
    );
    assert.deepEqual([result.replayed, result.failed, result.firstError], [3, 0, null]);
    const replayed = (h.inspect.all(`SELECT replay_of FROM deliveries WHERE id IN (${result.replayIds.join(',')})`) as { replay_of: number }[]).map((r) => r.replay_of);
    assert.deepEqual(replayed.sort(), [...annFailed].sort(), 'the originals are ann’s failed deliveries, newest first');
    for (const id of result.replayIds) await waitUntil(() => statusOf(id) === 'succeeded', `replay ${id} to succeed`);

    // A refusal is counted and its first message kept; the run goes on.
    const refusing: Transport['call'] = (m, p) =>
      m === 'replayDelivery' && (p as { id: number }).id === failedIds()[0] ? Promise.reject(new Error('replay.id: refused for the test')) : transport.call(m, p);
    const mixed = await replayFailedInFilter(refusing, { text: 'ben' });
    assert.deepEqual([mixed.done, mixed.replayed, mixed.failed], [2, 1, 1]);
    assert.equal(mixed.firstError, `#${failedIds()[0]}: replay.id: refused for the test`);
  });

  test('the store: first page, filters, counts and live rows through the real API; a refused filter is shown in plain words', async () => {
    const s = createDeliveriesStore(transport, { schedule: (f) => setImmediate(f), delay: (fn) => {
      const t = setTimeout(fn, 10);
      return () => clearTimeout(t);
    } });
    const stop = s.start();
    try {
      const state = s.store.getState;
      await waitUntil(() => state().loaded, 'the first page');
      const total = (h.inspect.get('SELECT COUNT(*) AS n FROM deliveries') as { n: number }).n;
      assert.equal(state().rows.length, total);
      await waitUntil(() => state().counts?.total === total, 'the counts');

      state().setFilter({ status: ['failed'], text: 'ben' });
      await waitUntil(() => state().counts?.matching !== total && !state().loading && state().counts, 'the filtered counts');
      assert.ok(state().rows.every((r) => r.status === 'failed' && r.userId === 'ben'));
      assert.deepEqual(state().counts, { total, matching: state().rows.length });

      state().setFilter({ text: 'cid' });
      await waitUntil(() => !state().loading, 'the page for cid');
      assert.deepEqual(state().rows, []);
      assert.equal(await h.post('/v1/track', { userId: 'cid', event: 'Signed Up', messageId: 'live-cid' }).then((r) => r.status), 200);
      await waitUntil(() => state().rows.find((r) => r.userId === 'cid' && r.status === 'succeeded'), 'the live row to arrive and succeed');
      await waitUntil(() => state().counts?.matching === 1, 'the counts to follow');

      // The bulk replay from the store: replays what the filter holds (nothing failed for cid).
      state().replayFailed();
      await waitUntil(() => state().bulk?.state === 'finished', 'the bulk replay to finish');
      assert.deepEqual(state().bulk, { state: 'finished', done: 0, total: 0, replayed: 0, failed: 0, firstError: null });

      // A filter the engine refuses: the message names the field.
      state().setFilter({ text: 'x'.repeat(600) });
      await waitUntil(() => state().error, 'the refusal');
      assert.match(state().error ?? '', /text: must be at most 500 characters/);
    } finally {
      stop();
    }
  });
});
