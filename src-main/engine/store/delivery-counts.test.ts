import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COUNT_LIMIT } from '../../../src-shared/api';
import { createDeliveryReads, ID_WINDOWS, inWindows, TEXT_SCAN_BUDGET } from '../api/deliveries';
import { fewestSlices } from '../testing/wait';
import { createEngineApi } from '../api';
import { ManualClock } from '../clock';
import { createEngine } from '../index';
import { LogInspector } from './inspect';
import { seedDeliveries } from '../../../bench/support/seed';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');

test('counts by status are kept by the log itself through inserts, status moves and removals, and a wide filtered count stops at COUNT_LIMIT', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-counts-'));
  const clock = new ManualClock(T0);
  // Whole counts wherever they are read: a busy machine cannot cut the read worker's short.
  const engine = createEngine({ dataDir: dir, clock, readBudgetMs: Number.POSITIVE_INFINITY });
  const inspect = LogInspector.of(dir, { readonly: true });
  const counted = (): Record<string, number> =>
    Object.fromEntries(inspect.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status').map((r) => [r.status, r.n]));
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
    });
    const api = createEngineApi(engine);
    assert.deepEqual(await api.countDeliveriesByStatus(), {});
    assert.deepEqual(await api.countDeliveries({}), { total: 0, matching: 0 });
    const seeded = COUNT_LIMIT + 500;
    seedDeliveries(engine.stores.log, seeded, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: T0, batch: 1000 });
    const before = counted();
    assert.ok((before.failed ?? 0) > 0 && (before.retrying ?? 0) > 0 && (before.discarded ?? 0) > 0, JSON.stringify(before));
    assert.deepEqual(await api.countDeliveriesByStatus(), before);
    assert.deepEqual(await api.countDeliveries({}), { total: seeded, matching: seeded });
    assert.deepEqual(await api.countDeliveries({ status: ['failed', 'retrying'] }), { total: seeded, matching: (before.failed ?? 0) + (before.retrying ?? 0) });
    // Under the limit a filtered count is exact; past it, it says it stopped.
    const tracks = inspect.get<{ n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE payload_type = 'track'`)?.n ?? -1;
    assert.ok(tracks > 0 && tracks < COUNT_LIMIT);
    assert.deepEqual(await api.countDeliveries({ type: 'track' }), { total: seeded, matching: tracks });
    assert.deepEqual(await api.countDeliveries({ text: 'seed-' }), { total: seeded, matching: COUNT_LIMIT, capped: true });
    assert.deepEqual(await api.countDeliveries({ text: 'seed-' , status: 'pending' }), { total: seeded, matching: 0 });
    // No pending delivery: the page is known empty without reading the log.
    assert.deepEqual((await api.listDeliveries({ status: 'pending' })).items, []);

    // A replay adds a pending row; a status move is counted once, wherever it goes.
    const failedId = (await api.listDeliveries({ status: 'failed', limit: 1 })).items[0]!.id;
    const replayId = engine.replay(failedId);
    assert.deepEqual((await api.listDeliveries({ status: 'pending' })).items.map((d) => d.id), [replayId]);
    assert.deepEqual(await api.countDeliveriesByStatus(), counted());
    assert.equal((await api.countDeliveriesByStatus()).pending, 1);
    // Clearing the log removes every finished row; the counts follow.
    await api.clearLog();
    const after = counted();
    assert.ok(Object.values(after).reduce((a, b) => a + b, 0) < seeded, JSON.stringify(after));
    assert.deepEqual(await api.countDeliveriesByStatus(), after);
    assert.deepEqual(await api.countDeliveries({}), { total: Object.values(after).reduce((a, b) => a + b, 0), matching: Object.values(after).reduce((a, b) => a + b, 0) });
  } finally {
    inspect.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a URL filter finds deliveries by entry, by replay target and by an old attempt URL; one that matches nothing answers without reading the log', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-url-reach-'));
  const engine = createEngine({ dataDir: dir, clock: new ManualClock(T0), readBudgetMs: Number.POSITIVE_INFINITY });
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
    });
    // The attempts went to a URL the destination no longer has.
    seedDeliveries(engine.stores.log, 300, { sourceId: 1, destinationId: 1, url: 'https://Old-Host.example/hook', now: T0 });
    const api = createEngineApi(engine);
    const views = engine.stores.deliveryViews;
    const parse = (url: string): Parameters<typeof views.urlReach>[0] => ({ statuses: null, type: null, url, text: null, replayed: null, violations: null });
    assert.deepEqual(views.urlReach(parse('old-host')), { entries: false, targets: false, attempts: true });
    assert.deepEqual(views.urlReach(parse('127.0.0.1:9')), { entries: true, targets: false, attempts: false });
    assert.equal((await api.countDeliveries({ url: 'OLD-HOST.example' })).matching, 300);
    assert.equal((await api.countDeliveries({ url: '127.0.0.1:9' })).matching, 300);
    const replayId = engine.replay(1, { targetUrl: 'http://replay-target.example/x' });
    assert.deepEqual(views.urlReach(parse('replay-target')), { entries: false, targets: true, attempts: false });
    assert.deepEqual((await api.listDeliveries({ url: 'replay-target' })).items.map((d) => d.id), [replayId]);
    assert.deepEqual(await api.countDeliveries({ url: 'replay-target' }), { total: 301, matching: 1 });
    // Not in any entry, replay target or attempt URL: nothing to read.
    assert.deepEqual(views.urlReach(parse('nowhere.example')), { entries: false, targets: false, attempts: false });
    assert.deepEqual((await api.listDeliveries({ url: 'nowhere.example' })).items, []);
    assert.deepEqual(await api.countDeliveries({ url: 'nowhere.example' }), { total: 301, matching: 0 });
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a text or URL filter reads the log in windows that yield: the same rows and counts as one statement, the event loop free between windows', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-windows-'));
  const engine = createEngine({ dataDir: dir, clock: new ManualClock(T0) });
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
    });
    seedDeliveries(engine.stores.log, 20_000, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: T0, batch: 1000 });
    const api = createEngineApi(engine);
    const views = engine.stores.deliveryViews;
    const filter = { statuses: null, type: null, url: null, text: 'user_42', replayed: null, violations: null };
    // One statement over the whole log, for comparison.
    const all = views.page({ ...filter, beforeId: null, afterId: null, limit: 100_000 }).map((r) => r.id);
    assert.ok(all.length > 300, `${all.length} rows match`);
    const seen: number[] = [];
    let beforeId: number | undefined;
    for (let guard = 0; guard < 100; guard++) {
      const page = await api.listDeliveries({ text: 'user_42', limit: 97, ...(beforeId ? { beforeId } : {}) });
      seen.push(...page.items.map((d) => d.id));
      if (page.nextBeforeId === null) break;
      beforeId = page.nextBeforeId;
    }
    assert.deepEqual(seen, all, 'paged in windows, newest first, nothing missed or repeated');
    assert.deepEqual(await api.countDeliveries({ text: 'user_42' }), { total: 20_000, matching: all.length });
    assert.deepEqual(await api.countDeliveries({ text: 'user_42', type: 'track' }), views.count({ ...filter, type: 'track' }));
    // A needle too short for the search index that matches nothing: with a budget past the log's
    // size, the reads go through all 20,000 rows, a window at a time.
    const reads = createDeliveryReads(views, inWindows, { textScanBudget: 100_000 });
    let turns = 0;
    let counting = true;
    const countTurns = (): void => {
      turns++;
      if (counting) setImmediate(countTurns);
    };
    setImmediate(countTurns);
    const zq = { ...filter, text: 'Zq' };
    const [none, noCount] = await Promise.all([reads.list({ ...zq, beforeId: null, afterId: null, limit: 100 }), reads.count(zq)]);
    counting = false;
    assert.deepEqual(none, { items: [], nextBeforeId: null });
    assert.deepEqual(noCount, { total: 20_000, matching: 0 });
    // Each read gives the loop back between two of its windows (2,048, 8,192 and the rest of the 20,000 ids at the fastest).
    assert.ok(turns >= fewestSlices(ID_WINDOWS, 20_000) - 1, `the reads yielded between windows: ${turns} turns`);
    // Through the API, one call reads TEXT_SCAN_BUDGET ids and says where it stopped.
    const bounded = await api.listDeliveries({ text: 'Zq' });
    assert.deepEqual(bounded.items, []);
    assert.equal(bounded.nextBeforeId, 20_000 - TEXT_SCAN_BUDGET + 1);
    assert.deepEqual(bounded.partial?.resume, { beforeId: 20_000 - TEXT_SCAN_BUDGET + 1 });
    assert.equal((await api.countDeliveries({ text: 'Zq' })).searchedTo, bounded.partial?.searchedTo);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
