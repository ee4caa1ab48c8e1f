import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { ManualClock } from './clock';
import { createEngineApi } from './api';
import { startHarness, configWith } from './testing/harness';
import { Receiver, status } from './testing/receiver';
import { waitUntil } from './testing/wait';
import { ValidationError } from '../../src-shared/settings';
import { COMPOSE_TYPES } from '../../src-shared/api';

const hmac = (body: Buffer): string => createHmac('sha1', 's3cret').update(body).digest('hex');

async function refusal(p: Promise<unknown>): Promise<{ field: string; message: string }[]> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.errors;
  }
  assert.fail('expected a refusal');
}

test('a test event goes to every URL of the destination like real traffic: mapped, signed, static headers per URL, marked as a test, not in Inbound', async () => {
  const a = await new Receiver().start('/a');
  const b = await new Receiver().start('/b');
  const config = configWith([a.url, b.url]);
  config.destinations[0]!.webhooks = [
    { url: a.url, headers: { 'X-Team': 'alpha' } },
    { url: b.url, headers: { 'X-Team': 'beta', Authorization: 'Bearer b-token' } },
  ];
  const h = await startHarness(config);
  const api = createEngineApi(h.engine);
  try {
    const requestsBefore = (await api.listRequests()).items.length;
    const id = await api.sendTestEvent({ destination: 'Local receiver', type: 'track' });
    await Promise.all([a.waitFor(1), b.waitFor(1)]);
    const got = a.received[0]!;
    const body = JSON.parse(got.body.toString('utf8')) as Record<string, unknown>;
    assert.equal(body.type, 'track');
    assert.equal(body.event, 'Order Completed');
    assert.equal(typeof body.messageId, 'string');
    const context = body.context as Record<string, unknown>;
    assert.ok(context.library && context.ip && context.userAgent, 'the sample has a real-looking context');
    assert.equal(got.headers['x-signature'], hmac(got.body));
    assert.deepEqual(b.received[0]!.body, got.body, 'both URLs get the same bytes');
    assert.equal(got.headers['x-team'], 'alpha');
    assert.equal(b.received[0]!.headers['x-team'], 'beta');
    assert.equal(b.received[0]!.headers.authorization, 'Bearer b-token');

    await waitUntil(() => h.engine.stores.log.getDelivery(id)?.status === 'succeeded', 'the test event to succeed');
    const done = (await api.getDelivery(id))!;
    assert.equal(done.test, true);
    assert.equal(done.type, 'track');
    assert.equal(done.body, got.body.toString('utf8'), 'the stored bytes are the bytes sent');
    assert.equal((await api.listDeliveries()).items.find((d) => d.id === id)?.test, true);
    assert.equal((await api.listRequests()).items.length, requestsBefore, 'a test event is not a Tracking API call: no Inbound request');

    // Each attempt keeps the headers it put on the wire, with its own URL's static headers.
    const byUrl = new Map(done.attempts.map((x) => [x.url, x]));
    for (const [receiver, team] of [[a, 'alpha'], [b, 'beta']] as const) {
      const sent = byUrl.get(receiver.url)?.sentHeaders;
      assert.ok(sent, `headers kept for ${receiver.url}`);
      const names = sent.map(([n]) => n.toLowerCase());
      assert.ok(names.includes('host') && names.includes('content-length'), names.join(', '));
      const value = (name: string): string | undefined => sent.find(([n]) => n.toLowerCase() === name)?.[1];
      assert.equal(value('x-team'), team);
      assert.equal(value('content-length'), String(got.body.length));
      // What the receiver got is exactly what was recorded, header by header.
      const seen = receiver.received[0]!.headers;
      for (const [n, v] of sent) assert.equal(seen[n.toLowerCase()], v, n);
      assert.equal(Object.keys(seen).length, sent.length, 'no header reached the receiver that was not recorded');
    }
  } finally {
    await h.close();
    await Promise.all([a.close(), b.close()]);
  }
});

test('a test event to one URL reaches only that URL, and is retried on the schedule like any delivery', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const a = await new Receiver().start('/a');
  const b = await new Receiver().start('/b');
  b.respond(status(500));
  const h = await startHarness(configWith([a.url, b.url]), { clock });
  const api = createEngineApi(h.engine);
  try {
    const id = await api.sendTestEvent({ destination: 'Local receiver', url: b.url, type: 'identify' });
    await b.waitFor(1);
    const first = await waitUntil(() => {
      const d = h.engine.stores.log.getDelivery(id);
      return d?.status === 'retrying' ? d : null;
    }, 'the first failure');
    b.respond(status(200));
    clock.advance(first.next_attempt_at! - clock.now());
    await b.waitFor(2);
    await waitUntil(() => h.engine.stores.log.getDelivery(id)?.status === 'succeeded', 'the retry to succeed');
    assert.equal(a.received.length, 0, 'the other URL got nothing');
    assert.deepEqual(b.received[1]!.body, b.received[0]!.body, 'a retry resends the same bytes');
    const detail = await api.getDelivery(id);
    assert.equal(detail?.attempts.length, 2);
    assert.equal(detail?.targetUrl, b.url);
    assert.equal(JSON.parse(detail!.body!).type, 'identify');
  } finally {
    await h.close();
    await Promise.all([a.close(), b.close()]);
  }
});

test('every type makes a sample the mapping accepts; a switched-off destination still gets an explicit test', async () => {
  const a = await new Receiver().start();
  const h = await startHarness(configWith(a.url, { enabled: false }));
  const api = createEngineApi(h.engine);
  try {
    const ids = [];
    for (const type of COMPOSE_TYPES) ids.push(await api.sendTestEvent({ destination: 'Local receiver', type }));
    await a.waitFor(COMPOSE_TYPES.length);
    const types = a.received.map((r) => (JSON.parse(r.body.toString('utf8')) as { type: string }).type).sort();
    assert.deepEqual(types, [...COMPOSE_TYPES].sort());
    const messageIds = new Set(a.received.map((r) => (JSON.parse(r.body.toString('utf8')) as { messageId: string }).messageId));
    assert.equal(messageIds.size, COMPOSE_TYPES.length, 'each test event has its own messageId');
  } finally {
    await h.close();
    await a.close();
  }
});

test('sendTestEvent refuses what it cannot send, naming the field', async () => {
  const a = await new Receiver().start();
  const h = await startHarness(configWith(a.url));
  const api = createEngineApi(h.engine);
  try {
    const [noDest] = await refusal(api.sendTestEvent({ destination: 'Nope', type: 'track' }));
    assert.equal(noDest?.field, 'testEvent.destination');
    assert.match(noDest!.message, /no destination named "Nope"/);
    const [badUrl] = await refusal(api.sendTestEvent({ destination: 'Local receiver', url: 'http://127.0.0.1:1/other', type: 'track' }));
    assert.equal(badUrl?.field, 'testEvent.url');
    assert.match(badUrl!.message, /is not a URL of "Local receiver"/);
    const [badType] = await refusal(api.sendTestEvent({ destination: 'Local receiver', type: 'boom' as 'track' }));
    assert.equal(badType?.field, 'testEvent.type');
    assert.match(badType!.message, /must be one of track, identify/);
    assert.equal(a.received.length, 0);
  } finally {
    await h.close();
    await a.close();
  }
});

test('an attempt that wrote no request keeps no wire headers; an attempt recorded before they were kept reads as null', async () => {
  const closed = await new Receiver().start();
  const url = closed.url;
  await closed.close();
  const h = await startHarness(configWith(url));
  const api = createEngineApi(h.engine);
  try {
    const id = await api.sendTestEvent({ destination: 'Local receiver', type: 'page' });
    await waitUntil(() => h.engine.stores.log.attemptsOf(id).some((a) => a.state === 'done'), 'the refused attempt');
    const [refused] = (await api.getDelivery(id))!.attempts;
    assert.equal(refused?.errorKind, 'connect');
    assert.equal(refused?.sentHeaders, null, 'nothing was written on a refused connection');
    assert.equal(refused?.requestHeaders['X-Signature']?.length, 40, 'the headers it would have sent stay');

    // A row as an older build wrote it: no sent_headers at all.
    h.inspect.run('UPDATE attempts SET sent_headers = NULL WHERE delivery_id = ?', id);
    assert.equal((await api.getDelivery(id))!.attempts[0]?.sentHeaders, null);
  } finally {
    await h.close();
  }
});
