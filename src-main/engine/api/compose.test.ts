import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineApi, type ConfigWhat } from './index';
import { COMPOSE_FIELDS, MAX_TEMPLATES, validateComposeShape } from './compose';
import { startHarness, configWith, type Harness } from '../testing/harness';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { ValidationError } from '../../../src-shared/settings';
import type { ComposeInput, ComposeType, EngineApi } from '../../../src-shared/api';
import { clientBatchBody } from '../../../src-shared/compose-preview';

interface StoredMessage {
  message_id: string;
  type: string;
  json: string;
}

const storedMessages = (h: Harness, ids: string[]): StoredMessage[] =>
  h.inspect.all(`SELECT message_id, type, json FROM messages WHERE message_id IN (${ids.map(() => '?').join(',')}) ORDER BY id`, ...ids) as StoredMessage[];

/** The field errors a call is refused with, as `field: message` lines (none when it succeeds). */
async function refusal(call: () => Promise<unknown>): Promise<string[]> {
  try {
    await call();
    return [];
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.errors.map((e) => `${e.field}: ${e.message}`);
  }
}

async function withEngine(run: (ctx: { h: Harness; api: EngineApi; receiver: Receiver; configs: ConfigWhat[] }) => Promise<void>): Promise<void> {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  const configs: ConfigWhat[] = [];
  const api = createEngineApi(h.engine, { ingestUrl: () => h.server.url, onConfig: (what) => configs.push(what) });
  try {
    await run({ h, api, receiver, configs });
  } finally {
    await h.close();
    await receiver.close();
  }
}

const CALLS: { type: ComposeType; message: Record<string, unknown>; expect: Record<string, unknown> }[] = [
  {
    type: 'track',
    message: { userId: 'u-1', event: 'Order Completed', properties: { total: 42 }, context: { locale: 'de-DE' } },
    expect: { userId: 'u-1', event: 'Order Completed', properties: { total: 42 } },
  },
  { type: 'identify', message: { userId: 'u-1', traits: { plan: 'pro' } }, expect: { userId: 'u-1', traits: { plan: 'pro' } } },
  {
    type: 'page',
    message: { userId: 'u-1', name: 'Pricing', category: 'Docs', properties: { url: 'https://example.com/pricing', path: '/pricing' } },
    expect: { userId: 'u-1', name: 'Pricing', category: 'Docs', properties: { url: 'https://example.com/pricing', path: '/pricing' } },
  },
  {
    type: 'screen',
    message: { anonymousId: 'anon-7', name: 'Home', properties: { tab: 'feed' } },
    expect: { anonymousId: 'anon-7', name: 'Home', properties: { tab: 'feed' } },
  },
  { type: 'group', message: { userId: 'u-1', groupId: 'acme', traits: { seats: 5 } }, expect: { userId: 'u-1', groupId: 'acme', traits: { seats: 5 } } },
  { type: 'alias', message: { previousId: 'anon-7', userId: 'u-1' }, expect: { 'Previous ID': 'anon-7', 'User ID': 'u-1' } },
];

test('compose: each of the six calls goes through the client library to the ingest and on to the receiver', async () => {
  await withEngine(async ({ h, api, receiver }) => {
    for (const [i, call] of CALLS.entries()) {
      const result = await api.composeEvents({ source: 'backend', type: call.type, message: call.message });
      assert.equal(result.sent, 1, call.type);
      assert.equal(result.endpoint, `${h.server.url}/v1/batch`);
      assert.equal(result.messageIds.length, 1);
      const [messageId] = result.messageIds as [string];

      const [stored] = storedMessages(h, [messageId]);
      assert.equal(stored?.type, call.type, `${call.type} stored by the ingest`);
      const message = JSON.parse(stored.json) as Record<string, unknown>;
      assert.equal((message.context as { library?: { name?: string } }).library?.name, 'hookbench-client', 'sent by the client library');

      await receiver.waitFor(i + 1);
      const payload = JSON.parse(receiver.received[i]!.body.toString('utf8')) as Record<string, unknown>;
      assert.equal(payload.type, call.type);
      assert.equal(payload.messageId, messageId);
      for (const [key, value] of Object.entries(call.expect)) assert.deepEqual(payload[key], value, `${call.type}.${key}`);
      if (call.type === 'alias') assert.equal('userId' in payload, false, 'an alias payload has no userId key');
    }
  });
});

test('compose: copies each get their own messageId; a given messageId is sent every time and deduped by the ingest', async () => {
  await withEngine(async ({ h, api, receiver }) => {
    const three = await api.composeEvents({ source: 'backend', type: 'track', message: { userId: 'u', event: 'Clicked' }, copies: 3 });
    assert.equal(three.sent, 3);
    assert.equal(new Set(three.messageIds).size, 3);
    assert.equal(three.notice, undefined);
    assert.equal(storedMessages(h, three.messageIds).length, 3);
    await receiver.waitFor(3);

    const same = await api.composeEvents({ source: 'backend', type: 'track', message: { userId: 'u', event: 'Clicked', messageId: 'fixed-1' }, copies: 3 });
    assert.equal(same.sent, 3, 'the ingest acknowledges every copy');
    assert.deepEqual(same.messageIds, ['fixed-1', 'fixed-1', 'fixed-1']);
    assert.match(same.notice ?? '', /all 3 copies carry messageId "fixed-1".*2 as duplicates/);
    assert.equal(storedMessages(h, ['fixed-1']).length, 1, 'one message kept');
    const request = h.inspect.get('SELECT accepted, duplicates FROM requests ORDER BY id DESC LIMIT 1') as { accepted: number; duplicates: number };
    assert.deepEqual({ ...request }, { accepted: 1, duplicates: 2 });
    await waitUntil(() => h.engine.stores.log.listDeliveries({ limit: 10 }).length === 4 && h.engine.stores.log.listDeliveries({ limit: 10 }).every((d) => d.status === 'succeeded'), 'four deliveries to succeed');
    assert.equal(receiver.received.length, 4, 'the duplicates were not delivered');
  });
});

test('compose: 20 copies of a 30 KB track are all taken by the ingest, in requests within its batch limit', async () => {
  await withEngine(async ({ h, api }) => {
    // About 30,000 bytes of JSON each (with messageId and timestamp): 17 fit in one request, over 500,000 bytes.
    const message = { userId: 'u', event: 'Heavy', properties: { blob: 'x'.repeat(29_850) } };
    const result = await api.composeEvents({ source: 'backend', type: 'track', message, copies: 20 });
    assert.equal(result.sent, 20);
    assert.equal(storedMessages(h, result.messageIds).length, 20);
    const requests = h.inspect.all('SELECT http_status, bytes FROM requests ORDER BY id') as { http_status: number; bytes: number }[];
    assert.deepEqual(requests.map((r) => r.http_status), [200, 200]);
    const largest = Math.max(...requests.map((r) => r.bytes));
    assert.ok(largest > 500_000 && largest <= 512_000, `the fuller request packs close to the limit (${largest} bytes)`);
  });
});

test('compose refuses what it cannot send, naming the field and the limit', async () => {
  await withEngine(async ({ api, receiver }) => {
    const compose = (input: unknown): Promise<string[]> => refusal(() => api.composeEvents(input as ComposeInput));
    assert.deepEqual(await compose({ source: 'nope', type: 'track', message: { userId: 'u', event: 'E' } }), [
      'compose.source: no source named "nope"; sources: "backend"',
    ]);
    const big = { blob: 'x'.repeat(33_000) };
    const [tooBig] = await compose({ source: 'backend', type: 'track', message: { userId: 'u', event: 'E', properties: big } });
    assert.match(tooBig ?? '', /^compose\.message\.properties: is too large: the call is \d+ bytes of JSON, over the limit of 32768 bytes \(32 KB\) for one call; nothing was sent$/);
    assert.deepEqual(await compose({ source: 'backend', type: 'track', message: { userId: 'u' } }), ['compose.message.event: is required']);
    assert.deepEqual(await compose({ source: 'backend', type: 'identify', message: { traits: {} } }), [
      'compose.message.userId: userId or anonymousId is required',
    ]);
    assert.deepEqual(await compose({ source: 'backend', type: 'group', message: { userId: 'u', groupId: 'g', traits: [1] } }), [
      'compose.message.traits: must be an object, got an array',
    ]);
    assert.deepEqual(await compose({ source: 'backend', type: 'alias', message: { userId: 'u', previousId: 'p', anonymousId: 'a' } }), [
      `compose.message.anonymousId: is not a field of an alias call (fields: ${COMPOSE_FIELDS.alias.join(', ')})`,
    ]);
    assert.deepEqual(await compose({ source: 'backend', type: 'track', message: { userId: 'u', event: 'E', timestamp: 'yesterday' } }), [
      'compose.message.timestamp: must be an ISO 8601 string or a Date, got "yesterday"',
    ]);
    assert.deepEqual(await compose({ source: 'backend', type: 'track', message: { userId: 'u', event: 'E' }, copies: 1001 }), [
      'compose.copies: must be a whole number from 1 to 1000',
    ]);
    assert.deepEqual(await compose({ source: '', type: 'fetch', message: null }), [
      'compose.source: is required: the name of a source',
      'compose.type: must be one of track, identify, page, screen, group, alias',
      'compose.message: must be an object of the call’s fields',
    ]);
    assert.equal(receiver.received.length, 0, 'nothing refused was sent');
  });
});

test('compose says so when the Tracking API is not listening, and reports what the ingest refused', async () => {
  await withEngine(async ({ h }) => {
    const notYet = createEngineApi(h.engine, { ingestUrl: () => null });
    await assert.rejects(notYet.composeEvents({ source: 'backend', type: 'track', message: { userId: 'u', event: 'E' } }), /the Tracking API is not listening yet/);

    // Another engine's ingest does not know this source's write key: the client's 'error' event comes back as a refusal.
    const other = await startHarness({ sources: [], destinations: [] });
    try {
      const elsewhere = createEngineApi(h.engine, { ingestUrl: () => other.server.url });
      const [line] = await refusal(() => elsewhere.composeEvents({ source: 'backend', type: 'track', message: { userId: 'u', event: 'E' } }));
      assert.match(line ?? '', /^compose\.source: the ingest refused this source’s write key \(HTTP 200: .*unknown_write_key/);
    } finally {
      await other.close();
    }
  });
});

test('templates: saved by name in the settings table, replaced, listed by name, deleted', async () => {
  await withEngine(async ({ h, api, configs }) => {
    const input = { source: 'backend', type: 'track' as const, message: { userId: 'u', event: 'Signed Up' }, copies: 2 };
    const saved = await api.saveTemplate({ name: '  signup ', input });
    assert.equal(saved.name, 'signup', 'the name is trimmed');
    assert.deepEqual(saved.input, input);
    assert.equal(saved.savedAt, new Date(h.clock.now()).toISOString());
    await api.saveTemplate({ name: 'Alias', input: { source: 'backend', type: 'alias', message: { userId: 'u', previousId: 'a' } } });
    await api.saveTemplate({ name: 'signup', input: { ...input, copies: 5 } });
    const list = await api.listTemplates();
    assert.deepEqual(list.map((t) => t.name), ['Alias', 'signup']);
    assert.equal(list[1]?.input.copies, 5, 'saving under an existing name replaces it');
    assert.equal('copies' in (list[0]?.input ?? {}), false, 'one copy is the default and not stored');

    // The settings table survives a new API over the same engine (and a restart, being SQLite).
    assert.deepEqual(await createEngineApi(h.engine).listTemplates(), list);

    await api.deleteTemplate('Alias');
    assert.deepEqual((await api.listTemplates()).map((t) => t.name), ['signup']);
    assert.deepEqual(await refusal(() => api.deleteTemplate('Alias')), ['name: no template named "Alias"']);
    assert.deepEqual(configs, ['templates', 'templates', 'templates', 'templates']);
  });
});

test('templates: refused without a usable name or input, and beyond the limit', async () => {
  await withEngine(async ({ api }) => {
    const input = { source: 'backend', type: 'identify' as const, message: { userId: 'u' } };
    const save = (t: unknown): Promise<string[]> => refusal(() => api.saveTemplate(t as Parameters<EngineApi['saveTemplate']>[0]));
    assert.deepEqual(await save({ name: ' ', input }), ['template.name: is required']);
    assert.deepEqual(await save({ name: 'n'.repeat(101), input }), ['template.name: is 101 characters; the limit is 100']);
    assert.deepEqual(await save({ name: 'x', input: { ...input, type: 'delete' } }), ['template.input.type: must be one of track, identify, page, screen, group, alias']);
    assert.deepEqual(await save({ name: 'x', input: { ...input, message: { userId: 'u', event: 'E' } } }), [
      `template.input.message.event: is not a field of an identify call (fields: ${COMPOSE_FIELDS.identify.join(', ')})`,
    ]);
    assert.match((await save({ name: 'x', input: { ...input, message: { userId: 'u', traits: { a: 'x'.repeat(70_000) } } } }))[0] ?? '', /^template\.input: is \d+ bytes of JSON; a template holds at most 65536 bytes$/);

    for (let i = 0; i < MAX_TEMPLATES; i++) await api.saveTemplate({ name: `t${i}`, input });
    assert.deepEqual(await save({ name: 'one more', input }), ['template.name: there are already 200 templates (the limit); delete one first']);
    assert.deepEqual(await save({ name: 't7', input }), [], 'replacing one at the limit is fine');
    assert.equal((await api.listTemplates()).length, MAX_TEMPLATES);
  });
});

test('validateComposeShape: defaults copies to 1 and names every unknown key', () => {
  assert.deepEqual(validateComposeShape({ source: 's', type: 'page', message: {} }, 'c'), {
    value: { source: 's', type: 'page', message: {}, copies: 1 },
    errors: [],
  });
  assert.deepEqual(validateComposeShape({ source: 's', type: 'page', message: { evnt: 'x' }, count: 2 }, 'c').errors, [
    { field: 'c.count', message: 'is not a compose field' },
    { field: 'c.message.evnt', message: `is not a field of a page call (fields: ${COMPOSE_FIELDS.page.join(', ')})` },
  ]);
  assert.deepEqual(validateComposeShape('track', 'c').errors, [{ field: 'c', message: 'must be an object { source, type, message, copies? }' }]);
});

test('the preview of a composed call is, byte for byte, the body the client library posts', async () => {
  const ingest = await new Receiver().start('/');
  ingest.respond((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"success":true}');
  });
  const h = await startHarness(configWith('http://127.0.0.1:9/unused'));
  const api = createEngineApi(h.engine, { ingestUrl: () => ingest.url.replace(/\/$/, '') });
  try {
    const withEverything: { type: ComposeType; message: Record<string, unknown> } = {
      type: 'page',
      message: {
        anonymousId: 'anon-1',
        name: 'Pricing',
        category: 'Docs',
        properties: { path: '/pricing' },
        context: { locale: 'de-DE' },
        integrations: { All: false, Webhooks: true },
        timestamp: '2026-11-01T10:00:00.000Z',
        messageId: 'given-id',
      },
    };
    for (const [i, call] of [...CALLS, withEverything].entries()) {
      await api.composeEvents({ source: 'backend', type: call.type, message: call.message });
      await ingest.waitFor(i + 1);
      const sent = ingest.received[i]!.body.toString('utf8');
      const parsed = JSON.parse(sent) as { batch: { messageId: string; timestamp: string }[]; sentAt: string };
      const made = { messageId: parsed.batch[0]!.messageId, timestamp: parsed.batch[0]!.timestamp, sentAt: parsed.sentAt };
      assert.equal(clientBatchBody(call.type, call.message, made), sent, call.type);
    }
    assert.equal(JSON.parse(ingest.received.at(-1)!.body.toString('utf8')).batch[0].messageId, 'given-id');
  } finally {
    await h.close();
    await ingest.close();
  }
});
