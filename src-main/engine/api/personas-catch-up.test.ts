import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineApi } from './index';
import { CATCH_UP_SLICE } from './personas';
import { configWith, startHarness } from '../testing/harness';
import { seedDeliveries } from '../../../bench/support/seed';

test('the first profiles call catches up in slices: ingest is acknowledged while it runs, and calls meanwhile share it', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  try {
    const seeded = 20_000;
    seedDeliveries(h.engine.stores.log, seeded, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: h.clock.now() - 60_000, batch: 1000 });
    const api = createEngineApi(h.engine);
    let turns = 0;
    let counting = true;
    const countTurns = (): void => {
      turns++;
      if (counting) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    let caughtUpAt = 0;
    const first = api.listProfiles({}).then((r) => ((caughtUpAt = performance.now()), r));
    const second = api.listProfiles({ limit: 5 });
    const posted = await h.post('/v1/batch', { batch: [{ type: 'track', userId: 'during', event: 'Catch-up', messageId: 'during-1' }] });
    const ackedAt = performance.now();
    const [a, b] = await Promise.all([first, second]);
    counting = false;
    assert.equal(posted.status, 200);
    assert.ok(caughtUpAt > ackedAt, 'the ingest call was answered before the catch-up finished');
    assert.ok(turns >= seeded / CATCH_UP_SLICE - 1, `the catch-up yielded after each slice of ${CATCH_UP_SLICE}: ${turns} turns`);
    assert.ok(a.items.length > 0);
    assert.deepEqual(b.items, a.items.slice(0, 5));
    // The message that arrived during the catch-up is read too, by the next call.
    assert.ok((await api.getProfile('during')) !== null);
  } finally {
    await h.close();
  }
});
