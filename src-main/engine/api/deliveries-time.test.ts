/** Deliveries by time range, and the oldest page, on a real engine and its SQLite file. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDeliveries } from '../../../bench/support/seed';
import { createEngine } from '../index';
import { LogInspector } from '../store/inspect';
import { parseDeliveryPage } from './deliveries';
import type { DeliveryFilter, DeliveryPage } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import { ManualClock } from '../clock';
import { configWith, startHarness } from '../testing/harness';
import { Receiver } from '../testing/receiver';
import { createEngineApi } from './index';

const T0 = Date.UTC(2026, 10, 23, 12);

const at = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();

test('listDeliveries and countDeliveries take a time range, and the oldest page comes first on request', async () => {
  const receiver = await new Receiver().start();
  const clock = new ManualClock(T0);
  const h = await startHarness(configWith(receiver.url), { clock });
  const api = createEngineApi(h.engine);
  try {
    // One message a minute for 12 minutes: user-0 … user-11, one delivery each.
    for (let minute = 0; minute < 12; minute++) {
      const type = minute % 4 === 0 ? 'identify' : 'track';
      const body = type === 'track' ? { userId: `user-${minute}`, event: 'E', messageId: `t-${minute}` } : { userId: `user-${minute}`, messageId: `t-${minute}` };
      assert.equal((await h.post(`/v1/${type}`, body)).status, 200);
      clock.advance(60_000);
    }
    const users = async (page: DeliveryPage): Promise<string[]> => (await api.listDeliveries(page)).items.map((d) => d.userId ?? '');
    const u = (...minutes: number[]): string[] => minutes.map((m) => `user-${m}`);

    assert.deepEqual(await users({ from: at(3), to: at(6) }), u(5, 4, 3), 'from inclusive, to exclusive');
    assert.deepEqual(await users({ from: at(9) }), u(11, 10, 9));
    assert.deepEqual(await users({ to: at(2) }), u(1, 0));
    assert.deepEqual(await users({ from: at(3), to: at(9), type: 'identify' }), u(8, 4));
    assert.deepEqual(await users({ from: at(2), to: at(10), text: 'user-1' }), [], 'text inside the range only: user-1, user-10 and user-11 are outside');
    assert.deepEqual(await users({ from: at(0), to: at(12), text: 'user-1' }), u(11, 10, 1));
    assert.deepEqual(await users({ from: at(60) }), [], 'after the last delivery');
    assert.deepEqual(await users({ to: '2026-11-23T11:00:00Z' }), [], 'before the first');

    // Paging inside a range: by key, nothing twice, nothing left out.
    const seen: string[] = [];
    let beforeId: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await api.listDeliveries({ from: at(2), to: at(9), limit: 3, ...(beforeId ? { beforeId } : {}) });
      seen.push(...page.items.map((d) => d.userId ?? ''));
      if (page.nextBeforeId === null) break;
      beforeId = page.nextBeforeId;
    }
    assert.deepEqual(seen, u(8, 7, 6, 5, 4, 3, 2));

    const count = async (filter: DeliveryFilter) => api.countDeliveries(filter);
    assert.deepEqual(await count({ from: at(3), to: at(6) }), { total: 12, matching: 3 });
    assert.deepEqual(await count({ from: at(0), type: 'identify' }), { total: 12, matching: 3 });
    assert.deepEqual(await count({ from: at(60) }), { total: 12, matching: 0 });
    const statuses = await api.countDeliveriesByStatus();
    const someStatus = Object.keys(statuses)[0] as keyof typeof statuses;
    const inRange = (await api.listDeliveries({ from: at(3), to: at(6) })).items.filter((d) => d.status === someStatus).length;
    assert.equal((await count({ from: at(3), to: at(6), status: someStatus })).matching, inRange, 'a status with a range counts the range, not the whole log');

    // The oldest page: the first deliveries of the log, newest first within the page, nothing older.
    const oldest = await api.listDeliveries({ oldest: true, limit: 3 });
    assert.deepEqual(oldest.items.map((d) => d.userId), u(2, 1, 0));
    assert.equal(oldest.nextBeforeId, null);
    assert.deepEqual(await users({ oldest: true, limit: 2, type: 'identify' }), u(4, 0));
    assert.deepEqual(await users({ oldest: true, limit: 2, text: 'user-1' }), u(10, 1), 'a wide filter reads oldest first too');
    assert.deepEqual(await users({ oldest: true, limit: 2, from: at(5) }), u(6, 5));
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a bad time range is refused naming the field', async () => {
  const h = await startHarness({ sources: [], destinations: [] });
  const api = createEngineApi(h.engine);
  const fields = async (call: () => Promise<unknown>): Promise<string[]> => {
    try {
      await call();
    } catch (err) {
      assert.ok(err instanceof ValidationError, String(err));
      return err.errors.map((e) => `${e.field}: ${e.message}`);
    }
    assert.fail('expected a ValidationError');
  };
  try {
    assert.deepEqual(await fields(() => api.listDeliveries({ from: 'last week' })), ['page.from: must be an ISO 8601 date and time, like 2026-11-23T12:00:00Z']);
    assert.deepEqual(await fields(() => api.countDeliveries({ from: at(5), to: at(5) })), [`filter.to: must be later than from (${at(5)})`]);
    assert.deepEqual(await fields(() => api.listDeliveries({ oldest: 1 as unknown as boolean })), ['page.oldest: must be true (the oldest page) or false']);
    assert.deepEqual((await api.listDeliveries({ from: at(0) })).items, [], 'an empty log has nothing in any range');
  } finally {
    await h.close();
  }
});

test('on a seeded log with gaps, the binary search finds the same first id as reading every row, and the range page seeks by id', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-time-'));
  const engine = createEngine({ dataDir: dir, readBudgetMs: Number.POSITIVE_INFINITY });
  const inspect = LogInspector.of(dir);
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
    });
    // 5,000 deliveries, 1,000 per commit at one time each (ms apart), then holes cut in the ids.
    seedDeliveries(engine.stores.log, 5_000, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: T0 });
    inspect.run('DELETE FROM attempts WHERE delivery_id BETWEEN 1200 AND 2600');
    inspect.run('DELETE FROM deliveries WHERE id BETWEEN 1200 AND 2600');
    const views = engine.stores.deliveryViews;
    const times = inspect.all<{ t: number }>('SELECT DISTINCT created_at AS t FROM deliveries ORDER BY t').map((r) => r.t);
    assert.ok(times.length >= 4, 'several distinct times');
    for (const ms of [times[0]! - 1, ...times, times[1]! + 1, times[times.length - 1]! + 1]) {
      const linear = inspect.value<number | null>('SELECT MIN(id) FROM deliveries WHERE created_at >= ?', ms);
      assert.equal(views.idAtOrAfter(ms), linear, `first id at or after ${ms}`);
    }
    const api = createEngineApi(engine);
    const from = new Date(times[1]!).toISOString();
    const to = new Date(times[3]!).toISOString();
    const expected = inspect.value<number>('SELECT COUNT(*) FROM deliveries WHERE created_at >= ? AND created_at < ?', times[1], times[3]);
    assert.deepEqual(await api.countDeliveries({ from, to }), { total: inspect.count('deliveries'), matching: expected });
    const page = await api.listDeliveries({ from, to, limit: 10 });
    const newestInRange = inspect.value<number>('SELECT MAX(id) FROM deliveries WHERE created_at < ?', times[3]);
    assert.equal(page.items[0]?.id, newestInRange);
    const oldest = await api.listDeliveries({ oldest: true, limit: 3 });
    assert.deepEqual(oldest.items.map((d) => d.id), [3, 2, 1]);
    const plan = views.pagePlan(parseDeliveryPage({ from, to, afterId: 10, beforeId: 4000 }));
    assert.ok(plan.some((line) => /SEARCH d USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/.test(line)), plan.join('\n'));
  } finally {
    inspect.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
