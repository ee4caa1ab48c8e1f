import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, MAX_TIMER_MS, systemClock, timerDelay } from '../clock';
import { loneScheduler } from '../testing/lone-scheduler';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { seedDeliveries } from '../../../bench/support/seed';

const DAY = 24 * 3600 * 1000;
/** The scheduler claims on the next turn of the event loop after it is woken. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('timerDelay: never negative, never past what setTimeout holds', () => {
  assert.equal(timerDelay(-5), 0);
  assert.equal(timerDelay(1234), 1234);
  assert.equal(timerDelay(MAX_TIMER_MS), MAX_TIMER_MS);
  assert.equal(timerDelay(365 * DAY), MAX_TIMER_MS);
  assert.equal(MAX_TIMER_MS, 2_147_483_647);
});

test('the system clock hands setTimeout at most MAX_TIMER_MS (a longer delay would fire after 1 ms)', () => {
  const real = globalThis.setTimeout;
  const asked: number[] = [];
  globalThis.setTimeout = ((fn: () => void, ms: number) => {
    asked.push(ms);
    return real(fn, 0);
  }) as typeof setTimeout;
  try {
    systemClock.setTimer(() => {}, 365 * DAY).cancel();
    systemClock.setTimer(() => {}, 10).cancel();
  } finally {
    globalThis.setTimeout = real;
  }
  assert.deepEqual(asked, [MAX_TIMER_MS, 10]);
});

test('a delivery due a year ahead: one clamped timer, woken once per 24.8 days, sent when due and not before', async () => {
  const t0 = Date.UTC(2026, 10, 22, 12);
  const clock = new ManualClock(t0);
  const receiver = await new Receiver().start();
  // Row 13 of the seed ends retrying, due 365 days after it was seeded; the rest are finished.
  const { scheduler, stores, close } = await loneScheduler({
    clock,
    receiverUrl: receiver.url,
    prepare: (engine) => {
      const source = engine.stores.config.listSources()[0]!;
      const destination = engine.stores.config.listDestinations()[0]!;
      seedDeliveries(engine.stores.log, 14, { sourceId: source.id, destinationId: destination.id, url: receiver.url, now: t0 });
    },
  });
  try {
    const dueAt = stores.log.nextDueAt();
    assert.ok(dueAt !== null && dueAt - t0 > 364 * DAY, 'one delivery is due about a year ahead');
    scheduler.start();
    await turn();
    assert.deepEqual(clock.pendingTimers(), [MAX_TIMER_MS], 'the scheduler waits the longest a timer can');
    // Each early wake finds nothing due and sets one timer for the rest.
    let wakes = 0;
    while (clock.now() + MAX_TIMER_MS < dueAt) {
      clock.advance(MAX_TIMER_MS);
      await turn();
      wakes++;
      assert.equal(clock.pendingTimers().length, 1, `one timer at ${new Date(clock.now()).toISOString()}`);
      assert.equal(receiver.received.length, 0, 'nothing sent before it is due');
    }
    assert.equal(wakes, Math.floor((dueAt - t0) / MAX_TIMER_MS), 'woken once per 24.8 days');
    assert.deepEqual(clock.pendingTimers(), [dueAt - clock.now()], 'the last timer is set for the rest');
    clock.advance(dueAt - clock.now() - 1);
    await turn();
    assert.equal(receiver.received.length, 0, 'nothing sent a millisecond before it is due');
    clock.advance(1);
    await waitUntil(() => receiver.received.length === 1, 'the delivery sent once it is due');
  } finally {
    await close();
    await receiver.close();
  }
});
