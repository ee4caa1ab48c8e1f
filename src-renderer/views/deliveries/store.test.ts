/**
 * The store's timing rules, frame by frame, over an in-memory log behind the Transport interface
 * (the real engine behind a transport is exercised in components/watch/watch-store.engine.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiMethod, DeliveryDetail, DeliveryPage, DeliverySummary, LiveEvent } from '../../../src-shared/api';
import { COUNTS_EVERY_MS, createDeliveriesStore, type Delay } from './store';
import type { ConnectionState, Transport } from '../../transport';
import { summaryFixture } from '../../testing/summary';

function summary(id: number, status: DeliverySummary['status'] = 'pending', userId = 'u'): DeliverySummary {
  return summaryFixture(id, { status, userId });
}

function detail(s: DeliverySummary): DeliveryDetail {
  return {
    ...s,
    body: '{}',
    targetUrl: null,
    edited: false,
    firstAttemptAt: null,
    finishedAt: null,
    attempts: [],
    signature: { state: 'no_secret', expected: null, sent: null, explanation: '' },
    nextStep: '',
    originalBody: null,
    destinationName: null,
    schedule: { warp: 1, windowMs: 0, windowStart: null, windowEnd: null, rounds: [], plannedAreLatest: false, truncated: false },
  };
}

/** Keyset paging with status and userId-substring filters, the contract's way, over a Map. */
/** Holds replayDelivery calls until the test lets one through. */
const replayGate = {
  waiting: [] as (() => void)[],
  wait(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  },
  release(): void {
    this.waiting.shift()?.();
  },
};

/** Holds countDeliveries calls while closed, as a count that reads a big log takes seconds. */
const countGate = {
  closed: false,
  waiting: [] as (() => void)[],
  async pass(): Promise<void> {
    if (this.closed) await new Promise<void>((resolve) => this.waiting.push(resolve));
  },
  open(): void {
    this.closed = false;
    for (const go of this.waiting.splice(0)) go();
  },
};

function fakeTransport(log: Map<number, DeliverySummary>, textScanBudget: number | null = null) {
  const calls: string[] = [];
  let emit: (e: LiveEvent) => void = () => {};
  let state: (s: ConnectionState) => void = () => {};
  const matches = (r: DeliverySummary, p: DeliveryPage): boolean => {
    const statuses = p.status === undefined ? null : Array.isArray(p.status) ? p.status : [p.status];
    const replayed = p.replayed === undefined || p.replayed === r.replays.length > 0;
    return (statuses === null || statuses.includes(r.status)) && (!p.text || (r.userId ?? '').includes(p.text)) && replayed;
  };
  const transport: Transport = {
    async call(method: ApiMethod, params?: unknown) {
      calls.push(params === undefined ? method : `${method} ${JSON.stringify(params)}`);
      const rows = [...log.values()].sort((a, b) => b.id - a.id);
      switch (method) {
        case 'listDeliveries': {
          const p = (params ?? {}) as DeliveryPage;
          const limit = p.limit ?? 100;
          if (p.text && textScanBudget !== null && !p.oldest) {
            // As the engine reads a text no index answers: at most the budget's rows per call, newest first.
            const inRange = rows.filter((r) => r.id < (p.beforeId ?? Infinity) && r.id > (p.afterId ?? 0));
            const read = inRange.slice(0, textScanBudget);
            const items = read.filter((r) => matches(r, p)).slice(0, limit);
            if (items.length === limit) return { items, nextBeforeId: items[items.length - 1]!.id } as never;
            if (inRange.length <= textScanBudget) return { items, nextBeforeId: null } as never;
            const stop = read[read.length - 1]!.id;
            return { items, nextBeforeId: stop, partial: { searchedTo: `2026-11-22T12:00:00.${String(stop).padStart(3, '0')}Z`, resume: { beforeId: stop } } } as never;
          }
          const items = rows
            .filter((r) => matches(r, p) && r.id < (p.beforeId ?? Infinity) && r.id > (p.afterId ?? 0) && (p.ids === undefined || p.ids.includes(r.id)))
            .slice(0, limit);
          return { items, nextBeforeId: items.length === limit ? items[items.length - 1]!.id : null } as never;
        }
        case 'getDeliverySummaries':
          return rows.filter((r) => (params as number[]).includes(r.id)) as never;
        case 'countDeliveries':
          await countGate.pass();
          return { total: rows.length, matching: rows.filter((r) => matches(r, (params ?? {}) as DeliveryPage)).length } as never;
        case 'getDelivery': {
          const row = log.get(params as number);
          return (row ? detail(row) : null) as never;
        }
        case 'listSources':
        case 'listDestinations':
          return [] as never;
        case 'replayDelivery': {
          await replayGate.wait();
          const original = log.get((params as { id: number }).id)!;
          const id = Math.max(...log.keys()) + 1;
          const replay = { ...original, id, status: 'pending' as const, replayOf: original.id, replays: [] };
          log.set(id, replay);
          log.set(original.id, { ...original, replays: [id, ...original.replays] });
          return detail(replay) as never;
        }
        default:
          throw new Error(`unexpected ${method}`);
      }
    },
    subscribe(onEvent, onState) {
      emit = onEvent;
      state = onState;
      return () => {};
    },
  };
  return { transport, calls, emit: (e: LiveEvent) => emit(e), state: (s: ConnectionState) => state(s) };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A store whose frames and timers run only when the test says so. */
function setup(ids: number[], options: { pageSize?: number; maxRows?: number; textScanBudget?: number; userIdOf?: (id: number) => string; autoSearchCalls?: number } = {}) {
  const log = new Map(ids.map((id) => [id, summary(id, 'pending', options.userIdOf?.(id) ?? 'u')]));
  const fake = fakeTransport(log, options.textScanBudget ?? null);
  const frames: (() => void)[] = [];
  const timers: { fn: () => void; ms: number; cancelled: boolean }[] = [];
  const delay: Delay = (fn, ms) => {
    const t = { fn, ms, cancelled: false };
    timers.push(t);
    return () => (t.cancelled = true);
  };
  const s = createDeliveriesStore(fake.transport, { schedule: (f) => frames.push(f), delay, ...options });
  const frame = async (): Promise<void> => {
    assert.ok(frames.length > 0, 'a frame was scheduled');
    frames.shift()!();
    await settle();
  };
  const fireTimers = async (): Promise<void> => {
    for (const t of timers.splice(0)) if (!t.cancelled) t.fn();
    await settle();
  };
  return { ...fake, log, frames, timers, frame, fireTimers, store: s.store, start: s.start };
}

const idsOf = (rows: DeliverySummary[]): number[] => rows.map((r) => r.id);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => to - i);

test('the log is read a page at a time: the first page, then older pages on demand, never the whole log', async () => {
  const t = setup(range(1, 250), { pageSize: 100 });
  t.start();
  await settle();
  assert.deepEqual(idsOf(t.store.getState().rows), range(151, 250));
  assert.equal(t.store.getState().hasOlder, true);
  assert.deepEqual(t.store.getState().counts, { total: 250, matching: 250 });
  assert.deepEqual(
    t.calls.filter((c) => c.startsWith('listDeliveries')),
    ['listDeliveries {"limit":100}'],
  );

  t.store.getState().loadOlder();
  t.store.getState().loadOlder(); // a second call while one is on its way is ignored
  await settle();
  assert.deepEqual(idsOf(t.store.getState().rows), range(51, 250));
  t.store.getState().loadOlder();
  await settle();
  assert.deepEqual(idsOf(t.store.getState().rows), range(1, 250));
  assert.equal(t.store.getState().hasOlder, false);
  assert.deepEqual(
    t.calls.filter((c) => c.startsWith('listDeliveries')),
    ['listDeliveries {"limit":100}', 'listDeliveries {"beforeId":151,"limit":100}', 'listDeliveries {"beforeId":51,"limit":100}'],
  );
  t.store.getState().loadOlder();
  await settle();
  assert.equal(t.calls.filter((c) => c.startsWith('listDeliveries')).length, 3, 'nothing more to load');
});

test('live events are applied once per frame: one call for changed rows on screen, one for new rows', async () => {
  const t = setup(range(1, 200), { pageSize: 100 });
  t.start();
  await settle();
  t.store.getState().setViewport(0, 9);
  t.calls.length = 0;

  t.log.set(200, summary(200, 'succeeded'));
  t.log.set(195, summary(195, 'retrying'));
  t.log.set(120, summary(120, 'failed')); // loaded, but far below the screen
  t.log.set(201, summary(201));
  t.log.set(202, summary(202));
  t.emit({ type: 'deliveries', ids: [200, 201] });
  t.emit({ type: 'deliveries', ids: [195, 202, 120, 200] });
  assert.equal(t.frames.length, 1, 'one frame for every event before it');
  await t.frame();
  assert.deepEqual(t.calls, ['listDeliveries {"ids":[201,202],"limit":2}', 'getDeliverySummaries [200,195]']);
  const rows = t.store.getState().rows;
  assert.deepEqual(idsOf(rows.slice(0, 4)), [202, 201, 200, 199]);
  assert.equal(rows.find((r) => r.id === 200)?.status, 'succeeded');
  assert.equal(rows.find((r) => r.id === 195)?.status, 'retrying');
  assert.equal(rows.find((r) => r.id === 120)?.status, 'pending', 'off screen: marked stale, not fetched');

  // Scrolling row 120 into view refreshes it, in the next frame, with one call.
  t.calls.length = 0;
  const at = t.store.getState().rows.findIndex((r) => r.id === 120);
  t.store.getState().setViewport(at - 5, at + 5);
  await t.frame();
  assert.deepEqual(t.calls, ['getDeliverySummaries [120]']);
  assert.equal(t.store.getState().rows.find((r) => r.id === 120)?.status, 'failed');

  // A frame with nothing changed on screen makes no call at all.
  t.calls.length = 0;
  t.emit({ type: 'deliveries', ids: [5] }); // below the loaded window: read when scrolled to
  await t.frame();
  assert.deepEqual(t.calls, []);
});

test('rows on screen that the log no longer has (purged by a deletion request) leave the list', async () => {
  const t = setup(range(1, 20), { pageSize: 100 });
  t.start();
  await settle();
  t.store.getState().setViewport(0, 9);
  t.log.delete(18);
  t.log.delete(15);
  t.log.set(19, summary(19, 'succeeded'));
  t.emit({ type: 'deliveries', ids: [18, 15, 19] });
  await t.frame();
  const rows = t.store.getState().rows;
  assert.deepEqual(idsOf(rows.slice(0, 4)), [20, 19, 17, 16]);
  assert.equal(rows.find((r) => r.id === 19)?.status, 'succeeded');
  assert.equal(rows.length, 18);
});

test('the hidden count is refreshed at most every 500 ms, however many events arrive', async () => {
  const t = setup(range(1, 10));
  t.start();
  await settle();
  t.calls.length = 0;
  for (let i = 11; i <= 40; i++) {
    t.log.set(i, summary(i));
    t.emit({ type: 'deliveries', ids: [i] });
  }
  assert.equal(t.timers.filter((x) => !x.cancelled).length, 1, 'one pending count for thirty events');
  assert.equal(t.timers[0]?.ms, COUNTS_EVERY_MS);
  await t.fireTimers();
  assert.deepEqual(
    t.calls.filter((c) => c.startsWith('countDeliveries')),
    ['countDeliveries {}'],
  );
  assert.deepEqual(t.store.getState().counts, { total: 40, matching: 40 });
});

test('while the view is not shown, live events ask for no count; it is asked once when the view is shown again', async () => {
  const t = setup(range(1, 10));
  t.start();
  await settle();
  t.calls.length = 0;
  t.store.getState().setShown(false);
  for (let i = 11; i <= 40; i++) {
    t.log.set(i, summary(i));
    t.emit({ type: 'deliveries', ids: [i] });
  }
  await t.frame();
  await settle();
  await t.fireTimers();
  assert.deepEqual(t.calls.filter((c) => c.startsWith('countDeliveries')), [], 'no count while hidden');
  assert.ok(t.calls.some((c) => c.startsWith('listDeliveries')), 'the rows still follow the log');
  t.store.getState().setShown(true);
  await settle();
  assert.deepEqual(t.calls.filter((c) => c.startsWith('countDeliveries')), ['countDeliveries {}']);
  assert.deepEqual(t.store.getState().counts, { total: 40, matching: 40 });
  t.calls.length = 0;
  t.store.getState().setShown(false);
  t.store.getState().setShown(true);
  await settle();
  assert.deepEqual(t.calls, [], 'shown again with nothing new: nothing asked');
});

test('one count at a time: while a slow count runs, the ones asked meanwhile become one, for the filter as it is then', async () => {
  const t = setup(range(1, 10));
  t.log.set(4, summary(4, 'failed'));
  t.start();
  await settle();
  countGate.closed = true;
  t.calls.length = 0;
  try {
    // Events for two seconds while the count is held: a count asked every 500 ms, none sent.
    t.log.set(11, summary(11));
    t.emit({ type: 'deliveries', ids: [11] });
    await t.fireTimers();
    for (let i = 12; i <= 15; i++) {
      t.log.set(i, summary(i));
      t.emit({ type: 'deliveries', ids: [i] });
      await t.fireTimers();
    }
    // And the filter changes meanwhile: the old filter's count no longer stands beside the new rows.
    t.store.getState().setFilter({ status: ['failed'] });
    await settle();
    assert.equal(t.store.getState().counts, null, 'no count shown for the new filter yet');
    assert.deepEqual(t.calls.filter((c) => c.startsWith('countDeliveries')), ['countDeliveries {}'], 'one count in flight');
    countGate.open();
    await settle();
    assert.deepEqual(
      t.calls.filter((c) => c.startsWith('countDeliveries')),
      ['countDeliveries {}', 'countDeliveries {"status":["failed"]}'],
      'then one more, for the filter as it is now',
    );
    assert.deepEqual(t.store.getState().counts, { total: 15, matching: 1 });
  } finally {
    countGate.open();
  }
});

test('a filter reloads the first page and the counts; a slower answer for the old filter is dropped', async () => {
  const t = setup(range(1, 30));
  for (const id of [3, 9, 27]) t.log.set(id, summary(id, 'failed'));
  t.start();
  await settle();
  t.calls.length = 0;
  t.store.getState().setFilter({ status: ['failed'], text: '', type: undefined });
  await settle();
  assert.deepEqual(t.calls, ['countDeliveries {"status":["failed"]}', 'listDeliveries {"status":["failed"],"limit":100}']);
  assert.deepEqual(idsOf(t.store.getState().rows), [27, 9, 3]);
  assert.deepEqual(t.store.getState().counts, { total: 30, matching: 3 });

  // A delivery that starts to match is brought in by the filtered query, in its place.
  t.log.set(15, summary(15, 'failed'));
  t.log.set(31, summary(31, 'pending')); // new, but not failed
  t.calls.length = 0;
  t.emit({ type: 'deliveries', ids: [15, 31] });
  await t.frame();
  assert.deepEqual(t.calls, ['listDeliveries {"status":["failed"],"ids":[15,31],"limit":2}']);
  assert.deepEqual(idsOf(t.store.getState().rows), [27, 15, 9, 3]);

  // Two filters in a row: only the last one's rows land.
  t.store.getState().setFilter({ text: 'nobody' });
  t.store.getState().setFilter({});
  await settle();
  assert.equal(t.store.getState().rows.length, 31);
});

test('paused: new rows are held and counted while rows on screen still update; show and unpause insert them', async () => {
  const t = setup(range(1, 5));
  t.start();
  await settle();
  t.store.getState().setPaused(true);
  t.log.set(6, summary(6));
  t.log.set(7, summary(7));
  t.log.set(5, summary(5, 'succeeded'));
  t.emit({ type: 'deliveries', ids: [6, 7, 5] });
  await t.frame();
  assert.deepEqual(idsOf(t.store.getState().rows), [5, 4, 3, 2, 1]);
  assert.equal(t.store.getState().newWhilePaused, 2);
  assert.equal(t.store.getState().rows[0]?.status, 'succeeded', 'rows on screen still update');

  t.store.getState().showNew();
  assert.deepEqual(idsOf(t.store.getState().rows), [7, 6, 5, 4, 3, 2, 1]);
  assert.equal(t.store.getState().newWhilePaused, 0);
  assert.equal(t.store.getState().paused, true, 'show does not unpause');

  t.log.set(8, summary(8));
  t.emit({ type: 'deliveries', ids: [8] });
  await t.frame();
  assert.equal(t.store.getState().newWhilePaused, 1);
  t.store.getState().setPaused(false);
  assert.deepEqual(idsOf(t.store.getState().rows).slice(0, 2), [8, 7]);
});

test('a long live tail keeps at most maxRows in memory, and the cut rows come back as an older page', async () => {
  const t = setup(range(1, 10), { pageSize: 10, maxRows: 12 });
  t.start();
  await settle();
  t.store.getState().setViewport(0, 3);
  for (let id = 11; id <= 40; id++) t.log.set(id, summary(id));
  t.emit({ type: 'deliveries', ids: range(11, 40) });
  await t.frame();
  // keepThrough = last on screen (3) + 30 added + the refresh margin: nothing is cut yet.
  assert.equal(t.store.getState().rows.length, 40);
  t.store.getState().setViewport(0, 3);
  for (let id = 41; id <= 45; id++) t.log.set(id, summary(id));
  t.emit({ type: 'deliveries', ids: range(41, 45) });
  await t.frame();
  const rows = t.store.getState().rows;
  assert.equal(rows.length, 29, 'cut to the screen plus its margins');
  assert.equal(t.store.getState().hasOlder, true);
  t.store.getState().loadOlder();
  await settle();
  assert.deepEqual(idsOf(t.store.getState().rows).slice(27, 30), [18, 17, 16]);
});

test('the selected delivery is refetched when it changes, and a reconnect catches up from the log', async () => {
  const t = setup([1]);
  t.start();
  t.state('connected');
  await settle();
  t.store.getState().select(1);
  await settle();
  assert.equal(t.store.getState().detail?.status, 'pending');

  t.log.set(1, summary(1, 'retrying'));
  t.emit({ type: 'deliveries', ids: [1] });
  await t.frame();
  assert.equal(t.store.getState().detail?.status, 'retrying');
  assert.equal(t.store.getState().rows[0]?.status, 'retrying');

  t.state('reconnecting');
  assert.equal(t.store.getState().connection, 'reconnecting');
  t.log.set(3, summary(3));
  t.log.set(1, summary(1, 'succeeded'));
  t.calls.length = 0;
  t.state('connected');
  assert.equal(t.frames.length, 1);
  await t.frame();
  assert.deepEqual(t.calls, ['listDeliveries {"limit":500,"afterId":1}', 'getDeliverySummaries [1]']);
  assert.deepEqual(idsOf(t.store.getState().rows), [3, 1]);
  assert.equal(t.store.getState().rows[1]?.status, 'succeeded');
});

test('bulk replay from the store: asks first with the count, progress while it runs, cancel stops after the call in flight', async () => {
  const t = setup(range(1, 7));
  for (const id of [2, 4, 5]) t.log.set(id, summary(id, 'failed'));
  t.log.set(6, summary(6, 'failed', 'u', ));
  t.log.set(6, { ...t.log.get(6)!, replays: [99] });
  t.start();
  await settle();
  t.store.getState().setFilter({ text: 'u' });
  await settle();
  t.calls.length = 0;
  t.store.getState().replayFailed();
  assert.equal(t.store.getState().bulkConfirm?.counting, true);
  await settle();
  assert.deepEqual(t.store.getState().bulkConfirm, { counting: false, fresh: 3, alreadyReplayed: 1, includeReplayed: false });
  assert.equal(t.store.getState().bulk, null, 'nothing is replayed before the person confirms');
  // Those replayed, then every failed one: both exact here, so those never replayed are the difference.
  assert.deepEqual(t.calls, [
    'countDeliveries {"text":"u","status":"failed","replayed":true}',
    'countDeliveries {"text":"u","status":"failed"}',
  ]);
  t.store.getState().cancelConfirm();
  assert.equal(t.store.getState().bulkConfirm, null);
  t.store.getState().replayFailed();
  await settle();
  t.store.getState().confirmBulk();
  await settle();
  assert.equal(t.store.getState().bulkConfirm, null);
  assert.deepEqual(t.store.getState().bulk, { state: 'running', done: 0, total: 3, replayed: 0, failed: 0, skipped: 0, firstError: null });
  assert.ok(
    t.calls.includes('listDeliveries {"text":"u","status":"failed","replayed":false,"limit":100}'),
    'the filter with its status forced to failed, leaving out what was replayed before',
  );
  replayGate.release();
  await settle();
  assert.equal(t.store.getState().bulk?.done, 1);
  t.store.getState().replayFailed(); // a second start while running is ignored
  t.store.getState().cancelBulk();
  assert.equal(t.store.getState().bulk?.state, 'cancelling');
  t.store.getState().dismissBulk(); // cannot dismiss a run that has not stopped
  assert.notEqual(t.store.getState().bulk, null);
  replayGate.release(); // the call in flight ends; no other starts
  await settle();
  assert.deepEqual(t.store.getState().bulk, { state: 'cancelled', done: 2, total: 3, replayed: 2, failed: 0, skipped: 0, firstError: null });
  assert.equal(replayGate.waiting.length, 0, 'no third replay was asked for');
  assert.deepEqual(
    t.calls.filter((c) => c.startsWith('replayDelivery')),
    ['replayDelivery {"id":5,"unlessReplayed":true}', 'replayDelivery {"id":4,"unlessReplayed":true}'],
  );
  t.store.getState().dismissBulk();
  assert.equal(t.store.getState().bulk, null);

  // Asked again: the two just replayed join the one replayed before; only #2 is left unless all are asked for.
  t.store.getState().replayFailed();
  await settle();
  assert.deepEqual(t.store.getState().bulkConfirm, { counting: false, fresh: 1, alreadyReplayed: 3, includeReplayed: false });
  t.store.getState().setIncludeReplayed(true);
  t.calls.length = 0;
  t.store.getState().confirmBulk();
  for (let i = 0; i < 4; i++) {
    await settle();
    replayGate.release();
  }
  await settle();
  assert.deepEqual(
    t.calls.filter((c) => c.startsWith('replayDelivery')),
    ['replayDelivery {"id":6}', 'replayDelivery {"id":5}', 'replayDelivery {"id":4}', 'replayDelivery {"id":2}'],
    'asked for, the ones replayed before go again too',
  );
  assert.equal(t.store.getState().bulk?.state, 'finished');
});

test('a search that stops short is never the end: the list says how far it read and, with no calls of its own, reads on only when asked', async () => {
  // Matches at 150 and 40..31 only; each call reads 50 rows of the log.
  const t = setup(range(1, 200), { pageSize: 20, textScanBudget: 50, autoSearchCalls: 0, userIdOf: (id) => (id === 150 || (id >= 31 && id <= 40) ? 'needle' : 'u') });
  t.start();
  t.store.getState().setFilter({ text: 'needle' });
  await settle();
  let s = t.store.getState();
  assert.deepEqual(idsOf(s.rows), []);
  assert.deepEqual(s.searched, { to: '2026-11-22T12:00:00.151Z', direction: 'older' });
  assert.equal(s.hasOlder, true, 'not the end');
  s.keepSearching();
  await settle();
  s = t.store.getState();
  assert.deepEqual(idsOf(s.rows), [150]);
  assert.deepEqual(s.searched, { to: '2026-11-22T12:00:00.101Z', direction: 'older' });
  s.keepSearching();
  await settle();
  s.keepSearching();
  await settle();
  s = t.store.getState();
  // The last stretch holds the rest of the log: the end, and nothing stopped short.
  assert.deepEqual(idsOf(s.rows), [150, ...range(31, 40)]);
  assert.equal(s.searched, null);
  assert.equal(s.hasOlder, false);
  assert.deepEqual(
    t.calls.filter((c) => c.startsWith('listDeliveries')),
    [
      'listDeliveries {"limit":20}',
      'listDeliveries {"text":"needle","limit":20}',
      'listDeliveries {"text":"needle","beforeId":151,"limit":20}',
      'listDeliveries {"text":"needle","beforeId":101,"limit":20}',
      'listDeliveries {"text":"needle","beforeId":51,"limit":20}',
    ],
  );
  // Without a stopped search keepSearching asks for nothing.
  s.keepSearching();
  await settle();
  assert.equal(t.calls.filter((c) => c.startsWith('listDeliveries')).length, 5);
});

test('a search that stops short reads on by itself while less than a page is on screen, for its calls, then waits for Keep searching', async () => {
  // Matches at 150 and 40..31 only; each call reads 50 rows of the log; two calls of its own.
  const t = setup(range(1, 400), { pageSize: 20, textScanBudget: 50, autoSearchCalls: 2, userIdOf: (id) => (id === 150 || (id >= 31 && id <= 40) ? 'needle' : 'u') });
  t.start();
  await settle();
  t.calls.length = 0;
  t.store.getState().setFilter({ text: 'needle' });
  await settle();
  let s = t.store.getState();
  const lists = (): string[] => t.calls.filter((c) => c.startsWith('listDeliveries'));
  // The first page (400..351) and two more stretches on its own (350..301, 300..251): nothing yet, and it waits.
  assert.deepEqual(lists(), [
    'listDeliveries {"text":"needle","limit":20}',
    'listDeliveries {"text":"needle","beforeId":351,"limit":20}',
    'listDeliveries {"text":"needle","beforeId":301,"limit":20}',
  ]);
  assert.deepEqual(idsOf(s.rows), []);
  assert.deepEqual(s.searched, { to: '2026-11-22T12:00:00.251Z', direction: 'older' });
  // Keep searching gives it its calls again: 250..201, 200..151, then 150..101 finds a row and goes on, up to the end.
  s.keepSearching();
  await settle();
  s = t.store.getState();
  assert.deepEqual(idsOf(s.rows), [150]);
  assert.equal(lists().length, 6, 'three more calls, then it waits again');
  s.keepSearching();
  await settle();
  s = t.store.getState();
  assert.deepEqual(idsOf(s.rows), [150, ...range(31, 40)]);
  assert.equal(s.searched, null, 'the end of the log');
  assert.equal(lists().length, 8);
});

test('a search that stopped short follows live events without starting over: rows it has not reached wait for it, rows it has read are checked by id', async () => {
  const t = setup(range(1, 400), { pageSize: 20, textScanBudget: 50, autoSearchCalls: 0 });
  t.start();
  await settle();
  t.store.getState().setFilter({ text: 'needle' });
  await settle();
  assert.deepEqual(t.store.getState().searched, { to: '2026-11-22T12:00:00.351Z', direction: 'older' });
  t.calls.length = 0;
  // Retries of old deliveries (below where the search got to), and one it has read that now matches.
  t.log.set(380, summary(380, 'failed', 'needle'));
  t.emit({ type: 'deliveries', ids: [10, 20, 380] });
  await t.frame();
  assert.deepEqual(t.calls.filter((c) => c.startsWith('listDeliveries')), ['listDeliveries {"text":"needle","ids":[380],"limit":1}']);
  const s = t.store.getState();
  assert.deepEqual(idsOf(s.rows), [380]);
  assert.deepEqual(s.searched, { to: '2026-11-22T12:00:00.351Z', direction: 'older' }, 'the search goes on from where it was');
  // Many frames of retries later, still no new start.
  for (let i = 0; i < 5; i++) {
    t.emit({ type: 'deliveries', ids: [30 + i, 40 + i] });
    if (t.frames.length > 0) await t.frame();
  }
  assert.equal(t.calls.filter((c) => c === 'listDeliveries {"text":"needle","limit":20}').length, 0, 'never started over');
});
