import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../clock';
import { startHarness, configWith, WRITE_KEY, type Harness } from '../testing/harness';
import { Receiver } from '../testing/receiver';
import { LogInspector } from '../store/inspect';

const track = (i: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'track',
  userId: `user-${i}`,
  event: 'Order Completed',
  messageId: `m-${i}`,
  properties: { total: i },
  ...extra,
});

describe('ingest: the HTTP Tracking API', () => {
  let h: Harness;
  let receiver: Receiver;
  let clock: ManualClock;

  before(async () => {
    receiver = await new Receiver().start();
    clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
    h = await startHarness(configWith(receiver.url), { clock });
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });

  const rows = (sql: string, ...params: unknown[]): Record<string, unknown>[] =>
    h.inspect.all(sql, ...params) as Record<string, unknown>[];

  test('a batch is acknowledged with exactly 200 {"success":true} and is in SQLite', async () => {
    const res = await fetch(`${h.server.url}/v1/batch`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}` },
      body: JSON.stringify({ batch: [track(1), track(2)] }),
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '{"success":true}');
    // A second connection reads the file itself: what was acknowledged is committed.
    const reader = LogInspector.of(h.dataDir, { readonly: true });
    const ids = reader.all("SELECT message_id FROM messages WHERE message_id IN ('m-1','m-2') ORDER BY id");
    reader.close();
    assert.deepEqual(ids, [{ message_id: 'm-1' }, { message_id: 'm-2' }]);
  });

  test('the write key is taken from Basic auth with or without the colon, or from the body', async () => {
    assert.equal((await h.post('/v1/batch', { batch: [track(10)] }, { noColon: true })).status, 200);
    assert.equal((await h.post('/v1/batch', { writeKey: WRITE_KEY, batch: [track(11)] }, { writeKey: null })).status, 200);
    const stored = rows("SELECT json FROM messages WHERE message_id = 'm-11'");
    assert.equal(stored.length, 1);
    assert.doesNotMatch(String(stored[0]?.json), /writeKey|wk_test/, 'writeKey is stripped from what is stored');
  });

  test('missing and unknown write keys are refused with clear errors', async () => {
    const missing = await h.post('/v1/batch', { batch: [track(20)] }, { writeKey: null });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'missing_write_key');
    assert.equal(missing.body.success, false);
    assert.equal(missing.body.message, missing.body.error);
    const unknown = await h.post('/v1/batch', { batch: [track(21)] }, { writeKey: 'wk_nobody' });
    // Answered 200 as Segment does (so that SDKs neither retry nor block), yet refused and said so.
    assert.equal(unknown.status, 200);
    assert.equal(unknown.body.success, false);
    assert.equal(unknown.body.code, 'unknown_write_key');
    assert.match(String(unknown.body.message), /wk_nobody/);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-20','m-21')").length, 0);
    assert.ok(rows("SELECT 1 FROM requests WHERE error_code = 'unknown_write_key'").length >= 1, 'refusals are logged');
  });

  test('gzip bodies, text/plain and a doubled slash all work', async () => {
    assert.equal((await h.post('/v1/batch', { batch: [track(30)] }, { gzip: true })).status, 200);
    assert.equal((await h.post('/v1/batch', { batch: [track(31)] }, { contentType: 'text/plain' })).status, 200);
    assert.equal((await h.post('//v1/batch', { batch: [track(32)] })).status, 200);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-30','m-31','m-32')").length, 3);
  });

  test('invalid JSON and a body that is not an object are 400 with the reason', async () => {
    const bad = await h.post('/v1/batch', null, { raw: '{"batch": [' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_json');
    const arr = await h.post('/v1/batch', null, { raw: '[1,2]' });
    assert.equal(arr.status, 400);
    assert.equal(arr.body.code, 'invalid_body');
    const gz = await h.post('/v1/batch', null, { raw: 'not gzip', contentType: 'application/json' });
    assert.equal(gz.status, 400);
  });

  test('size limits refuse the request and name the limit and the offending index', async () => {
    const big = await h.post('/v1/batch', { batch: [track(40), track(41, { properties: { blob: 'x'.repeat(33_000) } })] });
    assert.equal(big.status, 400);
    assert.equal(big.body.code, 'message_too_large');
    assert.match(String(big.body.message), /batch\[1\].*32768/);

    const huge = await h.post('/v1/batch', {
      batch: Array.from({ length: 20 }, (_, i) => track(1000 + i, { properties: { blob: 'y'.repeat(30_000) } })),
    });
    assert.equal(huge.status, 400);
    assert.match(String(huge.body.message), /512000 bytes/);

    const many = await h.post('/v1/batch', { batch: Array.from({ length: 2501 }, (_, i) => ({ type: 'track', userId: 'u', event: 'E', messageId: `x${i}` })) });
    assert.equal(many.status, 400);
    assert.equal(many.body.code, 'batch_too_large');
    assert.match(String(many.body.message), /2501 .*2500/);

    const longId = await h.post('/v1/batch', { batch: [track(42), track(43, { messageId: 'z'.repeat(101) })] });
    assert.equal(longId.status, 400);
    assert.equal(longId.body.code, 'message_id_too_long');
    assert.match(String(longId.body.message), /batch\[1\].*101 .*100/);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-40','m-42')").length, 0, 'nothing of a refused request is kept');

    const single = await h.post('/v1/track', { userId: 'u', event: 'E', properties: { blob: 'x'.repeat(33_000) } });
    assert.equal(single.status, 400);
    assert.match(String(single.body.message), /32768/);
  });

  test('invalid items are dropped with their reason and the rest of the batch is accepted', async () => {
    const res = await h.post('/v1/batch', {
      batch: [
        track(50),
        { userId: 'u', event: 'no type', messageId: 'd1' },
        { type: 'track', event: 'E', messageId: 'd2' },
        { type: 'track', userId: 'u', messageId: 'd3' },
        { type: 'group', userId: 'u', messageId: 'd4' },
        { type: 'alias', userId: 'u', messageId: 'd5' },
        track(51),
      ],
    });
    assert.equal(res.status, 200);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-50','m-51')").length, 2);
    const [request] = rows('SELECT id, items, accepted, dropped FROM requests ORDER BY id DESC LIMIT 1');
    assert.deepEqual({ ...request, id: undefined }, { id: undefined, items: 7, accepted: 2, dropped: 5 });
    const reasons = h.engine.stores.requests.droppedItemsOf(Number(request?.id)).map((d) => `${d.index}:${d.reason}`);
    assert.deepEqual(reasons, [
      '1:batch[1].type: is missing; it must be one of identify, track, page, screen, group, alias',
      '2:batch[2].userId: is required (or anonymousId); neither was sent',
      '3:batch[3].event: is required for track (a non-empty string)',
      '4:batch[4].groupId: is required for group',
      '5:batch[5].previousId: is required for alias',
    ]);
  });

  test('duplicates within 24 h are acknowledged and not delivered again; after 24 h they are new', async () => {
    const before = rows('SELECT COUNT(*) AS n FROM deliveries')[0]?.n as number;
    assert.equal((await h.post('/v1/batch', { batch: [track(60)] })).status, 200);
    assert.equal((await h.post('/v1/batch', { batch: [track(60), track(60)] })).status, 200);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id = 'm-60'").length, 1);
    assert.equal(rows("SELECT 1 FROM dropped_items WHERE kind = 'duplicate' AND raw LIKE '%m-60%'").length, 2);
    assert.equal(rows('SELECT COUNT(*) AS n FROM deliveries')[0]?.n, before + 1);
    clock.advance(24 * 60 * 60 * 1000 + 1);
    assert.equal((await h.post('/v1/batch', { batch: [track(60)] })).status, 200);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id = 'm-60'").length, 2);
  });

  test('integrations decide which messages get a delivery', async () => {
    await h.post('/v1/batch', {
      batch: [
        track(70, { integrations: { Webhooks: false } }),
        track(71, { integrations: { All: false } }),
        track(72, { integrations: { All: false, Webhooks: true } }),
        track(73),
      ],
    });
    await h.post('/v1/batch', { integrations: { All: false }, batch: [track(74), track(75, { integrations: { Webhooks: true } })] });
    const delivered = rows(
      "SELECT m.message_id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id IN ('m-70','m-71','m-72','m-73','m-74','m-75') ORDER BY m.message_id",
    ).map((r) => r.message_id);
    assert.deepEqual(delivered, ['m-72', 'm-73', 'm-75']);
  });

  test('a lone surrogate escape becomes U+FFFD everywhere, as Segment reads it; a pair stays', async () => {
    // Written as JSON text: JSON.stringify would escape the lone halves the same way, but an SDK in another language may not.
    const body = `{"batch":[{"type":"track","messageId":"m-88","userId":"u\\udfff","anonymousId":"lone\\ud800x","event":"Smile \\ud83d\\ude00",
      "properties":{"k\\udc00":"v\\ud83d","ok":"\\\\ud800 is text"}}]}`;
    const before = receiver.received.length;
    const res = await fetch(`${h.server.url}/v1/batch`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`, 'content-type': 'application/json' },
      body,
    });
    assert.equal(res.status, 200, await res.text());
    const [row] = rows("SELECT user_id, anonymous_id, event, json FROM messages WHERE message_id = 'm-88'");
    assert.ok(row);
    assert.equal(row.user_id, 'u\ufffd');
    assert.equal(row.anonymous_id, 'lone\ufffdx');
    assert.equal(row.event, 'Smile \u{1f600}');
    const stored = JSON.parse(row.json as string) as { properties: Record<string, string> };
    assert.deepEqual(stored.properties, { 'k\ufffd': 'v\ufffd', ok: '\\ud800 is text' });
    // Found by what it now holds, through the column a test filters on.
    assert.equal(rows("SELECT COUNT(*) AS n FROM messages WHERE anonymous_id = 'lone' || char(65533) || 'x'")[0]?.n, 1);
    // The receiver gets the same text, as UTF-8 bytes.
    const sentOf = (): string | undefined => receiver.received.map((r) => r.body.toString('utf8')).find((b) => b.includes('"m-88"'));
    for (let seen = before; sentOf() === undefined && seen < before + 50; seen++) {
      clock.advance(1);
      await receiver.waitFor(seen + 1);
    }
    const sent = sentOf();
    assert.ok(sent, 'delivered');
    assert.ok(sent.includes('lone\ufffdx') && sent.includes('"k\ufffd":"v\ufffd"') && !/\\ud[89a-f]/i.test(sent.replace('\\\\ud800', '')), sent);
  });

  test('single-call paths, batch context merge and timestamps reach the stored message', async () => {
    assert.equal((await h.post('/v1/identify', { userId: 'u-80', traits: { plan: 'pro' }, messageId: 'm-80' })).status, 200);
    await h.post('/v1/batch', {
      context: { library: { name: 'analytics-go', version: '2.1.0' } },
      sentAt: '2026-11-22T12:00:10+0000',
      batch: [track(81, { timestamp: '2026-11-22T12:00:00+0000', context: { locale: 'fr' } })],
    });
    const msg = JSON.parse(String(rows("SELECT json FROM messages WHERE message_id = 'm-81'")[0]?.json)) as Record<string, unknown>;
    assert.deepEqual(msg.context, { library: { name: 'analytics-go', version: '2.1.0' }, locale: 'fr', ip: '127.0.0.1' });
    assert.equal(msg.originalTimestamp, '2026-11-22T12:00:00+0000');
    // receivedAt − (sentAt − timestamp) = receivedAt − 10 s
    assert.equal(Date.parse(String(msg.receivedAt)) - Date.parse(String(msg.timestamp)), 10_000);
    assert.equal(JSON.parse(String(rows("SELECT json FROM messages WHERE message_id = 'm-80'")[0]?.json)).type, 'identify');
  });

  /** JSON text nested `levels` objects deep, built as text: the test's own JSON.stringify would overflow. */
  const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const json = (value: unknown): string => JSON.stringify(value);

  test('a message nested deeper than 100 levels refuses the request with a 400 naming the item and the limit', async () => {
    // The reviewer's case: about 4,100 levels fit in 32 KB and used to overflow the stack (500).
    const items = [json(track(90)), json(track(91)), json(track(92)), `{"type":"track","userId":"u","event":"E","messageId":"m-93","properties":${nested(5000)}}`];
    const deep = await h.post('/v1/batch', null, { raw: `{"batch":[${items.join(',')}]}` });
    assert.equal(deep.status, 400);
    assert.equal(deep.body.code, 'message_too_deep');
    assert.equal(deep.body.message, 'batch[3] is nested 5001 levels deep (deepest under "properties"); the limit is 100 levels');
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-90','m-93')").length, 0, 'nothing of a refused request is kept');

    const single = await h.post('/v1/identify', null, { raw: `{"userId":"u","traits":${nested(4100)}}`, gzip: true });
    assert.equal(single.status, 400);
    assert.equal(single.body.message, 'the message is nested 4101 levels deep (deepest under "traits"); the limit is 100 levels');

    const context = await h.post('/v1/batch', null, { raw: `{"context":${nested(100)},"batch":[${json(track(94))}]}` });
    assert.equal(context.status, 400);
    assert.match(String(context.body.message), /^the batch's context \(inside each message\) is nested 101 levels deep/);
    // Found by the fuzz test: a deep array as the batch's context was serialized to describe it.
    const arrayContext = await h.post('/v1/batch', null, { raw: `{"context":${'['.repeat(10_000)}${']'.repeat(10_000)},"batch":[]}` });
    assert.equal(arrayContext.status, 400);
    assert.equal(arrayContext.body.code, 'message_too_deep');

    // At the limit it is accepted, and a deep field the ingest ignores harms nobody.
    const atLimit = `{"type":"track","userId":"u","event":"E","messageId":"m-95","properties":${nested(99)}}`;
    assert.equal((await h.post('/v1/batch', null, { raw: `{"batch":[${atLimit}]}` })).status, 200);
    assert.equal((await h.post('/v1/batch', null, { raw: `{"ignored":${nested(5000)},"batch":[${json(track(96))}]}` })).status, 200);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-95','m-96')").length, 2);
  });

  test('an item with an object where the type should be is dropped naming the field; its neighbours are kept', async () => {
    const res = await h.post('/v1/batch', null, {
      raw: `{"batch":[${JSON.stringify(track(97))},{"type":{"toString":0},"userId":"u"},${JSON.stringify(track(98))}]}`,
    });
    assert.equal(res.status, 200);
    assert.equal(rows("SELECT 1 FROM messages WHERE message_id IN ('m-97','m-98')").length, 2);
    const [request] = rows('SELECT id FROM requests ORDER BY id DESC LIMIT 1');
    const dropped = h.engine.stores.requests.droppedItemsOf(Number(request?.id));
    assert.deepEqual(
      dropped.map((d) => [d.index, d.kind, d.reason, d.raw]),
      [[1, 'invalid', 'batch[1].type: must be one of identify, track, page, screen, group, alias; got an object', '{"type":{"toString":0},"userId":"u"}']],
    );
  });

  test('wrongly typed optional fields are stored as warnings beside the message; its JSON is what it was', async () => {
    const res = await h.post('/v1/batch', {
      sentAt: 12,
      batch: [track(99, { properties: [1, 2], context: 'web', timestamp: 1763812800000 }), track(100)],
    });
    assert.equal(res.status, 200);
    const [bad, good] = rows("SELECT json, warnings FROM messages WHERE message_id IN ('m-99','m-100') ORDER BY id");
    assert.deepEqual(
      (JSON.parse(String(bad?.warnings)) as { field: string; problem: string; value: string }[]).map((w) => [w.field, w.value]),
      [
        ['sentAt', '12'],
        ['batch[0].timestamp', '1763812800000'],
        ['batch[0].context', '"web"'],
        ['batch[0].properties', '[1,2]'],
      ],
    );
    const stored = JSON.parse(String(bad?.json)) as Record<string, unknown>;
    assert.equal(stored.properties, undefined);
    assert.equal(stored.warnings, undefined, 'warnings never enter the message that destinations receive');
    assert.deepEqual(stored.context, { ip: '127.0.0.1' });
    assert.deepEqual(JSON.parse(String(good?.warnings)), [{ field: 'sentAt', problem: 'must be an ISO 8601 time as a string; got a number; left out', value: '12' }]);
    const clean = await h.post('/v1/batch', { batch: [track(101)] });
    assert.equal(clean.status, 200);
    assert.deepEqual(rows("SELECT warnings FROM messages WHERE message_id = 'm-101'"), [{ warnings: null }]);
  });

  test('anything but POST to a Tracking API path is refused with a reason', async () => {
    const get = await fetch(`${h.server.url}/v1/batch`);
    assert.equal(get.status, 405);
    const other = await fetch(`${h.server.url}/v2/elsewhere`, { method: 'POST', body: '{}' });
    assert.equal(other.status, 404);
    assert.match(((await other.json()) as { message: string }).message, /POST \/v1\/batch/);
  });
});
