import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startHarness, configWith, WRITE_KEY } from '../testing/harness';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { createEngineApi } from './index';
import { COUNT_WINDOWS, createAssertions } from '../assertions/service';
import type { ExportInput, ExportPage, EngineApi } from '../../../src-shared/api';
import { ValidationError } from '../../../src-shared/settings';

const require = createRequire(import.meta.url);
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> };

/** Every page of an export, as the UI reads it: one call per page, `next` as the following `after`. */
async function allPages(api: EngineApi, input: Omit<ExportInput, 'after'>): Promise<ExportPage[]> {
  const pages: ExportPage[] = [];
  let after: number | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await api.exportMessages({ ...input, ...(after === undefined ? {} : { after }) });
    pages.push(page);
    if (page.next === null) return pages;
    after = page.next;
  }
  throw new Error('the export never ended');
}

test('exportMessages reads the log a page per call; the pages joined are the file GET /api/export streams', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  try {
    const api = createEngineApi(h.engine, { ingestUrl: () => h.server.url });
    const batch = [
      ...Array.from({ length: 5 }, (_, i) => ({ type: 'track', event: 'Order Completed', userId: `u-${i}`, messageId: `m-${i}` })),
      { type: 'identify', userId: 'u-9', messageId: 'm-id' },
    ];
    assert.equal((await h.post('/v1/batch', { batch })).status, 200);
    await waitUntil(() => {
      const c = h.engine.stores.log.countDeliveriesByStatus();
      return c.pending === undefined && c.in_flight === undefined;
    }, 'every delivery to finish');

    const pages = await allPages(api, { format: 'ndjson', filter: { type: 'track' }, limit: 2 });
    assert.deepEqual(pages.map((p) => p.items), [2, 2, 1]);
    assert.equal(pages[0]?.total, 5);
    assert.equal(pages[1]?.total, undefined, 'only the first page counts');
    const lines = pages.map((p) => p.text).join('').trimEnd().split('\n').map((l) => JSON.parse(l) as { messageId: string; type: string });
    assert.deepEqual(lines.map((m) => m.messageId), ['m-0', 'm-1', 'm-2', 'm-3', 'm-4']);
    const streamed = async (query: string): Promise<string> =>
      (await fetch(`${h.server.url}/api/export?${query}`, { headers: { authorization: `Bearer ${h.server.token}` } })).text();
    assert.equal(pages.map((p) => p.text).join(''), await streamed('type=track'));

    const csv = await allPages(api, { format: 'csv', filter: { userId: 'u-9' } });
    assert.equal(csv.length, 1);
    assert.match(csv[0]?.text ?? '', /^id,receivedAt,type,event,userId,anonymousId,source,messageId,violations,deliveries\r\n\d+,\S+,identify,,u-9,,backend,m-id,0,Local receiver:succeeded:200\r\n$/);
    const until = await allPages(api, { format: 'ndjson', filter: { until: '2000-01-01T00:00:00Z' } });
    assert.deepEqual(until.map((p) => p.items), [0], 'until bounds the time range');

    // HAR: one entry per attempt, split over pages, valid once joined.
    const har = await allPages(api, { format: 'har', limit: 4 });
    assert.deepEqual(har.map((p) => p.items), [4, 2]);
    const doc = JSON.parse(har.map((p) => p.text).join('')) as { log: { entries: unknown[] } };
    assert.equal(doc.log.entries.length, 6);
    await assert.doesNotReject(harValidator.har(doc));
    assert.equal(har.map((p) => p.text).join(''), await streamed('format=har'));

    await assert.rejects(api.exportMessages({ format: 'ndjson', limit: 1001 }), (err: unknown) => err instanceof ValidationError && /export\.limit/.test(JSON.stringify(err.errors)));
    await assert.rejects(api.exportMessages({ format: 'xml' as 'csv' }), (err: unknown) => err instanceof ValidationError && /export\.format/.test(JSON.stringify(err.errors)));
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('importBatch goes through the Tracking API: accepted, invalid with its reason, duplicates, and a refused batch', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  try {
    const api = createEngineApi(h.engine, { ingestUrl: () => h.server.url });
    const first = await api.importBatch({
      writeKey: WRITE_KEY,
      messages: [
        { type: 'track', event: 'Imported', userId: 'u-1', messageId: 'imp-1' },
        { type: 'track', userId: 'u-2', messageId: 'imp-2' },
        { type: 'identify', userId: 'u-3', messageId: 'imp-3' },
      ],
    });
    assert.equal(first.ok, true);
    if (!first.ok) return;
    assert.equal(first.accepted, 2);
    assert.equal(first.invalid, 1);
    assert.equal(first.duplicates, 0);
    assert.equal(first.invalidReasons.length, 1);
    assert.match(first.invalidReasons[0] ?? '', /event/);
    assert.doesNotMatch(first.invalidReasons[0] ?? '', /^batch\[/);

    const again = await api.importBatch({ writeKey: WRITE_KEY, messages: [{ type: 'track', event: 'Imported', userId: 'u-1', messageId: 'imp-1' }] });
    assert.deepEqual(again.ok && { accepted: again.accepted, duplicates: again.duplicates }, { accepted: 0, duplicates: 1 });

    // Each batch is an Inbound request, and its messages are delivered like any other.
    const requests = await api.listRequests();
    assert.equal(requests.items.length, 2);
    assert.equal(requests.items[1]?.id, first.requestId);
    assert.equal(requests.items[1]?.userAgent, 'hookbench-import (UI)');
    await receiver.waitFor(2);

    const tooBig = await api.importBatch({ writeKey: WRITE_KEY, messages: [{ type: 'track', event: 'Big', userId: 'u', properties: { pad: 'x'.repeat(40_000) } }] });
    assert.equal(tooBig.ok, false);
    assert.match(!tooBig.ok ? tooBig.refusal : '', /^400 .*32 KB/);

    await assert.rejects(api.importBatch({ writeKey: 'wk_nobody', messages: [{ type: 'track', event: 'E', userId: 'u' }] }), (err: unknown) =>
      err instanceof ValidationError && err.errors.some((e) => e.field === 'import.writeKey'),
    );
    await assert.rejects(api.importBatch({ writeKey: WRITE_KEY, messages: Array.from({ length: 101 }, () => ({})) }), (err: unknown) =>
      err instanceof ValidationError && err.errors.some((e) => e.field === 'import.messages'),
    );
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('the first page\'s total is counted in windows of message ids within a budget: exact when the count ends in it, absent when it does not', async () => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: WRITE_KEY }], destinations: [] });
  try {
    const messages = COUNT_WINDOWS.first + 500;
    for (let i = 0; i < messages; i += 500) {
      const batch = Array.from({ length: 500 }, (_, k) => (k % 5 === 0 ? { type: 'identify', userId: `u-${i + k}` } : { type: 'track', event: 'E', userId: `u-${i + k}` }));
      assert.equal((await h.post('/v1/batch', { batch })).status, 200);
    }
    const assertions = createAssertions(h.engine);
    const tracks = (messages * 4) / 5;
    assert.equal(await assertions.count({ type: 'track' }), tracks);
    assert.equal(await assertions.countWithin({ type: 'track' }, 10_000), tracks, 'over more than one window, the same count');
    assert.equal(await assertions.countWithin({}, 10_000), messages);
    assert.equal(await assertions.countWithin({ type: 'track' }, 0), undefined, 'the budget spent before the newest message: no count');
    const api = createEngineApi(h.engine, { ingestUrl: () => h.server.url });
    assert.equal((await api.exportMessages({ format: 'ndjson', filter: { type: 'track' }, limit: 10 })).total, tracks);
  } finally {
    await h.close();
  }
});
