import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundMessage } from '../../../src-shared/events';
import { deletePayload, PayloadMappingError, serializePayload, toWebhookPayload } from './payloads';

const context = { ip: '203.0.113.7', library: { name: 'analytics-node', version: '3.1.0' } };
const TS = '2026-01-01T10:00:00.123Z';

function message(over: Partial<InboundMessage> & Pick<InboundMessage, 'type'>): InboundMessage {
  return {
    messageId: 'm-1',
    userId: 'u-1',
    anonymousId: 'a-1',
    context,
    integrations: { All: true },
    timestamp: TS,
    originalTimestamp: '2026-01-01T10:00:00+0000',
    sentAt: '2026-01-01T10:00:01.000Z',
    receivedAt: '2026-01-01T10:00:01.500Z',
    ...over,
  };
}

const cases: { name: string; msg: InboundMessage; expected: Record<string, unknown> }[] = [
  {
    name: 'track with properties (numeric-looking strings untouched)',
    msg: message({ type: 'track', event: 'Order Completed', properties: { total: '30.00', items: 2 } }),
    expected: {
      version: 1, type: 'track', userId: 'u-1', event: 'Order Completed', properties: { total: '30.00', items: 2 },
      messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context,
    },
  },
  {
    name: 'track without properties gets {}',
    msg: message({ type: 'track', event: 'Signed Up' }),
    expected: { version: 1, type: 'track', userId: 'u-1', event: 'Signed Up', properties: {}, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'page with name, category and the four documented properties',
    msg: message({
      type: 'page', name: 'Pricing', category: 'Docs',
      properties: { path: '/pricing', referrer: 'https://example.com/', title: 'Pricing', url: 'https://example.com/pricing', extra: true },
    }),
    expected: {
      version: 1, type: 'page', userId: 'u-1', name: 'Pricing', category: 'Docs',
      properties: { path: '/pricing', referrer: 'https://example.com/', title: 'Pricing', url: 'https://example.com/pricing', extra: true },
      messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context,
    },
  },
  {
    name: 'page without name, category or properties',
    msg: message({ type: 'page' }),
    expected: { version: 1, type: 'page', userId: 'u-1', properties: {}, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'screen with name and properties',
    msg: message({ type: 'screen', name: 'Home', properties: { variant: 'b' } }),
    expected: { version: 1, type: 'screen', userId: 'u-1', name: 'Home', properties: { variant: 'b' }, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'screen without name or properties: name null, no properties key',
    msg: message({ type: 'screen' }),
    expected: { version: 1, type: 'screen', userId: 'u-1', name: null, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'identify with traits',
    msg: message({ type: 'identify', traits: { email: 'ada@example.com', vip_audience: true } }),
    expected: { version: 1, type: 'identify', userId: 'u-1', traits: { email: 'ada@example.com', vip_audience: true }, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'identify without traits gets {}',
    msg: message({ type: 'identify' }),
    expected: { version: 1, type: 'identify', userId: 'u-1', traits: {}, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'group with groupId and traits',
    msg: message({ type: 'group', groupId: 'g-9', traits: { plan: 'team' } }),
    expected: { version: 1, type: 'group', userId: 'u-1', groupId: 'g-9', traits: { plan: 'team' }, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'group without traits gets {}',
    msg: message({ type: 'group', groupId: 'g-9' }),
    expected: { version: 1, type: 'group', userId: 'u-1', groupId: 'g-9', traits: {}, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'alias: "Previous ID" and "User ID", no userId key',
    msg: message({ type: 'alias', previousId: 'anon-7', userId: 'u-1' }),
    expected: { version: 1, type: 'alias', 'Previous ID': 'anon-7', 'User ID': 'u-1', messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'only anonymousId: userId null',
    msg: message({ type: 'track', event: 'Viewed', userId: null }),
    expected: { version: 1, type: 'track', userId: null, event: 'Viewed', properties: {}, messageId: 'm-1', anonymousId: 'a-1', timestamp: TS, context },
  },
  {
    name: 'no anonymousId: no anonymousId key',
    msg: message({ type: 'identify', anonymousId: null }),
    expected: { version: 1, type: 'identify', userId: 'u-1', traits: {}, messageId: 'm-1', timestamp: TS, context },
  },
];

for (const c of cases) {
  test(`toWebhookPayload: ${c.name}`, () => {
    const payload = toWebhookPayload(c.msg);
    assert.deepEqual(payload, c.expected);
    // Ingest-side fields never leak into the outbound body.
    for (const key of ['integrations', 'receivedAt', 'sentAt', 'originalTimestamp', 'previousId', 'writeKey']) {
      assert.equal(key in payload, false, `${key} must not be in the payload`);
    }
  });
}

test('toWebhookPayload does not mutate the message', () => {
  const msg = message({ type: 'track', event: 'E', properties: { a: 1 } });
  const before = structuredClone(msg);
  toWebhookPayload(msg);
  assert.deepEqual(msg, before);
});

test('toWebhookPayload refuses a message missing a field its type needs', () => {
  const missing: [InboundMessage, string][] = [
    [message({ type: 'track' }), 'event'],
    [message({ type: 'group' }), 'groupId'],
    [message({ type: 'alias', userId: 'u' }), 'previousId'],
    [message({ type: 'alias', previousId: 'p', userId: null }), 'userId'],
  ];
  for (const [msg, field] of missing) {
    assert.throws(() => toWebhookPayload(msg), (err: unknown) => err instanceof PayloadMappingError && err.field === field && err.message.includes(field));
  }
});

test('deletePayload has exactly type, userId and timestamp', () => {
  const p = deletePayload('u-1', TS);
  assert.deepEqual(Object.keys(p), ['type', 'userId', 'timestamp']);
  assert.deepEqual(p, { type: 'delete', userId: 'u-1', timestamp: TS });
  assert.equal(serializePayload(p).toString('utf8'), `{"type":"delete","userId":"u-1","timestamp":"${TS}"}`);
});

test('serializePayload: compact JSON, UTF-8, version first and the same bytes every time', () => {
  const msg = message({ type: 'track', event: 'Café ☕ 🎉', properties: { name: 'Zoë', city: '東京' }, anonymousId: null });
  const bytes = serializePayload(toWebhookPayload(msg));
  const text = bytes.toString('utf8');
  assert.equal(
    text,
    '{"version":1,"type":"track","userId":"u-1","event":"Café ☕ 🎉","properties":{"name":"Zoë","city":"東京"},' +
      `"messageId":"m-1","timestamp":"${TS}","context":{"ip":"203.0.113.7","library":{"name":"analytics-node","version":"3.1.0"}}}`,
  );
  // Non-ASCII travels as raw UTF-8, not \u escapes: "é" is two bytes, "🎉" four.
  assert.ok(bytes.includes(Buffer.from([0xc3, 0xa9])));
  assert.ok(bytes.includes(Buffer.from([0xf0, 0x9f, 0x8e, 0x89])));
  assert.equal(bytes.length, Buffer.byteLength(text, 'utf8'));
  assert.deepEqual(serializePayload(toWebhookPayload(msg)), bytes);
  assert.deepEqual(JSON.parse(text), toWebhookPayload(msg));
});

test('serializePayload keeps a lone surrogate as an escape instead of losing it', () => {
  const bytes = serializePayload(toWebhookPayload(message({ type: 'track', event: 'x\ud800y' })));
  assert.ok(bytes.toString('utf8').includes('"event":"x\\ud800y"'));
  assert.equal(bytes.includes(Buffer.from([0xef, 0xbf, 0xbd])), false, 'no U+FFFD replacement character');
});

test('alias serializes its spaced keys and no userId', () => {
  const text = serializePayload(toWebhookPayload(message({ type: 'alias', previousId: 'p', userId: 'u', anonymousId: null }))).toString('utf8');
  assert.equal(text, `{"version":1,"type":"alias","Previous ID":"p","User ID":"u","messageId":"m-1","timestamp":"${TS}","context":${JSON.stringify(context)}}`);
});
