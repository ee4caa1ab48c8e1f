import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimestamp } from './timestamps';
import { webhooksEnabled } from './integrations';
import { normalizeItem } from './normalize';
import { ingestPath } from './handler';

test('parseTimestamp reads every shape real SDKs send (wire-facts 11)', () => {
  const cases: [string, string | null][] = [
    ['2009-11-10T23:00:00+0000', '2009-11-10T23:00:00.000Z'], // analytics-go v2
    ['2009-11-10T23:00:00.123456789Z', '2009-11-10T23:00:00.123Z'], // Go v3, nanoseconds
    ['2026-11-22T12:34:56.789Z', '2026-11-22T12:34:56.789Z'], // node
    ['2026-11-22T12:34:56.789012+00:00', '2026-11-22T12:34:56.789Z'], // python, microseconds
    ['2026-11-22T14:34:56+02:00', '2026-11-22T12:34:56.000Z'],
    ['2026-11-22T07:04:56-0530', '2026-11-22T12:34:56.000Z'],
    ['2026-11-22', '2026-11-22T00:00:00.000Z'],
    ['yesterday', null],
    ['2026-13-01T00:00:00Z', null],
  ];
  for (const [input, expected] of cases) {
    const ms = parseTimestamp(input);
    assert.equal(ms === null ? null : new Date(ms).toISOString(), expected, input);
  }
});

test('webhooksEnabled honours Webhooks (case-sensitive) and All', () => {
  assert.equal(webhooksEnabled({}), true);
  assert.equal(webhooksEnabled({ Webhooks: false }), false);
  assert.equal(webhooksEnabled({ All: false }), false);
  assert.equal(webhooksEnabled({ All: false, Webhooks: true }), true);
  assert.equal(webhooksEnabled({ All: false, Webhooks: { some: 'setting' } }), true);
  assert.equal(webhooksEnabled({ All: false, webhooks: true }), false, 'keys match case-sensitively');
  assert.equal(webhooksEnabled({ All: true, Webhooks: false }), false);
});

test('ingestPath accepts every Tracking API path, with a doubled or trailing slash', () => {
  assert.equal(ingestPath('/v1/batch'), '/v1/batch');
  assert.equal(ingestPath('//v1/batch'), '/v1/batch');
  assert.equal(ingestPath('/v1/import'), '/v1/import');
  assert.equal(ingestPath('/v1/track/?x=1'), '/v1/track');
  assert.equal(ingestPath('/v1/screen'), '/v1/screen');
  assert.equal(ingestPath('/v1/unknown'), null);
  assert.equal(ingestPath('/'), null);
});

const env = { context: { library: { name: 'analytics-go', version: '2.1.0' } }, integrations: {}, sentAt: undefined };
const received = Date.parse('2026-11-22T12:00:00.000Z');

test('normalizeItem corrects clock skew from sentAt and keeps the client timestamp', () => {
  // Client clock is 1 h fast; the event happened 10 s before the client sent it.
  const r = normalizeItem(
    { type: 'track', userId: 'u1', event: 'E', timestamp: '2026-11-22T12:59:50.000Z', sentAt: '2026-11-22T13:00:00.000Z' },
    env,
    received,
  );
  assert.ok(r.ok);
  assert.equal(r.message.timestamp, '2026-11-22T11:59:50.000Z');
  assert.equal(r.message.originalTimestamp, '2026-11-22T12:59:50.000Z');
  assert.equal(r.message.receivedAt, '2026-11-22T12:00:00.000Z');
});

test('normalizeItem uses the envelope sentAt, merges batch context, coerces ids, generates messageId', () => {
  const r = normalizeItem(
    { type: 'identify', userId: 42, anonymousId: null, timestamp: '2026-11-22T11:00:00+0000', context: { ip: '1.2.3.4' } },
    { ...env, sentAt: '2026-11-22T11:00:05+0000' },
    received,
    undefined,
    '127.0.0.1',
  );
  assert.ok(r.ok);
  assert.equal(r.message.userId, '42');
  assert.equal(r.message.anonymousId, null);
  assert.equal(r.message.timestamp, '2026-11-22T11:59:55.000Z');
  assert.deepEqual(r.message.context, { library: { name: 'analytics-go', version: '2.1.0' }, ip: '1.2.3.4' });
  assert.match(r.message.messageId, /^[0-9a-f-]{36}$/);
});

test('normalizeItem without any timestamp uses receivedAt; without sentAt keeps the client time', () => {
  const a = normalizeItem({ type: 'page', anonymousId: 'a' }, env, received);
  assert.ok(a.ok);
  assert.equal(a.message.timestamp, '2026-11-22T12:00:00.000Z');
  assert.equal(a.message.context.ip, undefined);
  const b = normalizeItem({ type: 'page', anonymousId: 'a', timestamp: '2026-01-01T00:00:00Z' }, env, received);
  assert.ok(b.ok);
  assert.equal(b.message.timestamp, '2026-01-01T00:00:00.000Z');
});

test('normalizeItem names what is missing', () => {
  const reason = (raw: unknown): string => {
    const r = normalizeItem(raw, env, received);
    assert.equal(r.ok, false);
    return r.ok ? '' : r.reason;
  };
  assert.match(reason({ userId: 'u' }), /type is missing/);
  assert.match(reason({ type: 'purchase', userId: 'u' }), /type "purchase" is not one of/);
  assert.match(reason({ type: 'track', event: 'E', userId: null }), /userId or anonymousId/);
  assert.match(reason({ type: 'track', userId: 'u' }), /event/);
  assert.match(reason({ type: 'group', userId: 'u' }), /groupId/);
  assert.match(reason({ type: 'alias', userId: 'u' }), /previousId/);
  assert.match(reason({ type: 'alias', anonymousId: 'a', previousId: 'p' }), /alias needs a userId/);
  assert.match(reason({ type: 'track', userId: 'u', event: 'E', timestamp: 'soon' }), /not an ISO 8601/);
  assert.match(reason([1, 2]), /not a JSON object/);
});

test('a single-call path decides the type', () => {
  const r = normalizeItem({ type: 'identify', userId: 'u', event: 'Clicked' }, env, received, 'track');
  assert.ok(r.ok);
  assert.equal(r.message.type, 'track');
});
