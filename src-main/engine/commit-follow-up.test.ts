import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from './clock';
import { BEHIND_MESSAGES, BEHIND_TARGET_MS, createCommitFollowUp, FOLLOW_UP_DELAY_MS, FOLLOW_UP_SLICES, followUpTargetMs } from './commit-follow-up';

const turns = (n: number): Promise<void> =>
  n === 0 ? Promise.resolve() : new Promise((resolve) => setImmediate(() => void turns(n - 1).then(resolve)));

/** A log whose newest id is `last` and whose follow-up has taken in through `through`, a slice of `max` at a time. */
function fakeLog(last: number, through = 0) {
  const log = { last, through, slices: [] as number[] };
  return {
    log,
    takeInOwed: (max: number) => {
      log.slices.push(max);
      log.through = Math.min(log.last, log.through + max);
      return log.through >= log.last;
    },
    progress: () => ({ through: log.through, last: log.last }),
  };
}

test('commits within the delay share one follow-up, which takes in everything owed in slices', async () => {
  const clock = new ManualClock(0);
  const { log, takeInOwed, progress } = fakeLog(250);
  const followUp = createCommitFollowUp({ takeInOwed, progress, readTakesInAtMost: 0, onError: (err) => assert.fail(String(err)), clock });
  followUp.committed();
  followUp.committed();
  followUp.committed();
  clock.advance(FOLLOW_UP_DELAY_MS - 1);
  await turns(5);
  assert.deepEqual(log.slices, [], 'nothing before the delay');
  clock.advance(1);
  await turns(20);
  assert.equal(log.through, 250);
  assert.ok(log.slices.length >= 2, `in slices: ${log.slices.join(', ')}`);

  // Stopped before its delay ran out, it never starts.
  log.last = 260;
  followUp.committed();
  followUp.stop();
  clock.advance(FOLLOW_UP_DELAY_MS * 2);
  await turns(5);
  assert.equal(log.through, 250);
});

test('slices hold the thread longer while the follow-up is behind or a read waits for it', () => {
  assert.equal(followUpTargetMs(0, false), FOLLOW_UP_SLICES.targetMs);
  assert.equal(followUpTargetMs(BEHIND_MESSAGES, false), FOLLOW_UP_SLICES.targetMs);
  assert.equal(followUpTargetMs(BEHIND_MESSAGES + 1, false), BEHIND_TARGET_MS);
  assert.equal(followUpTargetMs(0, true), BEHIND_TARGET_MS);
  assert.ok(BEHIND_TARGET_MS <= 5, 'no slice over about 5 ms, even behind');
});

test('settled() waits for what was committed before it, in slices with turns between, not for what commits after it', async () => {
  const clock = new ManualClock(0);
  const { log, takeInOwed, progress } = fakeLog(1_000);
  let committing = true;
  const followUp = createCommitFollowUp({
    // A hundred messages a slice, whatever the sizing asks, while ingest commits three hundred.
    takeInOwed: (max) => {
      if (committing) log.last += 300;
      return takeInOwed(Math.min(max, 100));
    },
    progress,
    readTakesInAtMost: 0,
    onError: (err) => assert.fail(String(err)),
    clock,
  });
  let settled = false;
  const waiting = followUp.settled().then(() => {
    settled = true;
  });
  // It starts at once, without the commit delay, and a slice at a time.
  await turns(1);
  assert.equal(log.slices.length, 1);
  assert.equal(settled, false);
  // Ingest outruns it: the read waits for the 1,000 owed when it asked, and no longer.
  await waiting;
  assert.ok(log.through >= 1_000 && log.through < 1_200, `taken in through ${log.through}`);
  assert.ok(log.last > log.through, 'it did not wait until ingest stopped');

  // Ingest stops: a read waits until what was committed is taken in.
  committing = false;
  const last = log.last;
  await followUp.settled();
  assert.ok(log.through >= last);
  // Nothing owed: at once. Stopped: at once too (the reader takes in the rest itself).
  log.last = log.through;
  await followUp.settled();
  log.last += 50;
  followUp.stop();
  await followUp.settled();
  assert.ok(log.through < log.last);
});

test('settled() resolves when the newest messages it waited for were removed meanwhile', async () => {
  const clock = new ManualClock(0);
  const { log, takeInOwed, progress } = fakeLog(100, 90);
  const followUp = createCommitFollowUp({
    takeInOwed: (max) => {
      // A purge took ids 91 to 100: nothing is left to take in, and `through` stays short of 100.
      log.last = 90;
      return takeInOwed(max);
    },
    progress: () => ({ ...progress(), last: 100 }),
    readTakesInAtMost: 0,
    onError: (err) => assert.fail(String(err)),
    clock,
  });
  await followUp.settled();
  assert.equal(log.through, 90);
});

test('settled() resolves at once when no more is owed than the read takes in itself, and neither starts nor hurries the follow-up', async () => {
  const clock = new ManualClock(0);
  const { log, takeInOwed, progress } = fakeLog(300);
  const followUp = createCommitFollowUp({ takeInOwed, progress, readTakesInAtMost: 300, onError: (err) => assert.fail(String(err)), clock });
  await followUp.settled();
  assert.deepEqual(log.slices, [], 'the read takes these in itself');
  log.last = 301;
  const waiting = followUp.settled();
  await turns(1);
  assert.equal(log.slices.length, 1, 'one more than that: the follow-up starts at once');
  await waiting;
});
