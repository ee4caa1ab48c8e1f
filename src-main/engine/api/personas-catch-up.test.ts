import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngineApi } from './index';
import { configWith, startHarness } from '../testing/harness';
import { seedDeliveries } from '../../../bench/support/seed';

const CONFIG = configWith('http://127.0.0.1:9/hook');

/** The profile rows a version that built profiles lazily left in a log it never read: none, cursor at 0. */
function forgetProfiles(dataDir: string): void {
  const db = new Database(join(dataDir, 'hookbench.sqlite'));
  try {
    db.exec(`DELETE FROM persona_profiles; DELETE FROM persona_ids; DELETE FROM persona_traits; DELETE FROM persona_tracks;
      DELETE FROM persona_events; UPDATE persona_cursor SET last_message_id = 0;`);
  } finally {
    db.close();
  }
}

test('a seeded log keeps profiles current as it is committed: the first profiles call has nothing to catch up', async () => {
  const h = await startHarness(CONFIG);
  try {
    seedDeliveries(h.engine.stores.log, 3_000, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: h.clock.now() - 60_000, batch: 500, realistic: true });
    assert.equal(h.engine.personas.catchingUp(), undefined);
    const page = await createEngineApi(h.engine).listProfiles({});
    assert.equal(page.catchingUp, undefined);
    assert.ok(page.items.length > 0);
    assert.equal(h.engine.personas.catchUp(), 0, 'the first call took in what the commits owed: nothing left for a catch-up');
  } finally {
    await h.close();
  }
});

test('a log from before profiles followed commits is read after start in slices: calls answer meanwhile and say so, ingest is acknowledged, a sync waits', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-backlog-'));
  try {
    const seeded = 20_000;
    const first = await startHarness(CONFIG, { dataDir });
    let built;
    try {
      seedDeliveries(first.engine.stores.log, seeded, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: first.clock.now() - 60_000, batch: 1000, realistic: true });
      built = await createEngineApi(first.engine).listProfiles({ limit: 500 });
    } finally {
      await first.close();
    }
    assert.equal(built.next, null, 'every profile on one page');
    forgetProfiles(dataDir);

    const h = await startHarness(CONFIG, { dataDir });
    try {
      const api = createEngineApi(h.engine);
      let turns = 0;
      let counting = true;
      const countTurns = (): void => {
        turns++;
        if (counting) setImmediate(countTurns);
      };
      setImmediate(countTurns);

      const early = await api.listProfiles({ limit: 500 });
      assert.ok(early.catchingUp, 'the answer says the profiles are catching up');
      assert.ok(early.catchingUp.read < early.catchingUp.of, JSON.stringify(early.catchingUp));
      assert.ok(early.items.length < built.items.length, 'with what is built so far');
      const preview = await api.previewComputation({ condition: { kind: 'event', event: 'Order Completed' } });
      assert.ok(preview.catchingUp);

      const audience = { name: 'Buyers', space: 'backend', syncEveryMinutes: null, condition: { kind: 'event' as const, event: 'Order Completed' } };
      let savedAt = 0;
      const saving = api.saveAudience(audience).then((c) => ((savedAt = performance.now()), c));
      const posted = await h.post('/v1/batch', { batch: [{ type: 'track', userId: 'during', event: 'Order Completed', messageId: 'during-1' }] });
      const ackedAt = performance.now();
      assert.equal(posted.status, 200);
      assert.ok(h.engine.personas.catchingUp(), 'ingest was acknowledged while the backlog was still being read');

      await h.engine.personas.current();
      const saved = await saving;
      counting = false;
      assert.ok(savedAt > ackedAt, 'the save waited for the profiles');
      assert.ok(turns >= 10, `the catch-up gave the event loop back between slices: ${turns} turns`);

      const after = await api.listProfiles({ limit: 500 });
      assert.equal(after.catchingUp, undefined);
      const during = await api.getProfile('during');
      assert.ok(during, 'the message ingested during the catch-up is in the profiles');
      assert.deepEqual(
        after.items.filter((p) => p.profileId !== 'during').map((p) => ({ ...p, computed: {} })),
        built.items.map((p) => ({ ...p, computed: {} })),
        'the caught-up profiles are the ones built as the log was committed',
      );
      const buyers = after.items.filter((p) => p.events.some((e) => e.event === 'Order Completed')).length;
      assert.equal(saved.size, buyers, 'the initial sync saw every profile');
    } finally {
      await h.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
