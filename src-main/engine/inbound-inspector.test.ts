/** Inbound as an inspector, on a real engine and its SQLite file: each call as received, and the filters. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineApi } from './api';
import { ManualClock } from './clock';
import { startHarness, WRITE_KEY } from './testing/harness';
import { REQUEST_BODY_LIMITS, type RequestPage } from '../../src-shared/api';
import { ValidationError } from '../../src-shared/settings';

const CONFIG = {
  sources: [
    { name: 'backend', writeKey: WRITE_KEY },
    { name: 'web', writeKey: 'wk_web' },
  ],
  destinations: [],
};

test('getRequest: an accepted call keeps its headers (credentials masked) and its body as sent', async () => {
  const h = await startHarness(CONFIG);
  const api = createEngineApi(h.engine);
  try {
    const sent = { batch: [{ type: 'track', userId: 'u1', event: 'Signed Up', messageId: 'raw-1' }] };
    assert.equal((await h.post('/v1/batch', sent)).status, 200);
    const [row] = (await api.listRequests({ limit: 1 })).items;
    const detail = await api.getRequest(row!.id);
    assert.equal(detail?.body, JSON.stringify(sent), 'the body exactly as received');
    assert.equal(detail?.bodyClipped, false);
    assert.equal(detail?.headers?.['content-type'], 'application/json');
    const auth = detail?.headers?.authorization ?? '';
    assert.match(auth, /^Basic •••• \(\d+ characters, not stored\)$/);
    assert.ok(!auth.includes(Buffer.from(`${WRITE_KEY}:`).toString('base64')), 'the write key is not kept');
    assert.equal(await api.getRequest(999_999), null);
    await assert.rejects(api.getRequest(0), (err) => err instanceof ValidationError && err.errors[0]?.field === 'id');
    // The list's rows do not carry the kept body: pages stay small.
    assert.equal('body' in (row as object), false);
  } finally {
    await h.close();
  }
});

test('getRequest: a gzip body is kept inflated; a large accepted body and a refused one are clipped, and say so', async () => {
  const h = await startHarness(CONFIG);
  const api = createEngineApi(h.engine);
  try {
    const zipped = { batch: [{ type: 'identify', userId: 'gz', messageId: 'gz-1' }] };
    assert.equal((await h.post('/v1/batch', zipped, { gzip: true })).status, 200);
    const gz = await api.getRequest((await api.listRequests({ limit: 1 })).items[0]!.id);
    assert.equal(gz?.body, JSON.stringify(zipped));
    assert.equal(gz?.headers?.['content-encoding'], 'gzip');

    const big = { batch: [{ type: 'track', userId: 'u', event: 'Big', messageId: 'big-1', properties: { pad: 'x'.repeat(30_000) } }] };
    assert.equal((await h.post('/v1/batch', big)).status, 200);
    const bigRow = (await api.listRequests({ limit: 1 })).items[0]!;
    const bigDetail = await api.getRequest(bigRow.id);
    assert.equal(bigDetail?.bodyClipped, true);
    assert.equal(bigDetail?.body, JSON.stringify(big).slice(0, REQUEST_BODY_LIMITS.accepted));
    assert.equal(bigRow.bytes, Buffer.byteLength(JSON.stringify(big)), 'the size as received stays whole');

    const broken = `{"batch": [${'{"type":"track"},'.repeat(200)}`;
    const refused = await h.post('/v1/batch', null, { raw: broken });
    assert.equal(refused.status, 400);
    const refusedRow = (await api.listRequests({ limit: 1 })).items[0]!;
    assert.equal(refusedRow.errorCode, 'invalid_json');
    const refusedDetail = await api.getRequest(refusedRow.id);
    assert.equal(refusedDetail?.bodyClipped, true);
    assert.equal(refusedDetail?.body, broken.slice(0, REQUEST_BODY_LIMITS.refused));
    assert.equal(refusedDetail?.headers?.['content-type'], 'application/json');
  } finally {
    await h.close();
  }
});

test('listRequests filters by status, source, path and time range, pages by key, and jumps to the oldest page', async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 12));
  const h = await startHarness(CONFIG, { clock });
  const api = createEngineApi(h.engine);
  const at = (minutes: number): string => new Date(Date.UTC(2026, 10, 23, 12, minutes)).toISOString();
  try {
    // Minute 0..9: one call a minute, alternating sources; minute 5 a refused one (unknown key).
    for (let minute = 0; minute < 10; minute++) {
      if (minute === 5) {
        assert.equal((await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: 'wk_nobody' })).status, 200);
      } else {
        const writeKey = minute % 2 === 0 ? WRITE_KEY : 'wk_web';
        const path = minute % 3 === 0 ? '/v1/identify' : '/v1/track';
        const body = path === '/v1/track' ? { userId: `u${minute}`, event: 'E' } : { userId: `u${minute}` };
        assert.equal((await h.post(path, body, { writeKey })).status, 200);
      }
      clock.advance(60_000);
    }
    const ids = async (page: RequestPage): Promise<number[]> => (await api.listRequests(page)).items.map((r) => r.id);
    const all = await ids({ limit: 100 });
    assert.equal(all.length, 10);
    const byMinute = [...all].reverse(); // ids in clock order: byMinute[m] is the call of minute m

    assert.deepEqual(await ids({ status: 'refused' }), [byMinute[5]]);
    assert.equal((await ids({ status: 'accepted' })).length, 9);
    const [backend] = (await api.listSources()).filter((s) => s.name === 'backend');
    assert.deepEqual(await ids({ sourceId: backend!.id }), [8, 6, 4, 2, 0].map((m) => byMinute[m]));
    assert.deepEqual(await ids({ path: 'IDENT' }), [9, 6, 3, 0].map((m) => byMinute[m]), 'path: a case-insensitive substring');
    assert.deepEqual(await ids({ from: at(3), to: at(6) }), [5, 4, 3].map((m) => byMinute[m]), 'from inclusive, to exclusive');
    assert.deepEqual(await ids({ from: at(7) }), [9, 8, 7].map((m) => byMinute[m]));
    assert.deepEqual(await ids({ to: at(2) }), [1, 0].map((m) => byMinute[m]));
    assert.deepEqual(await ids({ from: at(30) }), [], 'a range with no calls is empty');
    assert.deepEqual(await ids({ from: at(2), to: at(8), status: 'accepted', sourceId: backend!.id }), [6, 4, 2].map((m) => byMinute[m]));

    // Keyset paging through a filter: two at a time, no row twice, none left out.
    const seen: number[] = [];
    let beforeId: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = await api.listRequests({ status: 'accepted', limit: 2, ...(beforeId ? { beforeId } : {}) });
      seen.push(...page.items.map((r) => r.id));
      if (page.nextBeforeId === null) break;
      beforeId = page.nextBeforeId;
    }
    assert.deepEqual(seen, all.filter((id) => id !== byMinute[5]));

    // The oldest page: the first calls of the log, newest first within it, nothing before it.
    const oldest = await api.listRequests({ oldest: true, limit: 3 });
    assert.deepEqual(oldest.items.map((r) => r.id), [2, 1, 0].map((m) => byMinute[m]));
    assert.equal(oldest.nextBeforeId, null);
    assert.deepEqual(await ids({ oldest: true, limit: 2, path: '/v1/track' }), [2, 1].map((m) => byMinute[m]));
  } finally {
    await h.close();
  }
});

test('listRequests refuses bad filters with a 4xx naming the field', async () => {
  const h = await startHarness(CONFIG);
  const api = createEngineApi(h.engine);
  const refusal = async (page: unknown): Promise<{ field: string; message: string }> => {
    try {
      await api.listRequests(page as RequestPage);
    } catch (err) {
      assert.ok(err instanceof ValidationError);
      return { field: err.errors[0]!.field, message: err.errors[0]!.message };
    }
    assert.fail('expected a refusal');
  };
  try {
    assert.deepEqual(await refusal({ status: 'ok' }), { field: 'page.status', message: 'must be accepted or refused' });
    assert.equal((await refusal({ from: 'yesterday' })).field, 'page.from');
    assert.match((await refusal({ from: 'yesterday' })).message, /ISO 8601/);
    assert.equal((await refusal({ to: '2026-13-45T99:00:00Z' })).field, 'page.to');
    assert.deepEqual(await refusal({ from: '2026-11-23T12:00:00Z', to: '2026-11-23T11:00:00Z' }), {
      field: 'page.to',
      message: 'must be later than from (2026-11-23T12:00:00Z)',
    });
    assert.equal((await refusal({ sourceId: -1 })).field, 'page.sourceId');
    assert.equal((await refusal({ path: 'x'.repeat(501) })).field, 'page.path');
    assert.equal((await refusal({ oldest: 'yes' })).field, 'page.oldest');
    assert.match((await refusal({ colour: 'red' })).message, /is not a page field/);
  } finally {
    await h.close();
  }
});
