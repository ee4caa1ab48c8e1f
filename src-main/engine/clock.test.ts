import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from './clock';

test('ManualClock fires timers in due order and only when advanced past them', () => {
  const clock = new ManualClock(1_000);
  const fired: string[] = [];
  clock.setTimer(() => fired.push('b@300'), 300);
  clock.setTimer(() => fired.push('a@100'), 100);
  const cancelled = clock.setTimer(() => fired.push('never'), 200);
  cancelled.cancel();
  clock.advance(99);
  assert.deepEqual(fired, []);
  clock.advance(1);
  assert.deepEqual(fired, ['a@100']);
  assert.equal(clock.now(), 1_100);
  clock.advance(500);
  assert.deepEqual(fired, ['a@100', 'b@300']);
  assert.equal(clock.now(), 1_600);
});

test('ManualClock runs timers set by a firing timer within the same advance', () => {
  const clock = new ManualClock(0);
  const at: number[] = [];
  clock.setTimer(() => {
    at.push(clock.now());
    clock.setTimer(() => at.push(clock.now()), 50);
  }, 50);
  clock.advance(200);
  assert.deepEqual(at, [50, 100]);
});
