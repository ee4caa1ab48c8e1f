/**
 * The Inbound store: the first-page merge (pure), and the store against a real engine behind a real
 * server, through the renderer's HTTP transport and the live stream.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundRequest } from '../../../src-shared/api';
import { configWith, startHarness } from '../../../src-main/engine/testing/harness';
import { Receiver } from '../../../src-main/engine/testing/receiver';
import { waitUntil } from '../../../src-main/engine/testing/wait';
import { serverTransport } from '../../testing/server-transport';
import { createInboundStore, INBOUND_MAX_ROWS, keepNewest, keepOlder, mergeRows, withFirstPage } from './store';
import { sourceNameOf } from './source-names';

const req = (id: number): InboundRequest => ({
  id,
  sourceId: 1,
  path: '/v1/track',
  receivedAt: '2026-01-01T00:00:00.000Z',
  httpStatus: 200,
  bytes: 10,
  items: 1,
  accepted: 1,
  dropped: 0,
  duplicates: 0,
  userAgent: null,
  errorCode: null,
  errorText: null,
});
const ids = (rows: InboundRequest[]): number[] => rows.map((r) => r.id);

test('a fresh first page is merged when it reaches what is shown, and replaces it when newer calls outnumber a page', () => {
  const shown = { rows: [req(5), req(4), req(3)], nextBeforeId: 3 };
  const touching = withFirstPage(shown, { items: [req(7), req(6), req(5)], nextBeforeId: 5 });
  assert.deepEqual(ids(touching.rows), [7, 6, 5, 4, 3]);
  assert.equal(touching.nextBeforeId, 3, 'paging goes on from the oldest shown');
  const gap = withFirstPage(shown, { items: [req(20), req(19), req(18)], nextBeforeId: 18 });
  assert.deepEqual(ids(gap.rows), [20, 19, 18], 'calls 6 to 17 are not skipped: they come with "load more"');
  assert.equal(gap.nextBeforeId, 18);
  const whole = withFirstPage(shown, { items: [req(9), req(8)], nextBeforeId: null });
  assert.deepEqual(ids(whole.rows), [9, 8, 5, 4, 3], 'a page that is not full holds every newer call');
  assert.deepEqual(withFirstPage({ rows: [], nextBeforeId: null }, { items: [req(2), req(1)], nextBeforeId: 1 }), { rows: [req(2), req(1)], nextBeforeId: 1 });
});

test('a merge keeps the rows held (the same objects), adds new ones above and older ones below, and changes nothing when nothing is new', () => {
  const rows = [req(9), req(8), req(7), req(5)];
  assert.equal(mergeRows(rows, [req(9), req(8), req(7)]), rows, 'a refresh with nothing new: the same array');
  assert.equal(mergeRows(rows, []), rows);
  const live = mergeRows(rows, [req(12), req(10), req(11), req(9), req(8)]);
  assert.deepEqual(live.map((r) => r.id), [12, 11, 10, 9, 8, 7, 5]);
  assert.equal(live[3], rows[0], 'a row held stays the same object');
  assert.deepEqual(mergeRows(rows, [req(3), req(4), req(1)]).map((r) => r.id), [9, 8, 7, 5, 4, 3, 1], 'older calls below');
  const gap = mergeRows(rows, [req(6), req(10)]);
  assert.deepEqual(gap.map((r) => r.id), [10, 9, 8, 7, 6, 5], 'a row inside the range not held: merged in its place');
  assert.equal(gap[1], rows[0]);
});

test('the list holds a bounded number of calls: live calls push out the oldest (paged in again by Load older), paging back pushes out the newest', () => {
  const rows = [req(9), req(8), req(7), req(6), req(5)];
  assert.deepEqual(keepNewest({ rows, nextBeforeId: 2 }, 5), { rows, nextBeforeId: 2 });
  assert.deepEqual(keepNewest({ rows: [req(11), req(10), ...rows], nextBeforeId: 2 }, 5), { rows: [req(11), req(10), req(9), req(8), req(7)], nextBeforeId: 7 });
  assert.deepEqual(keepOlder(rows, 5), { rows, dropped: false });
  assert.deepEqual(keepOlder([...rows, req(4), req(3)], 5), { rows: [req(7), req(6), req(5), req(4), req(3)], dropped: true });
});

test('source names in words', () => {
  const sources = [{ id: 1, name: 'backend', writeKey: 'k', createdAt: '' }];
  assert.equal(sourceNameOf(1, sources), 'backend');
  assert.equal(sourceNameOf(2, sources), '#2 (removed)');
  assert.equal(sourceNameOf(null, sources), '—');
});

test('the store lists calls newest first, follows new ones live, and shows a call\'s messages and dropped items', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  const transport = serverTransport(h.server.url, h.server.token);
  const frames: (() => void)[] = [];
  const inbound = createInboundStore(transport, (flush) => frames.push(flush));
  const s = inbound.store;
  try {
    await h.post('/v1/track', { userId: 'u', event: 'First', messageId: 'ib-1' });
    const stop = inbound.start();
    await waitUntil(() => s.getState().loaded, 'the first page');
    assert.equal(s.getState().rows.length, 1);
    assert.equal(s.getState().nextBeforeId, null);
    await waitUntil(() => s.getState().sources.length === 1 && s.getState().environment !== null, 'sources and environment');

    await h.post('/v1/batch', {
      batch: [
        { type: 'track', userId: 'u', event: 'Second', messageId: 'ib-2' },
        { type: 'identify' },
        { type: 'track', userId: 'u', event: 'First', messageId: 'ib-1' },
      ],
    });
    await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: 'wk_nobody' });
    // Live events are applied once per frame: run the frame once one is queued.
    await waitUntil(() => frames.length > 0, 'a live event for the new calls');
    while (frames.length > 0) frames.shift()!();
    await waitUntil(() => s.getState().rows.length === 3, 'the new calls');
    const [refused, batch] = s.getState().rows;
    assert.equal(refused?.httpStatus, 200, 'an unknown key is answered 200, as Segment answers it');
    assert.ok(refused?.errorCode, 'a refused call carries its error');
    assert.deepEqual([batch?.path, batch?.dropped, batch?.duplicates], ['/v1/batch', 1, 1]);

    s.getState().select(batch!.id);
    await waitUntil(() => s.getState().detail, 'the detail');
    const detail = s.getState().detail!;
    assert.deepEqual(detail.messages.map((m) => m.messageId), ['ib-2']);
    assert.equal(detail.messages[0]?.deliveryIds.length, 1);
    assert.deepEqual(detail.dropped.map((d) => [d.index, d.kind]), [[1, 'invalid'], [2, 'duplicate']]);
    assert.equal(detail.dropped[0]?.reason, 'batch[1].userId: is required (or anonymousId); neither was sent');
    assert.deepEqual(detail.messages[0]?.warnings, []);

    s.getState().move(1);
    assert.equal(s.getState().selectedId, s.getState().rows[2]?.id, 'j moves to the older call');
    s.getState().move(-1);
    s.getState().move(-1);
    assert.equal(s.getState().selectedId, refused?.id);
    s.getState().move(-1);
    assert.equal(s.getState().selectedId, refused?.id, 'and stops at the newest');
    stop();
  } finally {
    transport.close();
    await h.close();
    await receiver.close();
  }
});

test('paging back past the most the list holds lets the newest go and stops following new calls, until Newest', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const transport = serverTransport(h.server.url, h.server.token);
  let frame: (() => void) | null = null;
  const inbound = createInboundStore(transport, (flush) => void (frame = flush));
  try {
    const calls = INBOUND_MAX_ROWS + 150;
    for (let i = 0; i < calls; i++) await h.post('/v1/track', { userId: 'u', event: `E${i}` });
    const stop = inbound.start();
    const s = inbound.store;
    await waitUntil(() => s.getState().loaded, 'the first page');
    const newest = s.getState().rows[0]?.id;
    while (!s.getState().newestDropped && s.getState().nextBeforeId !== null) await s.getState().loadMore();
    assert.equal(s.getState().newestDropped, true);
    assert.equal(s.getState().rows.length, INBOUND_MAX_ROWS, 'the list holds its most');
    assert.ok((s.getState().rows[0]?.id ?? 0) < (newest ?? 0), 'the newest were let go');
    // A new call does not come in at the top while older ones are shown.
    await h.post('/v1/track', { userId: 'u', event: 'Live' });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(frame, null, 'no refresh asked');
    s.getState().jump('newest');
    await waitUntil(() => s.getState().rows.length > 0 && !s.getState().newestDropped, 'the newest again');
    assert.ok((s.getState().rows[0]?.id ?? 0) > (newest ?? 0), 'the new call is at the top');
    stop();
  } finally {
    transport.close();
    await h.close();
  }
});

test('load more pages the log by keyset, older calls after newer ones', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const transport = serverTransport(h.server.url, h.server.token);
  const inbound = createInboundStore(transport, () => {});
  try {
    for (let i = 0; i < 105; i++) await h.post('/v1/track', { userId: 'u', event: `E${i}` });
    const stop = inbound.start();
    const s = inbound.store;
    await waitUntil(() => s.getState().loaded, 'the first page');
    assert.equal(s.getState().rows.length, 100);
    assert.notEqual(s.getState().nextBeforeId, null);
    await s.getState().loadMore();
    const rows = s.getState().rows;
    assert.equal(rows.length, 105);
    assert.equal(s.getState().nextBeforeId, null);
    assert.deepEqual(ids(rows), [...ids(rows)].sort((a, b) => b - a), 'newest first');
    assert.equal(new Set(ids(rows)).size, 105, 'each call once');
    stop();
  } finally {
    transport.close();
    await h.close();
  }
});

test('filters go to the engine over HTTP, the detail shows the call as received, and the list jumps to the oldest and back', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const transport = serverTransport(h.server.url, h.server.token);
  const inbound = createInboundStore(transport, () => {});
  const s = inbound.store;
  try {
    for (let i = 0; i < 3; i++) await h.post('/v1/track', { userId: 'u', event: `E${i}` });
    await h.post('/v1/identify', { userId: 'u' });
    await h.post('/v1/batch', null, { raw: '{"batch": [' });
    const stop = inbound.start();
    await waitUntil(() => s.getState().loaded, 'the first page');
    assert.equal(s.getState().rows.length, 5);
    const newest = ids(s.getState().rows);

    s.getState().setFilter({ status: 'refused' });
    await waitUntil(() => s.getState().rows.length === 1, 'the refused call alone');
    const refused = s.getState().rows[0]!;
    assert.equal(refused.errorCode, 'invalid_json');
    s.getState().select(refused.id);
    await waitUntil(() => s.getState().detail?.request, 'the call as received');
    assert.equal(s.getState().detail?.request?.body, '{"batch": [');
    assert.equal(s.getState().detail?.request?.bodyClipped, false);

    s.getState().setFilter({ path: 'identify', status: undefined });
    await waitUntil(() => s.getState().rows.length === 1 && s.getState().rows[0]?.path === '/v1/identify', 'the identify call');
    s.getState().setFilter({});
    await waitUntil(() => s.getState().rows.length === 5, 'every call again');

    s.getState().jump('oldest');
    await s.getState().loadMore();
    await waitUntil(() => s.getState().atOldest && s.getState().rows.length === 5 && s.getState().nextBeforeId === null, 'the oldest page');
    assert.deepEqual(ids(s.getState().rows), newest, 'newest first within the page');
    s.getState().jump('newest');
    await waitUntil(() => !s.getState().atOldest && s.getState().rows.length === 5, 'the newest again');

    // A bad filter is refused by the control API with the field's name.
    await assert.rejects(transport.call('listRequests', { status: 'ok' as 'accepted' }), /page\.status/);
    await assert.rejects(transport.call('listRequests', { from: 'today' }), /page\.from/);
    stop();
  } finally {
    transport.close();
    await h.close();
  }
});
