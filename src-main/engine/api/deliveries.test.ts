import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COUNT_LIMIT, MAX_PAGE_LIMIT, type DeliveryFilter, type DeliverySummary, type EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';
import { seedDeliveries } from '../../../bench/support/seed';
import { ManualClock } from '../clock';
import { createEngine } from '../index';
import type { HookbenchConfig } from '../config';
import { startHarness, WRITE_KEY, type Harness } from '../testing/harness';
import { Receiver, status } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { createEngineApi } from './index';
import { atOnce, createDeliveryQueries, createDeliveryReads, parseDeliveryFilter, parseDeliveryPage } from './deliveries';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');

/**
 * One log for the whole file, made by real traffic: every message goes to "Good" (one URL that
 * answers 200) and to "Flaky" (two URLs that answer 500, retried on the short preset until they
 * fail); then a replay to a local URL, a replay as it was, and one delivery still pending.
 */
describe('delivery list queries over a real log', () => {
  const clock = new ManualClock(T0);
  let ok: Receiver;
  let broken: Receiver;
  let local: Receiver;
  let h: Harness;
  let api: EngineApi;
  const ids = { good: new Map<string, number>(), flaky: new Map<string, number>(), toLocal: 0, asWas: 0, pending: 0 };
  let all: number[] = [];

  const deliveryOf = (destination: string, messageId: string): number =>
    (
      h.inspect.get(`SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_id JOIN destinations t ON t.id = d.destination_id
           WHERE m.message_id = ? AND t.name = ? AND d.replay_of IS NULL`, messageId, destination) as { id: number }
    ).id;
  const statusOf = (id: number): string => (h.inspect.get('SELECT status FROM deliveries WHERE id = ?', id) as { status: string }).status;
  const idsOf = (items: DeliverySummary[]): number[] => items.map((d) => d.id);
  const fieldsOf = async (call: () => Promise<unknown>): Promise<string[]> => {
    try {
      await call();
    } catch (err) {
      assert.ok(err instanceof ValidationError, String(err));
      return err.errors.map((e) => e.field);
    }
    assert.fail('expected a ValidationError');
  };

  before(async () => {
    ok = await new Receiver().start('/ok');
    broken = await new Receiver().start('/broken');
    local = await new Receiver().start('/local-copy');
    broken.respond(status(500));
    const config: HookbenchConfig = {
      sources: [{ name: 'backend', writeKey: WRITE_KEY }],
      destinations: [
        { name: 'Good', enabled: true, sources: ['backend'], sharedSecret: 's', webhooks: [{ url: ok.url, headers: {} }] },
        {
          name: 'Flaky',
          enabled: true,
          sources: ['backend'],
          sharedSecret: 's',
          webhooks: [
            { url: broken.url, headers: {} },
            { url: `${broken.url}?second=1`, headers: {} },
          ],
        },
      ],
      delivery: { preset: 'short', retryWindowMs: 1_000 },
    };
    h = await startHarness(config, { clock });
    api = createEngineApi(h.engine);

    const messages = [
      { type: 'track', userId: 'alice', event: 'Order Completed', messageId: 'm-1' },
      { type: 'identify', userId: 'bob', traits: { plan: 'pro' }, messageId: 'm-2' },
      { type: 'track', anonymousId: 'anon-XYZ', event: 'Signed Up', messageId: 'm-3' },
      { type: 'page', userId: 'Carol', name: 'Home', messageId: 'MSG-Four' },
    ];
    for (const m of messages) assert.equal((await h.post('/v1/batch', { batch: [m] })).status, 200);
    for (const m of messages) {
      ids.good.set(m.messageId, deliveryOf('Good', m.messageId));
      ids.flaky.set(m.messageId, deliveryOf('Flaky', m.messageId));
    }
    await waitUntil(() => [...ids.good.values()].every((id) => statusOf(id) === 'succeeded'), 'the Good deliveries to succeed');
    // Move the injected clock from round to round through the short retry window until every Flaky delivery failed.
    const flakyRows = (): { status: string; rounds: number; next_attempt_at: number | null }[] =>
      [...ids.flaky.values()].map((id) => h.inspect.get('SELECT status, rounds, next_attempt_at FROM deliveries WHERE id = ?', id) as never);
    const settledRounds = (): number | null =>
      flakyRows().every((r) => r.status === 'retrying' || r.status === 'failed') ? flakyRows().reduce((n, r) => n + r.rounds, 0) : null;
    for (let step = 0; step < 50; step++) {
      const rounds = await waitUntil(() => settledRounds() ?? false, 'a round of the Flaky deliveries to end');
      const due = flakyRows().flatMap((r) => (r.status === 'retrying' && r.next_attempt_at !== null ? [r.next_attempt_at] : []));
      if (due.length === 0) break;
      clock.advance(Math.max(0, Math.min(...due) - clock.now()));
      await waitUntil(() => (settledRounds() ?? 0) > rounds, 'the next round to be written');
    }
    assert.ok([...ids.flaky.values()].every((id) => statusOf(id) === 'failed'), 'the Flaky deliveries failed');

    const flaky1 = ids.flaky.get('m-1')!;
    ids.toLocal = (await api.replayDelivery({ id: flaky1, targetUrl: local.url })).id;
    ids.asWas = (await api.replayDelivery({ id: flaky1 })).id;
    await waitUntil(() => statusOf(ids.toLocal) === 'succeeded', 'the replay to the local URL');
    await waitUntil(() => statusOf(ids.asWas) === 'retrying', 'the replay as it was to fail once');

    // A delivery not yet due: pending, no attempt, so only its destination's entries can match a URL.
    const source = h.engine.stores.config.listSources()[0]!;
    const flaky = h.engine.stores.config.listDestinations().find((d) => d.name === 'Flaky')!;
    const later = clock.now() + 3_600_000;
    h.engine.stores.log.commitRequest(
      { sourceId: source.id, path: '/v1/track', receivedAt: later, httpStatus: 200, bytes: 2, userAgent: null },
      source.id,
      [
        {
          message: { type: 'screen', messageId: 'm-5', userId: 'dave', anonymousId: null, name: 'Cart', context: {}, integrations: {}, timestamp: new Date(later).toISOString(), receivedAt: new Date(later).toISOString() },
          json: '{}',
          destinationIds: [flaky.id],
        },
      ],
      [],
      86_400_000,
    );
    ids.pending = deliveryOf('Flaky', 'm-5');
    assert.equal(statusOf(ids.pending), 'pending');
    all = (h.inspect.all('SELECT id FROM deliveries ORDER BY id DESC') as { id: number }[]).map((r) => r.id);
    assert.equal(all.length, 11);
  });

  after(async () => {
    await h?.close();
    await Promise.all([ok?.close(), broken?.close(), local?.close()]);
  });

  test('without a filter: every delivery, newest first; counts agree', async () => {
    const page = await api.listDeliveries();
    assert.deepEqual(idsOf(page.items), all);
    assert.equal(page.nextBeforeId, null);
    assert.deepEqual(await api.countDeliveries(), { total: 11, matching: 11 });
    assert.deepEqual(await api.countDeliveries({}), { total: 11, matching: 11 });
  });

  test('each filter narrows, and the counts say how many match', async () => {
    const cases: { name: string; filter: Parameters<EngineApi['countDeliveries']>[0]; expected: number[] }[] = [
      { name: 'one status', filter: { status: 'failed' }, expected: [...ids.flaky.values()] },
      { name: 'several statuses', filter: { status: ['pending', 'retrying'] }, expected: [ids.pending, ids.asWas] },
      { name: 'a status as a list of one', filter: { status: ['succeeded'] }, expected: [...ids.good.values(), ids.toLocal] },
      { name: 'type', filter: { type: 'identify' }, expected: [ids.good.get('m-2')!, ids.flaky.get('m-2')!] },
      { name: 'type that nothing has', filter: { type: 'alias' }, expected: [] },
      { name: 'text: userId, any case', filter: { text: 'ALICE' }, expected: [ids.good.get('m-1')!, ids.flaky.get('m-1')!, ids.toLocal, ids.asWas] },
      { name: 'text: anonymousId substring', filter: { text: 'xyz' }, expected: [ids.good.get('m-3')!, ids.flaky.get('m-3')!] },
      { name: 'text: event name', filter: { text: 'signed up' }, expected: [ids.good.get('m-3')!, ids.flaky.get('m-3')!] },
      { name: 'text: a messageId, exactly', filter: { text: 'MSG-Four' }, expected: [ids.good.get('MSG-Four')!, ids.flaky.get('MSG-Four')!] },
      { name: 'text: the start of a messageId, as written', filter: { text: 'MSG-F' }, expected: [ids.good.get('MSG-Four')!, ids.flaky.get('MSG-Four')!] },
      { name: 'text: a messageId in another case finds nothing', filter: { text: 'msg-four' }, expected: [] },
      { name: 'text: the middle of a messageId finds nothing', filter: { text: 'G-Fou' }, expected: [] },
      { name: 'text that nothing has', filter: { text: 'nobody' }, expected: [] },
      { name: 'url: the replay target (and its attempt)', filter: { url: '/local-copy' }, expected: [ids.toLocal] },
      {
        name: 'url: an entry of the destination, pending rows without attempts included',
        filter: { url: 'second=1' },
        expected: [...ids.flaky.values(), ids.asWas, ids.pending],
      },
      { name: 'url: host, any case', filter: { url: '/OK' }, expected: [...ids.good.values()] },
      { name: 'status and type', filter: { status: 'failed', type: 'track' }, expected: [ids.flaky.get('m-1')!, ids.flaky.get('m-3')!] },
      { name: 'status, type and text', filter: { status: ['failed', 'succeeded'], type: 'track', text: 'order' }, expected: [ids.good.get('m-1')!, ids.flaky.get('m-1')!, ids.toLocal] },
      { name: 'url and text', filter: { url: 'broken', text: 'dave' }, expected: [ids.pending] },
      { name: 'empty strings narrow nothing', filter: { text: '', url: '' }, expected: all },
    ];
    for (const c of cases) {
      const expected = [...c.expected].sort((a, b) => b - a);
      const page = await api.listDeliveries({ ...c.filter });
      assert.deepEqual(idsOf(page.items), expected, c.name);
      assert.deepEqual(await api.countDeliveries(c.filter), { total: 11, matching: expected.length }, `${c.name}: counts`);
      // Named ids (what the live list asks of the rows an event named): the same check, row by row.
      const named = [all[0]!, ...expected.slice(0, 2), all[all.length - 1]!];
      const asked = await api.listDeliveries({ ...c.filter, ids: named });
      assert.deepEqual(idsOf(asked.items), expected.filter((id) => named.includes(id)), `${c.name}: named ids`);
      assert.equal(asked.partial, undefined, `${c.name}: named ids are read whole`);
    }
  });

  test('keyset pages cover the log without gaps or repeats, with and without a filter', async () => {
    const cases: [DeliveryFilter, number[]][] = [
      [{}, all],
      [{ status: ['failed', 'succeeded'] }, all.filter((id) => ['failed', 'succeeded'].includes(statusOf(id)))],
      [{ text: 'alice' }, [ids.asWas, ids.toLocal, ids.flaky.get('m-1')!, ids.good.get('m-1')!]],
    ];
    for (const [filter, expected] of cases) {
      for (const limit of [1, 2, 3, 4]) {
        const seen: number[] = [];
        let beforeId: number | undefined;
        for (let guard = 0; guard < 20; guard++) {
          const page = await api.listDeliveries({ ...filter, limit, ...(beforeId ? { beforeId } : {}) });
          assert.ok(page.items.length <= limit);
          seen.push(...idsOf(page.items));
          if (page.nextBeforeId === null) break;
          assert.equal(page.nextBeforeId, page.items.at(-1)?.id, 'the cursor is the last id of the page');
          beforeId = page.nextBeforeId;
        }
        assert.deepEqual(seen, [...expected].sort((a, b) => b - a), `limit ${limit}, filter ${JSON.stringify(filter)}`);
      }
    }
  });

  test('afterId: only newer rows, still newest first; with beforeId it pages inside the range', async () => {
    const middle = all[5]!;
    const newer = all.filter((id) => id > middle);
    assert.deepEqual(idsOf((await api.listDeliveries({ afterId: middle })).items), newer);
    assert.deepEqual(idsOf((await api.listDeliveries({ afterId: all[0]! })).items), [], 'nothing newer than the newest');
    const first = await api.listDeliveries({ afterId: middle, limit: 2 });
    assert.deepEqual(idsOf(first.items), newer.slice(0, 2), 'the newest of them when more than the limit');
    const rest = await api.listDeliveries({ afterId: middle, beforeId: first.nextBeforeId!, limit: 10 });
    assert.deepEqual(idsOf(rest.items), newer.slice(2));
    assert.equal(rest.nextBeforeId, null);
    assert.deepEqual(idsOf((await api.listDeliveries({ afterId: middle, status: 'failed' })).items), newer.filter((id) => statusOf(id) === 'failed'));
  });

  test('summaries carry entries, the last attempt latency and the replays made of them', async () => {
    const byId = new Map((await api.listDeliveries()).items.map((d) => [d.id, d]));
    const good = byId.get(ids.good.get('m-1')!)!;
    const flaky = byId.get(ids.flaky.get('m-1')!)!;
    assert.equal(good.entries, 1, 'Good has one URL');
    assert.equal(flaky.entries, 2, 'Flaky has two URLs');
    assert.equal(byId.get(ids.toLocal)!.entries, 1, 'a replay to one URL goes to one URL');
    assert.equal(byId.get(ids.asWas)!.entries, 2, 'a replay as it was goes to the destination’s URLs');
    assert.equal(byId.get(ids.pending)!.entries, 2);

    assert.deepEqual(flaky.replays, [ids.asWas, ids.toLocal], 'newest first');
    assert.deepEqual(good.replays, []);
    assert.equal(byId.get(ids.asWas)!.replayOf, flaky.id);

    const lastDone = (id: number): number =>
      (
        h.inspect.get(`SELECT json_extract(timings, '$.totalMs') AS ms FROM attempts WHERE delivery_id = ? AND state = 'done' ORDER BY id DESC LIMIT 1`, id) as {
          ms: number;
        }
      ).ms;
    assert.equal(typeof good.latencyMs, 'number');
    assert.equal(good.latencyMs, lastDone(good.id));
    assert.equal(flaky.latencyMs, lastDone(flaky.id), 'the last finished attempt, not the first');
    assert.equal(byId.get(ids.pending)!.latencyMs, null, 'no attempt yet');

    // getDeliverySummaries: the same rows for the ids asked, newest first; unknown ids are left out.
    const some = await api.getDeliverySummaries([ids.good.get('m-1')!, flaky.id, 999_999, flaky.id]);
    assert.deepEqual(some, [flaky, good]);
    assert.deepEqual(await api.getDeliverySummaries([]), []);
    // The detail carries the same computed fields.
    const detail = await api.getDelivery(flaky.id);
    assert.deepEqual([detail?.entries, detail?.replays, detail?.latencyMs], [2, [ids.asWas, ids.toLocal], flaky.latencyMs]);
  });

  test('summaries name the destination, the source and a page call, and give each URL its latest outcome', async () => {
    const byId = new Map((await api.listDeliveries()).items.map((d) => [d.id, d]));
    const good = byId.get(ids.good.get('m-1')!)!;
    const flaky = byId.get(ids.flaky.get('m-1')!)!;
    assert.deepEqual([good.destinationName, good.sourceName], ['Good', 'backend']);
    assert.deepEqual([flaky.destinationName, flaky.sourceName], ['Flaky', 'backend']);
    assert.equal(byId.get(ids.good.get('MSG-Four')!)!.name, 'Home', 'a page shows its name');
    assert.equal(good.name, null, 'a track has no name');
    // One outcome per URL, in the order first tried, from its latest attempt (not the first round's).
    assert.deepEqual(
      good.urls.map((u) => [u.url, u.state, u.httpStatus, u.failure]),
      [[ok.url, 'done', 200, null]],
    );
    const lastRound = (h.inspect.get('SELECT MAX(round) AS r FROM attempts WHERE delivery_id = ?', flaky.id) as { r: number }).r;
    assert.ok(lastRound > 1, 'the Flaky delivery was retried');
    assert.deepEqual(
      flaky.urls.map((u) => [u.url, u.round, u.httpStatus, u.failure?.kind]),
      [
        [broken.url, lastRound, 500, 'http'],
        [`${broken.url}?second=1`, lastRound, 500, 'http'],
      ],
    );
    assert.deepEqual(byId.get(ids.pending)!.urls, [], 'nothing tried yet');
    assert.deepEqual(byId.get(ids.toLocal)!.urls.map((u) => u.url), [local.url]);
    const [detail] = await api.getDeliverySummaries([flaky.id]);
    assert.deepEqual(detail, flaky, 'a refetched row carries the same');
  });

  test('every param is checked, and the refusal names the field', async () => {
    const page = (p: unknown) => () => api.listDeliveries(p as never);
    assert.deepEqual(await fieldsOf(page('first')), ['page']);
    assert.deepEqual(await fieldsOf(page([1])), ['page']);
    assert.deepEqual(await fieldsOf(page({ beforeId: 0 })), ['page.beforeId']);
    assert.deepEqual(await fieldsOf(page({ afterId: '3' })), ['page.afterId']);
    assert.deepEqual(await fieldsOf(page({ limit: MAX_PAGE_LIMIT + 1 })), ['page.limit']);
    assert.deepEqual(await fieldsOf(page({ limit: 1.5 })), ['page.limit']);
    assert.deepEqual(await fieldsOf(page({ status: 'lost' })), ['page.status']);
    assert.deepEqual(await fieldsOf(page({ status: ['failed', 'lost'] })), ['page.status[1]']);
    assert.deepEqual(await fieldsOf(page({ status: [] })), ['page.status']);
    assert.deepEqual(await fieldsOf(page({ type: 7 })), ['page.type']);
    assert.deepEqual(await fieldsOf(page({ url: 'x'.repeat(501) })), ['page.url']);
    assert.deepEqual(await fieldsOf(page({ ids: [1, 'two'] })), ['page.ids[1]']);
    assert.deepEqual(await fieldsOf(page({ ids: Array.from({ length: MAX_PAGE_LIMIT + 1 }, (_, i) => i + 1) })), ['page.ids']);
    assert.deepEqual(await fieldsOf(page({ text: null })), ['page.text']);
    assert.deepEqual(await fieldsOf(page({ statuses: 'failed' })), ['page.statuses'], 'a misspelt field is not silently ignored');
    assert.deepEqual(await fieldsOf(page({ beforeId: -1, limit: 0, text: 1 })), ['page.text', 'page.beforeId', 'page.limit'], 'every problem at once');

    const count = (f: unknown) => () => api.countDeliveries(f as never);
    assert.deepEqual(await fieldsOf(count('failed')), ['filter']);
    assert.deepEqual(await fieldsOf(count({ status: 'nope' })), ['filter.status']);
    assert.deepEqual(await fieldsOf(count({ beforeId: 3 })), ['filter.beforeId']);

    const summaries = (ids: unknown) => () => api.getDeliverySummaries(ids as never);
    assert.deepEqual(await fieldsOf(summaries(5)), ['ids']);
    assert.deepEqual(await fieldsOf(summaries([1, 'two', 0])), ['ids[1]', 'ids[2]']);
    assert.deepEqual(await fieldsOf(summaries(Array.from({ length: MAX_PAGE_LIMIT + 1 }, (_, i) => i + 1))), ['ids']);
  });
});

/**
 * An engine on a fresh folder with `count` seeded deliveries (one source, one destination), whole
 * answers wherever they are read (no read budget): for the tests that compare them.
 */
function seededEngine(prefix: string, count: number, batch?: number): { engine: ReturnType<typeof createEngine>; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const engine = createEngine({ dataDir: dir, readBudgetMs: Number.POSITIVE_INFINITY });
  engine.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
  });
  seedDeliveries(engine.stores.log, count, { sourceId: 1, destinationId: 1, url: 'http://127.0.0.1:9/hook', now: T0, ...(batch ? { batch } : {}) });
  return { engine, dir };
}

test('at 3,000 rows a page is one statement whose every lookup uses an index, and its paging is exact', async () => {
  const { engine, dir } = seededEngine('hookbench-plan-', 3_000);
  try {
    for (const filter of [{}, { status: 'failed' }, { status: ['failed', 'retrying'] }, { type: 'track', text: 'user_4' }, { url: ':9/' }]) {
      for (const beforeId of [undefined, 2_000]) {
        const plan = engine.stores.deliveryViews.pagePlan(parseDeliveryPage({ ...filter, ...(beforeId ? { beforeId } : {}) }));
        // Per-row lookups (the computed columns, the attempt URLs) go through an index, never a table scan.
        const correlated = plan.flatMap((line, i) => (line.startsWith('CORRELATED') ? [plan[i + 1] ?? ''] : []));
        assert.ok(correlated.length >= 3, plan.join('\n'));
        assert.deepEqual(correlated.filter((line) => !line.startsWith('SEARCH')), [], `${JSON.stringify(filter)}:\n${plan.join('\n')}`);
        assert.ok(plan.some((line) => /deliveries_replay_of/.test(line)), plan.join('\n'));
        assert.ok(plan.some((line) => /attempts_delivery/.test(line)), plan.join('\n'));
        // The page's ids come first (newest first, cut by its LIMIT); the summary then reads those
        // rows by primary key. Any other order scans the whole log against the page.
        const outer = plan.slice(plan.indexOf('SCAN page'));
        assert.ok(outer.length > 0 && outer.includes('SEARCH d USING INTEGER PRIMARY KEY (rowid=?)'), `${JSON.stringify(filter)}:\n${plan.join('\n')}`);
        assert.deepEqual(outer.filter((line) => /^SCAN d\b/.test(line)), [], `${JSON.stringify(filter)}:\n${plan.join('\n')}`);
        assert.ok(!plan.some((line) => /BLOOM FILTER ON page/.test(line)), `${JSON.stringify(filter)}:\n${plan.join('\n')}`);
      }
    }
    const api = createEngineApi(engine);
    const failed = (await api.countDeliveries({ status: 'failed' })).matching;
    assert.equal(failed, 60, 'one in fifty seeded rows failed');
    const seen = new Set<number>();
    let beforeId: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await api.listDeliveries({ status: 'failed', limit: 7, ...(beforeId ? { beforeId } : {}) });
      for (const d of page.items) {
        assert.equal(d.status, 'failed');
        assert.equal(d.rounds, 3);
        assert.ok(!seen.has(d.id));
        seen.add(d.id);
      }
      if (page.nextBeforeId === null) break;
      beforeId = page.nextBeforeId;
    }
    assert.equal(seen.size, failed);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a round waiting on one URL already shows what the others answered: 200, refused, then timeout', async () => {
  const clock = new ManualClock(T0);
  const fast = await new Receiver().start('/fast');
  const slow = await new Receiver().start('/slow');
  slow.respond(() => {
    // Never answers: the round waits for the deadline on the injected clock.
  });
  const closed = await new Receiver().start('/closed');
  const refusedUrl = closed.url;
  await closed.close();
  const config: HookbenchConfig = {
    sources: [{ name: 'backend', writeKey: WRITE_KEY }],
    destinations: [
      {
        name: 'Split',
        enabled: true,
        sources: ['backend'],
        sharedSecret: null,
        webhooks: [fast.url, refusedUrl, slow.url].map((url) => ({ url, headers: {} })),
      },
    ],
    delivery: { timeoutMs: 2_000 },
  };
  const h = await startHarness(config, { clock });
  try {
    const queries = createDeliveryQueries(h.engine.stores.deliveryViews);
    assert.equal((await h.post('/v1/track', { userId: 'u1', event: 'Split', messageId: 'split-1' })).status, 200);
    await slow.waitFor(1);
    // The list reads in slices that yield, so it is asked again until the row is as expected.
    const rowWhen = async (ok: (r: DeliverySummary) => boolean, what: string): Promise<DeliverySummary> => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const r = (await queries.list({})).items[0]!;
        if (ok(r)) return r;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const answered = await rowWhen(
      (r) => r.urls.filter((u) => u.state === 'done').length === 2,
      'the fast and the refused URL to be written while the slow one is out',
    );
    assert.equal(answered.status, 'in_flight');
    assert.deepEqual(
      answered.urls.map((u) => [u.url, u.state, u.httpStatus, u.failure?.kind ?? null]),
      [
        [fast.url, 'done', 200, null],
        [refusedUrl, 'done', null, 'connect'],
        [slow.url, 'in_flight', null, null],
      ],
    );
    assert.equal(answered.urls[2]!.startedAt, new Date(T0).toISOString());

    clock.advance(2_000);
    const done = await rowWhen((r) => r.status === 'succeeded', 'the round to end');
    assert.deepEqual(
      done.urls.map((u) => [u.state, u.failure?.kind ?? null]),
      [
        ['done', null],
        ['done', 'connect'],
        ['done', 'timeout'],
      ],
    );
  } finally {
    await h.close();
    await Promise.all([fast.close(), slow.close()]);
  }
});

test('a filter no index serves reads the log for a bounded time a call: it says how far it got, and going on from there gives every row once', async () => {
  const { engine, dir } = seededEngine('hookbench-timed-', 20_000, 1000);
  try {
    const views = engine.stores.deliveryViews;
    // A clock that moves 4 ms at each look: the budget of 6 ms runs out after the second window.
    let ms = 0;
    const timed = createDeliveryReads(views, atOnce, { readBudgetMs: 6, now: () => (ms += 4) });
    const whole = createDeliveryReads(views, atOnce, { readBudgetMs: Number.POSITIVE_INFINITY });
    let partCounts = 0;
    for (const filter of [{ type: 'identify' }, { violations: 'any' }, { replayed: false, status: ['failed'] }, { url: ':9/', type: 'alias' }] as DeliveryFilter[]) {
      const label = JSON.stringify(filter);
      const expected = await whole.list(parseDeliveryPage({ ...filter, limit: MAX_PAGE_LIMIT }));
      const found: number[] = [];
      let calls = 0;
      let beforeId: number | null = null;
      for (;;) {
        const page = await timed.list(parseDeliveryPage({ ...filter, limit: MAX_PAGE_LIMIT, ...(beforeId === null ? {} : { beforeId }) }));
        calls++;
        found.push(...page.items.map((r) => r.id));
        if (page.partial) {
          assert.ok('beforeId' in page.partial.resume, label);
          assert.equal(page.nextBeforeId, page.partial.resume.beforeId, `${label}: the next page goes on where this one stopped`);
          assert.ok(Number.isFinite(Date.parse(page.partial.searchedTo)), label);
        }
        if (page.nextBeforeId === null || found.length >= MAX_PAGE_LIMIT) break;
        beforeId = page.nextBeforeId;
      }
      assert.deepEqual(found.slice(0, MAX_PAGE_LIMIT), expected.items.map((r) => r.id), `${label}: the same rows as one read of the whole log`);
      // A page the whole log cannot fill takes the log in several calls, each stopping in time.
      if (expected.items.length < MAX_PAGE_LIMIT) assert.ok(calls > 1, `${label}: read in ${calls} calls`);
      // The count: the newest part only, and since when; with no limit, all of it.
      const part = await timed.count(parseDeliveryFilter(filter));
      const all = await whole.count(parseDeliveryFilter(filter));
      assert.equal(all.searchedTo, undefined, label);
      if (all.capped) continue;
      assert.ok(part.searchedTo !== undefined && part.matching <= all.matching, `${label}: ${JSON.stringify({ part, all })}`);
      partCounts++;
    }
    assert.ok(partCounts >= 3, `counts that said since when: ${partCounts}`);
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with no message able to carry violations, "passing it" is counted exactly, past the count limit', async () => {
  const { engine, dir } = seededEngine('hookbench-passing-', COUNT_LIMIT + 2_000, 1000);
  try {
    const api = createEngineApi(engine);
    // What the engine's follow-up does a moment after each commit: the tallies take the messages in.
    while (!engine.stores.takeInOwed(5_000));
    assert.equal(engine.stores.deliveryViews.violationsFrom(), null, 'the tallies rule every message out');
    const byStatus = await api.countDeliveriesByStatus();
    assert.deepEqual(await api.countDeliveries({ violations: 'none' }), { total: COUNT_LIMIT + 2_000, matching: COUNT_LIMIT + 2_000 });
    assert.deepEqual(await api.countDeliveries({ violations: 'none', status: 'failed' }), { total: COUNT_LIMIT + 2_000, matching: byStatus.failed ?? 0 });
    assert.deepEqual(await api.countDeliveries({ violations: 'any' }), { total: COUNT_LIMIT + 2_000, matching: 0 });
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
