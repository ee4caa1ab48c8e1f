import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliveryCounts } from '../../../src-shared/api';
import { bulkCounts, type Call } from './bulk-replay';

/** A transport whose countDeliveries answers by the filter's replayed: never replayed, replayed, or either. */
const answering = (counts: { fresh: DeliveryCounts; replayed: DeliveryCounts; all: DeliveryCounts }, asked: string[] = []): Call =>
  (async (_method: string, params: { replayed?: boolean }) => {
    const which = params.replayed === false ? 'fresh' : params.replayed === true ? 'replayed' : 'all';
    asked.push(which);
    return counts[which];
  }) as unknown as Call;

test('the bulk replay confirmation is exact when every failed one and the replayed ones are counted exactly, and says "at least" whenever a count it relies on stopped short', async () => {
  const since = '2026-11-23T19:45:00.000Z';
  const exact = (matching: number): DeliveryCounts => ({ total: 100, matching });
  // Every failed one less those replayed: the count of those never replayed (a read through the log on a big one) is not needed.
  const asked: string[] = [];
  assert.deepEqual(await bulkCounts(answering({ fresh: { total: 100, matching: 0, searchedTo: since }, replayed: exact(1), all: exact(4) }, asked), {}), { fresh: 3, alreadyReplayed: 1 });
  assert.deepEqual(asked, ['replayed', 'all']);
  // Either of those stopped short: those never replayed are counted, and the answer is a lower bound.
  assert.deepEqual(await bulkCounts(answering({ fresh: exact(3), replayed: { total: 100, matching: 0, searchedTo: since }, all: exact(3) }), { text: 'user_4' }), { fresh: 3, alreadyReplayed: 0, atLeast: true });
  assert.deepEqual(await bulkCounts(answering({ fresh: { total: 100, matching: 3, searchedTo: since }, replayed: exact(0), all: { total: 100, matching: 3, searchedTo: since } }), { text: 'user_4' }), { fresh: 3, alreadyReplayed: 0, atLeast: true });
  assert.deepEqual(
    await bulkCounts(answering({ fresh: { total: 20_000, matching: 10_000, capped: true }, replayed: exact(3), all: { total: 20_000, matching: 10_000, capped: true } }), {}),
    { fresh: 10_000, alreadyReplayed: 3, atLeast: true },
  );
  // Capped, but exact below the limit: still exact when the rest is.
  assert.deepEqual(await bulkCounts(answering({ fresh: exact(0), replayed: exact(2), all: exact(9_000) }), {}), { fresh: 8_998, alreadyReplayed: 2 });
});
