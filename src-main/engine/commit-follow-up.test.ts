import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from './clock';
import { createCommitFollowUp, FOLLOW_UP_DELAY_MS } from './commit-follow-up';

const turns = (n: number): Promise<void> =>
  n === 0 ? Promise.resolve() : new Promise((resolve) => setImmediate(() => void turns(n - 1).then(resolve)));

test('commits within the delay share one follow-up, which takes in everything owed in slices', async () => {
  const clock = new ManualClock(0);
  let owedIndex = 250;
  let owedProfiles = 120;
  const slices: number[] = [];
  const followUp = createCommitFollowUp({
    takeInOwed: (max) => {
      slices.push(max);
      owedIndex = Math.max(0, owedIndex - max);
      owedProfiles = Math.max(0, owedProfiles - max);
      return owedIndex === 0 && owedProfiles === 0;
    },
    onError: (err) => assert.fail(String(err)),
    clock,
  });
  followUp.committed();
  followUp.committed();
  followUp.committed();
  clock.advance(FOLLOW_UP_DELAY_MS - 1);
  await turns(5);
  assert.deepEqual(slices, [], 'nothing before the delay');
  clock.advance(1);
  await turns(20);
  assert.equal(owedIndex, 0);
  assert.equal(owedProfiles, 0);
  assert.ok(slices.length >= 2, `in slices: ${slices.join(', ')}`);

  // Stopped before its delay ran out, it never starts.
  owedIndex = 10;
  followUp.committed();
  followUp.stop();
  clock.advance(FOLLOW_UP_DELAY_MS * 2);
  await turns(5);
  assert.equal(owedIndex, 10);
});
