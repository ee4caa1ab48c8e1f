import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliveryCounts } from '../../../src-shared/api';
import { bulkCounts, type Call } from './bulk-replay';

/** A transport whose countDeliveries answers the two counts in turn: not yet replayed, then replayed. */
const answering = (fresh: DeliveryCounts, replayed: DeliveryCounts): Call => {
  const answers = [fresh, replayed];
  return (async () => answers.shift()) as unknown as Call;
};

test('the bulk replay confirmation says "at least" whenever a count stopped short: capped, or counted down to a time only', async () => {
  const exact: DeliveryCounts = { total: 100, matching: 3 };
  assert.deepEqual(await bulkCounts(answering(exact, { total: 100, matching: 1 }), { text: 'user_4' }), { fresh: 3, alreadyReplayed: 1 });
  const since = '2026-11-23T19:45:00.000Z';
  assert.deepEqual(await bulkCounts(answering({ total: 100, matching: 3, searchedTo: since }, { total: 100, matching: 0 }), { text: 'user_4' }), { fresh: 3, alreadyReplayed: 0, atLeast: true });
  assert.deepEqual(await bulkCounts(answering(exact, { total: 100, matching: 0, searchedTo: since }), { text: 'user_4' }), { fresh: 3, alreadyReplayed: 0, atLeast: true });
  assert.deepEqual(await bulkCounts(answering({ total: 20_000, matching: 10_000, capped: true }, exact), {}), { fresh: 10_000, alreadyReplayed: 3, atLeast: true });
});
