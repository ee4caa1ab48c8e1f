import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../clock';
import { createProfileCatchUp, FIRST_SLICE, MAX_SLICE, MIN_SLICE, PROFILE_SLICES, SLICE_TARGET_MS } from './profile-catch-up';
import { nextTimedSize } from '../sliced-work';

/** A hand-driven event loop: each yielded step waits here until the test runs the next turn. */
function turns(): { yieldTurn: (fn: () => void) => () => void; next: () => boolean; pending: () => number } {
  let queue: (() => void)[] = [];
  return {
    yieldTurn(fn) {
      queue.push(fn);
      return () => {
        queue = queue.filter((f) => f !== fn);
      };
    },
    next() {
      const fn = queue.shift();
      fn?.();
      return fn !== undefined;
    },
    pending: () => queue.length,
  };
}

test('profile slices are sized from the last one to take about the target, within bounds', () => {
  const next = (size: number, ms: number): number => nextTimedSize(PROFILE_SLICES, size, ms);
  assert.equal(next(200, SLICE_TARGET_MS), 200);
  assert.equal(next(200, SLICE_TARGET_MS * 2), 100);
  assert.equal(next(200, SLICE_TARGET_MS / 4), 800);
  assert.equal(next(200, 10_000), MIN_SLICE);
  assert.equal(next(4_000, 0.01), MAX_SLICE);
  assert.equal(next(100, 0), 400, 'a slice too fast to time grows at most fourfold');
});

test('a backlog is read one slice per turn of the event loop, each sized from the last one’s time, until none is left', async () => {
  const loop = turns();
  let backlog = 10_000;
  let now = 0;
  const sizes: number[] = [];
  const catchUp = createProfileCatchUp({
    clock: new ManualClock(0),
    onError: (err) => assert.fail(String(err)),
    yieldTurn: loop.yieldTurn,
    elapsed: () => now,
    slice: (max) => {
      sizes.push(max);
      const read = Math.min(max, backlog);
      backlog -= read;
      now += read * 0.05; // 50 µs a message: a slice of 100 takes the 5 ms target
      return read < max;
    },
  });
  let done = false;
  catchUp.start();
  catchUp.start(); // a second start while running changes nothing
  void catchUp.done().then(() => (done = true));
  assert.equal(loop.pending(), 1, 'nothing is read until the event loop has had a turn');
  assert.equal(sizes.length, 0);
  let n = 0;
  while (loop.next()) {
    n++;
    assert.equal(sizes.length, n, 'one slice per turn');
  }
  assert.equal(sizes[0], FIRST_SLICE);
  assert.ok(sizes.slice(1).every((s) => s === 100), `slices settle at the size that takes 5 ms: ${sizes.slice(0, 5).join(', ')}…`);
  assert.equal(backlog, 0);
  assert.equal(catchUp.running(), false);
  await Promise.resolve();
  assert.equal(done, true, 'done() settles once nothing is left');
  await catchUp.done(); // at once when not running
});

test('a failing slice is reported and tried again after the retry delay on the clock; stop() ends it and rejects waiters', async () => {
  const loop = turns();
  const clock = new ManualClock(0);
  const errors: unknown[] = [];
  let fail = true;
  let slices = 0;
  const catchUp = createProfileCatchUp({
    clock,
    retryMs: 1_000,
    onError: (err) => errors.push(err),
    yieldTurn: loop.yieldTurn,
    elapsed: () => 0,
    slice: () => {
      slices++;
      if (fail) throw new Error('disk full');
      return false;
    },
  });
  catchUp.start();
  loop.next();
  assert.equal(errors.length, 1);
  assert.equal(loop.pending(), 0, 'no busy loop while failing');
  fail = false;
  clock.advance(999);
  assert.equal(slices, 1);
  clock.advance(1);
  assert.equal(slices, 2, 'tried again after the delay');
  assert.equal(loop.pending(), 1);
  const waiting = catchUp.done();
  catchUp.stop();
  await assert.rejects(waiting, /stopped/);
  assert.equal(loop.pending(), 0);
  assert.equal(catchUp.running(), false);
});
