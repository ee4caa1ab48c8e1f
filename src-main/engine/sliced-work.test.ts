import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextTimedSize, type TimedSlices } from './sliced-work';

test('a time-sized slice grows toward its target, at most four times at once, within its bounds', () => {
  const s: TimedSlices = { first: 64, min: 16, max: 4_096, targetMs: 4 };
  const cases: [size: number, tookMs: number, next: number][] = [
    [64, 4, 64], // on target: unchanged
    [64, 8, 32], // twice too long: halved
    [64, 1, 256], // a quarter of the target: four times
    [64, 0, 256], // too fast to measure: still at most four times
    [64, 100, 16], // far too long: down to the floor
    [2_048, 0.5, 4_096], // up to the ceiling
  ];
  for (const [size, took, next] of cases) assert.equal(nextTimedSize(s, size, took), next, `${size} rows in ${took} ms`);
});
