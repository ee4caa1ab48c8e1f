import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSlicedWork, fixedSlices, nextTimedSize, untilDoneInSlices, type TimedSlices } from './sliced-work';
import { ManualClock } from './clock';
import { nextTidyPages } from './store/search-index';

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

test('a prepared slice runs after its preparation settles, even when it fails; a stop while preparing runs no slice', async () => {
  const events: string[] = [];
  let releases: (() => void)[] = [];
  let failNext = false;
  let left = 3;
  const work = createSlicedWork({
    slice: (max) => {
      events.push(`slice ${max}`);
      left--;
      return left === 0;
    },
    sizing: fixedSlices(5),
    clock: new ManualClock(0),
    onError: (err) => events.push(`error ${String(err)}`),
    prepare: (max) => {
      events.push(`prepare ${max}`);
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('the worker is gone'));
      }
      return new Promise((resolve) => releases.push(resolve));
    },
  });
  const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
  work.start();
  await turn();
  assert.deepEqual(events, ['prepare 5'], 'the slice waits for its preparation');
  failNext = true;
  releases.shift()?.();
  for (let k = 0; k < 10 && events.length < 5; k++) await turn();
  assert.deepEqual(events, ['prepare 5', 'slice 5', 'prepare 5', 'slice 5', 'prepare 5'], 'a failed preparation still lets its slice run');
  // Stopped while preparing: the slice never runs.
  work.stop();
  releases.shift()?.();
  for (let k = 0; k < 5; k++) await turn();
  assert.deepEqual(events.slice(5), []);
  assert.equal(left, 1);
  releases = [];
});

test('a tidy step of the search index grows at most twice at once, from one page, up to 64, and shrinks by its time', () => {
  const cases: [pages: number, tookMs: number, next: number][] = [
    [1, 0.1, 2], // far under the target: only twice
    [32, 0.1, 64],
    [64, 0.1, 64], // the ceiling
    [16, 8, 8], // twice too long: halved
    [16, 1_000, 1], // a segment read through: down to one page
  ];
  for (const [pages, took, next] of cases) assert.equal(nextTidyPages(pages, took), next, `${pages} pages in ${took} ms`);
});

test('work made to size afresh starts each run at its first size, not where the last run ended', async () => {
  const sizes: number[] = [];
  let left = 0;
  const work = createSlicedWork({
    slice: (max) => {
      sizes.push(max);
      return --left === 0;
    },
    sizing: { first: 1, next: (size) => size * 2 },
    resizeOnStart: true,
    clock: new ManualClock(0),
    onError: (err) => assert.fail(String(err)),
  });
  for (const run of [3, 2]) {
    left = run;
    work.start();
    await work.done();
  }
  assert.deepEqual(sizes, [1, 2, 4, 1, 2]);
});

test('untilDoneInSlices runs a slice a turn, sized by its time, until nothing is left', async () => {
  let left = 1_000;
  const sizes: number[] = [];
  let turnsBetween = 0;
  let ticking = true;
  const tick = (): void => {
    turnsBetween++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  let now = 0;
  await untilDoneInSlices(
    (max) => {
      sizes.push(max);
      now += max / 100; // 100 items a millisecond
      left = Math.max(0, left - max);
      return left === 0;
    },
    { first: 10, min: 10, max: 400, targetMs: 2 },
    () => now,
  );
  ticking = false;
  assert.equal(left, 0);
  assert.deepEqual(sizes.slice(0, 3), [10, 40, 160], 'each at most four times the last');
  assert.ok(sizes.every((s) => s <= 400));
  assert.ok(turnsBetween >= sizes.length - 1, `${turnsBetween} turns for ${sizes.length} slices`);
});
