/**
 * A URL filter whose needle only older attempts carry (a receiver's address since changed) reads
 * the deliveries inside the range its attempt URLs were attempted for (schema 31), not the newer
 * traffic above them: the first call of a bounded read finds them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDeliveries } from '../../../bench/support/seed';
import { createEngine } from '../index';
import { LogInspector } from '../store/inspect';
import { rangesByUrl } from '../store/attempt-url-ranges';
import { atOnce, createDeliveryReads, parseDeliveryFilter, parseDeliveryPage } from './deliveries';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const OLD = 'http://127.0.0.1:9/old-tunnel';
const NOW = 'http://127.0.0.1:9/hook';

test('the ranges per URL: lowest and highest delivery of each', () => {
  const ranges = rangesByUrl([
    { url: 'a', delivery_id: 7 },
    { url: 'b', delivery_id: 3 },
    { url: 'a', delivery_id: 2 },
    { url: 'a', delivery_id: 9 },
  ]);
  assert.deepEqual([...ranges], [
    ['a', { low: 2, high: 9 }],
    ['b', { low: 3, high: 3 }],
  ]);
});

test("a URL only older attempts carry is read within its attempts' range: the first bounded call finds them under 20,000 newer deliveries, and counts them exactly", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-url-range-'));
  const engine = createEngine({ dataDir: dir, readBudgetMs: Number.POSITIVE_INFINITY });
  const inspect = LogInspector.of(dir);
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: NOW, headers: {} }] }],
    });
    seedDeliveries(engine.stores.log, 300, { sourceId: 1, destinationId: 1, url: OLD, now: T0 });
    seedDeliveries(engine.stores.log, 20_000, { sourceId: 1, destinationId: 1, url: NOW, now: T0 + 1_000_000 });
    const views = engine.stores.deliveryViews;
    const oldIds = inspect.all<{ id: number }>('SELECT DISTINCT delivery_id AS id FROM attempts WHERE url = ? ORDER BY id', OLD).map((r) => r.id);
    assert.equal(oldIds.length, 300);
    const span = { low: oldIds[0], high: oldIds.at(-1) };
    assert.deepEqual(views.urlIdRange(parseDeliveryFilter({ url: 'OLD-tunnel' })), span, 'any case, as the filter matches');
    assert.equal(views.urlIdRange(parseDeliveryFilter({ url: '127.0.0.1:9' })), null, "a needle the destination's entry carries matches every delivery");
    assert.equal(views.urlIdRange(parseDeliveryFilter({ url: 'nowhere' })), null);

    // A clock that moves 4 ms at each look, a budget of 6 ms: two windows a call.
    let ms = 0;
    const timed = createDeliveryReads(views, atOnce, { readBudgetMs: 6, now: () => (ms += 4) });
    const page = await timed.list(parseDeliveryPage({ url: 'old-tunnel', limit: 100 }));
    assert.equal(page.partial, undefined);
    assert.deepEqual(
      page.items.map((r) => r.id),
      oldIds.slice(-100).reverse(),
      'the newest 100 of them, in the first call',
    );
    const rest = await timed.list(parseDeliveryPage({ url: 'old-tunnel', limit: 500, beforeId: page.nextBeforeId ?? 0 }));
    assert.equal(rest.items.length, 200);
    assert.equal(rest.nextBeforeId, null, 'nothing below the range can match: the end, not a partial read');
    const count = await timed.count(parseDeliveryFilter({ url: 'old-tunnel' }));
    assert.equal(count.matching, 300);
    assert.equal(count.searchedTo, undefined, 'counted whole');
    assert.equal((await timed.count(parseDeliveryFilter({ url: 'old-tunnel', status: ['failed'] }))).matching, inspect.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM deliveries WHERE status = 'failed' AND id BETWEEN ? AND ?", span.low, span.high,
    )?.n);

    // An older delivery attempted to that URL again widens the range; so does a newer one.
    const newest = inspect.get<{ id: number }>('SELECT MAX(id) AS id FROM deliveries')?.id ?? 0;
    const retry = (deliveryId: number): void => {
      engine.stores.log.startRound([
        {
          deliveryId,
          body: new TextEncoder().encode('{}'),
          firstAttemptAt: T0,
          round: 9,
          attempts: [{ deliveryId, round: 9, url: OLD, startedAt: T0 + 2_000_000, requestHeaders: {} }],
        },
      ]);
    };
    retry(newest);
    assert.deepEqual(views.urlIdRange(parseDeliveryFilter({ url: 'old-tunnel' })), { low: span.low, high: newest });

    // A log from before the ranges (as migration 31 leaves it): unbounded until they are filled
    // from its attempts, downwards in slices; attempts made meanwhile widen them as they come.
    inspect.exec('UPDATE attempt_urls SET first_delivery = NULL, last_delivery = NULL; UPDATE attempt_url_backfill SET below = (SELECT MAX(id) + 1 FROM attempts)');
    assert.equal(views.urlIdRange(parseDeliveryFilter({ url: 'old-tunnel' })), null);
    retry(5_000);
    assert.equal(views.urlIdRange(parseDeliveryFilter({ url: 'old-tunnel' })), null, 'not trusted while being filled');
    let slices = 1;
    while (!engine.stores.attemptUrlRanges.backfill(4_000)) slices++;
    assert.ok(slices >= 5, `filled in ${slices} slices`);
    assert.deepEqual(views.urlIdRange(parseDeliveryFilter({ url: 'old-tunnel' })), { low: span.low, high: newest });
    assert.deepEqual(
      inspect.get<{ low: number; high: number }>("SELECT first_delivery AS low, last_delivery AS high FROM attempt_urls WHERE url = ?", NOW),
      inspect.get<{ low: number; high: number }>('SELECT MIN(delivery_id) AS low, MAX(delivery_id) AS high FROM attempts WHERE url = ?', NOW),
    );
  } finally {
    inspect.close();
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
