/**
 * Time-warp, retry now and replays that are not repeated, over a real engine, a real SQLite file and
 * a real receiver; time moves on the injected clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from './clock';
import { createEngineApi } from './api';
import { configWith, startHarness, type Harness } from './testing/harness';
import { Receiver, status } from './testing/receiver';
import { waitUntil } from './testing/wait';
import { RETRY_PRESETS, ValidationError } from '../../src-shared/settings';
import type { DeliveryRow } from './store/log-store';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');

async function refusal(call: Promise<unknown>): Promise<string[]> {
  try {
    await call;
    return [];
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.errors.map((e) => `${e.field}: ${e.message}`);
  }
}

/** Waits for the round in flight to be written, then moves the clock to the next retry; until the delivery ends. */
async function runToEnd(h: Harness, clock: ManualClock, id: number): Promise<DeliveryRow> {
  for (let guard = 0; guard < 500; guard++) {
    const row = await waitUntil(() => {
      const r = h.engine.stores.log.getDelivery(id);
      return r && r.status !== 'in_flight' && r.status !== 'pending' ? r : null;
    }, `delivery ${id} to finish a round`);
    if (row.status !== 'retrying') return row;
    const rounds = row.rounds;
    clock.advance(Math.max(0, (row.next_attempt_at ?? 0) - clock.now()));
    await waitUntil(() => (h.engine.stores.log.getDelivery(id)?.rounds ?? 0) > rounds, `round ${rounds + 1} of delivery ${id}`);
  }
  throw new Error('the delivery never ended');
}

test('a warped destination runs the 4-hour window in a minute of clock time; its deliveries keep the warp they were made with', async () => {
  const clock = new ManualClock(T0);
  const receiver = await new Receiver().start();
  receiver.respond(status(500));
  const h = await startHarness({ ...configWith(receiver.url, { warp: 240 }), delivery: { preset: 'standard' } }, { clock });
  const api = createEngineApi(h.engine);
  try {
    assert.equal((await api.listDestinations())[0]?.warp, 240);
    await h.post('/v1/track', { userId: 'u', event: 'Warped', messageId: 'w-1' });
    const [warped] = h.engine.stores.log.listDeliveries({ limit: 1 });
    assert.equal(warped?.warp, 240);

    // The warp is switched off while the first delivery is under way: it goes on warped, a new one is real.
    await waitUntil(() => h.engine.stores.log.getDelivery(warped!.id)?.status === 'retrying', 'the first failure');
    const destination = (await api.listDestinations())[0]!;
    await api.saveDestination({ ...destination, warp: 1 });
    await h.post('/v1/track', { userId: 'u', event: 'Real', messageId: 'w-2' });
    const real = h.engine.stores.log.listDeliveries({ limit: 1 })[0]!;
    assert.equal(real.warp, 1);
    assert.equal(h.engine.stores.log.getDelivery(warped!.id)?.warp, 240, 'turning the warp off does not rewrite history');

    const summary = (await api.getDeliverySummaries([warped!.id, real.id])).map((s) => [s.id, s.warp]);
    assert.deepEqual(summary, [[real.id, 1], [warped!.id, 240]]);
    const detail = (await api.getDelivery(warped!.id))!;
    assert.match(detail.nextStep, /the 4 h window warped ×240: 1 min after the first attempt/);
    assert.equal(detail.schedule.warp, 240);
    assert.equal(detail.schedule.windowEnd, new Date(T0 + 60_000).toISOString());
    assert.ok(detail.schedule.rounds.some((r) => r.state === 'planned'));

    const end = await runToEnd(h, clock, warped!.id);
    assert.equal(end.status, 'failed');
    assert.ok(clock.now() - T0 <= 60_000, `ended within the compressed window (${clock.now() - T0} ms)`);
    assert.ok(end.rounds > 30, `as many rounds as a real 4-hour life (${end.rounds})`);
    assert.equal(receiver.received.filter((r) => r.body.includes('"Warped"')).length, end.rounds, 'every round reached the receiver');
    const over = (await api.getDelivery(warped!.id))!;
    assert.match(over.nextStep, /retries stopped: the 4 h retry window \(warped ×240: 1 min of real time\)/);
    assert.deepEqual(new Set(over.schedule.rounds.map((r) => r.state)), new Set(['sent']));
    assert.equal(over.schedule.rounds.length, end.rounds);

    // The real one is still near its start: one minute of a 4-hour life.
    assert.equal(h.engine.stores.log.getDelivery(real.id)?.status, 'retrying');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('retry now: a waiting delivery goes at once and the schedule goes on from there; anything else is refused by name', async () => {
  const clock = new ManualClock(T0);
  const receiver = await new Receiver().start();
  // A receiver asking for ten minutes of quiet: without retry now, nothing happens for a while.
  receiver.respond(status(503, { 'retry-after': '600' }));
  const h = await startHarness({ ...configWith(receiver.url), delivery: { preset: 'standard' } }, { clock, random: () => 0 });
  const api = createEngineApi(h.engine);
  try {
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'rn-1' });
    const d = h.engine.stores.log.listDeliveries({ limit: 1 })[0]!;
    const waiting = await waitUntil(() => {
      const r = h.engine.stores.log.getDelivery(d.id);
      return r?.status === 'retrying' ? r : null;
    }, 'the first failure');
    assert.equal(waiting.next_attempt_at, T0 + 600_000);

    clock.advance(5_000);
    const now = clock.now();
    const answer = await api.retryNow({ id: d.id });
    assert.equal(answer.nextAttemptAt, new Date(now).toISOString(), 'due now');
    await receiver.waitFor(2);
    const after = await waitUntil(() => {
      const r = h.engine.stores.log.getDelivery(d.id);
      return r?.status === 'retrying' && r.rounds === 2 ? r : null;
    }, 'round 2');
    assert.equal(after.first_attempt_at, T0, 'the window still counts from the first attempt');
    assert.equal(after.next_attempt_at, now + 600_000, 'round 2 decided by the policy as usual');

    receiver.respond(status(200));
    await api.retryNow({ id: d.id });
    await waitUntil(() => h.engine.stores.log.getDelivery(d.id)?.status === 'succeeded', 'success');
    assert.equal(receiver.received.length, 3);

    assert.deepEqual(await refusal(api.retryNow({ id: d.id })), [
      `retryNow.id: delivery ${d.id} is succeeded, not waiting: only a pending or retrying delivery can be retried now`,
    ]);
    assert.deepEqual(await refusal(api.retryNow({ id: 999_999 })), ['retryNow.id: no delivery with id 999999']);
    assert.deepEqual(await refusal(api.retryNow({ id: -1 } as never)), ['retryNow.id: must be a positive whole number']);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('replays a person can trust: the filter tells replayed originals apart, and unlessReplayed never replays twice', async () => {
  const clock = new ManualClock(T0);
  const receiver = await new Receiver().start();
  receiver.respond(status(404));
  const h = await startHarness({ ...configWith(receiver.url), delivery: { ...RETRY_PRESETS.short } }, { clock });
  const api = createEngineApi(h.engine);
  try {
    for (const id of ['t-1', 't-2', 't-3']) await h.post('/v1/track', { userId: 'u', event: 'E', messageId: id });
    await waitUntil(() => (h.engine.stores.log.countDeliveriesByStatus().failed ?? 0) === 3, 'three failures');
    const [first] = (await api.listDeliveries({ status: 'failed' })).items;
    const replay = await api.replayDelivery({ id: first!.id, unlessReplayed: true });
    assert.equal(replay.replayOf, first!.id);

    assert.deepEqual(await refusal(api.replayDelivery({ id: first!.id, unlessReplayed: true })), [
      `replay.unlessReplayed: delivery ${first!.id} was already replayed as #${replay.id}; leave unlessReplayed out to replay it again`,
    ]);
    const again = await api.replayDelivery({ id: first!.id });
    assert.equal(again.replayOf, first!.id, 'asked for explicitly, it is replayed again');

    assert.deepEqual(await api.countDeliveries({ status: 'failed', replayed: false }), { total: 5, matching: 2 });
    assert.deepEqual(await api.countDeliveries({ status: 'failed', replayed: true }), { total: 5, matching: 1 });
    const replayed = (await api.listDeliveries({ replayed: true })).items;
    assert.deepEqual(replayed.map((r) => [r.id, r.replays]), [[first!.id, [again.id, replay.id]]]);
    assert.deepEqual(await refusal(api.countDeliveries({ replayed: 'yes' } as never)), [
      'filter.replayed: must be true (only replayed deliveries) or false (only those never replayed)',
    ]);
  } finally {
    await h.close();
    await receiver.close();
  }
});
