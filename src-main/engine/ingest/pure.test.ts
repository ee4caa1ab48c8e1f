import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimestamp } from './timestamps';
import { webhooksEnabled } from './integrations';
import { describeValue, previewOf } from './describe';
import { deepestField, MAX_MESSAGE_NESTING, textNesting, valueNesting } from './nesting';
import { envelopeOf, normalizeItem } from './normalize';
import { ingestPath } from './handler';
import { mayHoldLoneSurrogates, wellFormed, wellFormedReviver } from './well-formed';

test('parseTimestamp reads every shape real SDKs send', () => {
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

test('an imported log line keeps its recorded times (no second skew correction); a call in the same import is corrected', () => {
  const recorded = { ...env, asRecorded: true };
  // The line as the log kept it a day earlier: corrected timestamp, the client's own, its sentAt and receipt.
  const line = {
    type: 'track', userId: 'u1', event: 'E', messageId: 'm-1',
    timestamp: '2026-11-21T11:59:50.000Z', originalTimestamp: '2026-11-21T12:59:50.000Z', sentAt: '2026-11-21T13:00:00.000Z', receivedAt: '2026-11-21T12:00:00.000Z',
  };
  const r = normalizeItem(line, recorded, received);
  assert.ok(r.ok);
  assert.equal(r.message.timestamp, '2026-11-21T11:59:50.000Z');
  assert.equal(r.message.originalTimestamp, '2026-11-21T12:59:50.000Z');
  assert.equal(r.message.sentAt, '2026-11-21T13:00:00.000Z');
  assert.equal(r.message.receivedAt, '2026-11-22T12:00:00.000Z', 'its own receipt is this one');
  // A line first sent without a timestamp has none of the client's.
  const bare = normalizeItem({ type: 'track', userId: 'u1', event: 'E', timestamp: '2026-11-21T12:00:00.000Z', receivedAt: '2026-11-21T12:00:00.000Z' }, recorded, received);
  assert.ok(bare.ok);
  assert.equal(bare.message.timestamp, '2026-11-21T12:00:00.000Z');
  assert.equal(bare.message.originalTimestamp, undefined);
  // Without the header the same line is a call: corrected against this receipt.
  const live = normalizeItem(line, env, received);
  assert.ok(live.ok);
  assert.equal(live.message.timestamp, '2026-11-22T10:59:50.000Z');
  // A call (no receivedAt, as a HAR file holds them) in an import is corrected as any call.
  const call = normalizeItem({ type: 'track', userId: 'u1', event: 'E', timestamp: '2026-11-22T12:59:50.000Z', sentAt: '2026-11-22T13:00:00.000Z' }, recorded, received);
  assert.ok(call.ok);
  assert.equal(call.message.timestamp, '2026-11-22T11:59:50.000Z');
  assert.equal(call.message.originalTimestamp, '2026-11-22T12:59:50.000Z');
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
  assert.match(reason({ userId: 'u' }), /^type: is missing; it must be one of identify, track/);
  assert.match(reason({ type: 'purchase', userId: 'u' }), /^type: must be one of identify, track, page, screen, group, alias; got the string "purchase"$/);
  assert.match(reason({ type: 'track', event: 'E', userId: null }), /^userId: is required \(or anonymousId\)/);
  assert.match(reason({ type: 'track', userId: 'u' }), /event/);
  assert.match(reason({ type: 'group', userId: 'u' }), /groupId/);
  assert.match(reason({ type: 'alias', userId: 'u' }), /previousId/);
  assert.match(reason({ type: 'alias', anonymousId: 'a', previousId: 'p' }), /^userId: is required for alias$/);
  assert.match(reason({ type: 'track', userId: 'u', event: 'E', timestamp: 'soon' }), /^timestamp: is not an ISO 8601 time; got the string "soon"$/);
  assert.match(reason([1, 2]), /^must be a JSON object; got an array$/);
});

test('a single-call path decides the type', () => {
  const r = normalizeItem({ type: 'identify', userId: 'u', event: 'Clicked' }, env, received, 'track');
  assert.ok(r.ok);
  assert.equal(r.message.type, 'track');
});

const JSON_SAMPLES: [string, unknown][] = [
  ['null', null],
  ['true', true],
  ['a number', 42],
  ['a huge number', JSON.parse('1e400')],
  ['a string', 'text'],
  ['an empty string', ''],
  ['an array', [1, 'two']],
  ['an object', { a: 1 }],
  ['an object with its own toString', { toString: 0, valueOf: 'x' }],
];
const FIELDS = [
  'type', 'userId', 'anonymousId', 'event', 'groupId', 'previousId', 'messageId', 'timestamp', 'sentAt',
  'context', 'integrations', 'traits', 'properties', 'name', 'category',
];

test('any JSON value in any field: the item is kept (the field used, or left out with a warning naming it) or dropped with a reason naming it', () => {
  for (const type of ['track', 'identify', 'group', 'alias', 'page']) {
    const base: Record<string, unknown> = { type, userId: 'u', anonymousId: 'a', event: 'E', groupId: 'g', previousId: 'p' };
    for (const field of FIELDS) {
      for (const [label, value] of JSON_SAMPLES) {
        const what = `${type}.${field} = ${label}`;
        const r = normalizeItem({ ...base, [field]: value }, env, received, undefined, undefined, 'batch[7]');
        if (!r.ok) {
          assert.equal(r.field, `batch[7].${field}`, what);
          assert.ok(r.reason.startsWith(`batch[7].${field}: `), `${what}: ${r.reason}`);
          continue;
        }
        assert.doesNotThrow(() => JSON.stringify(r.message), what);
        for (const w of r.warnings) assert.equal(w.field, `batch[7].${field}`, `${what}: ${JSON.stringify(w)}`);
        const kept = (r.message as unknown as Record<string, unknown>)[field];
        const used = value === null || value === '' || (field === 'type' ? false : kept !== undefined);
        assert.ok(used || r.warnings.length > 0, `${what}: neither used nor reported`);
      }
    }
  }
});

test('an object where the type should be is dropped by its JSON type, never stringified', () => {
  const r = normalizeItem({ type: { toString: 0 }, userId: 'u' }, env, received, undefined, undefined, 'batch[2]');
  assert.deepEqual(r.ok ? null : r.reason, 'batch[2].type: must be one of identify, track, page, screen, group, alias; got an object');
  const id = normalizeItem({ type: 'identify', userId: { toString: 0 } }, env, received, undefined, undefined, 'batch[0]');
  assert.equal(id.ok ? null : id.reason, 'batch[0].userId: must be a string or a number; got an object');
  const huge = normalizeItem({ type: 'identify', userId: JSON.parse('1e400') as number }, env, received);
  assert.equal(huge.ok ? null : huge.reason, 'userId: must be a string or a number; got a number too large to represent');
});

test('wrongly typed optional fields are left out of the message and each is reported as a warning', () => {
  const r = normalizeItem(
    {
      type: 'identify',
      userId: 'u',
      anonymousId: 7,
      traits: ['plan', 'pro'],
      properties: 'x',
      context: 5,
      integrations: true,
      timestamp: 1763812800000,
      sentAt: { at: 1 },
      name: 3,
      event: false,
    },
    env,
    received,
    undefined,
    undefined,
    'batch[1]',
  );
  assert.ok(r.ok);
  assert.deepEqual(
    r.warnings.map((w) => `${w.field}: ${w.problem} | ${w.value}`),
    [
      'batch[1].anonymousId: a number; stored as the string "7" | 7',
      'batch[1].event: must be a string; got a boolean; left out | false',
      'batch[1].timestamp: must be an ISO 8601 time as a string; got a number; left out, so the time of receipt was used | 1763812800000',
      'batch[1].sentAt: must be an ISO 8601 time as a string; got an object; left out | {"at":1}',
      'batch[1].context: must be an object; got a number; left out | 5',
      'batch[1].integrations: must be an object; got a boolean; left out | true',
      'batch[1].name: must be a string; got a number; left out | 3',
      'batch[1].traits: must be an object; got an array; left out | ["plan","pro"]',
      'batch[1].properties: must be an object; got a string; left out | "x"',
    ],
  );
  assert.equal(r.message.anonymousId, '7');
  assert.equal(r.message.traits, undefined);
  assert.equal(r.message.timestamp, '2026-11-22T12:00:00.000Z');
  assert.deepEqual(r.message.context, env.context);
});

test('the batch envelope: a wrongly typed context, integrations or sentAt is reported with every message', () => {
  const envelope = envelopeOf({ batch: [], context: [], integrations: 'All', sentAt: 'yesterday' }, '2026-11-22T12:00:00.000Z');
  assert.deepEqual(envelope.warnings?.map((w) => w.field), ['context', 'integrations']);
  const r = normalizeItem({ type: 'page', anonymousId: 'a' }, envelope, received, undefined, undefined, 'batch[0]');
  assert.ok(r.ok);
  assert.deepEqual(
    r.warnings.map((w) => `${w.field}: ${w.problem}`),
    [
      'context: must be an object; got an array; left out',
      'integrations: must be an object; got a string; left out',
      'sentAt: is not an ISO 8601 time; kept as sent, but clock skew was not corrected',
    ],
  );
  assert.equal(r.message.sentAt, 'yesterday', 'kept as sent, as before');
  const own = normalizeItem({ type: 'page', anonymousId: 'a', sentAt: '2026-11-22T12:00:00Z' }, envelope, received, undefined, undefined, 'batch[1]');
  assert.ok(own.ok);
  assert.deepEqual(own.warnings.map((w) => w.field), ['context', 'integrations'], 'its own sentAt was used, so the batch one is not reported');
});

test('a valid item gives no warning and exactly the message it gave before', () => {
  const r = normalizeItem(
    { type: 'track', userId: 'u1', event: 'E', messageId: 'm1', properties: { a: [1, { b: null }] }, context: { locale: 'fr' }, timestamp: '2026-11-22T11:59:00Z' },
    { ...env, receivedAtIso: '2026-11-22T12:00:00.000Z' },
    received,
    undefined,
    '127.0.0.1',
    'batch[0]',
  );
  assert.ok(r.ok);
  assert.deepEqual(r.warnings, []);
  assert.equal(
    JSON.stringify(r.message),
    '{"type":"track","messageId":"m1","userId":"u1","anonymousId":null,"context":{"library":{"name":"analytics-go","version":"2.1.0"},"locale":"fr","ip":"127.0.0.1"},"integrations":{},"timestamp":"2026-11-22T11:59:00.000Z","receivedAt":"2026-11-22T12:00:00.000Z","originalTimestamp":"2026-11-22T11:59:00Z","event":"E","properties":{"a":[1,{"b":null}]}}',
  );
});

test('nesting is measured with loops only, so no depth overflows the stack', () => {
  assert.equal(textNesting(Buffer.from('{"a":"[[[{{{\\"]]","b":[{"c":[]}]}')), 4);
  assert.equal(textNesting(Buffer.from('"just a string"')), 0);
  assert.equal(textNesting(Buffer.from('{"é":["ü"]}')), 2);
  const deep = 200_000;
  const text = `${'['.repeat(deep)}${']'.repeat(deep)}`;
  assert.equal(textNesting(Buffer.from(text)), deep);
  assert.equal(valueNesting(JSON.parse(text)), deep);
  assert.equal(valueNesting(1), 0);
  assert.equal(valueNesting({ a: [1, { b: {} }] }), 4);
  assert.equal(deepestField({ a: 1, b: [[]], c: [] }), 'b');
  assert.equal(MAX_MESSAGE_NESTING, 100);
});

test('reasons describe values by JSON type and quote only strings and numbers', () => {
  assert.equal(describeValue({ toString: 0 }), 'an object');
  assert.equal(describeValue([]), 'an array');
  assert.equal(describeValue('x'.repeat(100)), `the string "${'x'.repeat(59)}…`);
  assert.equal(describeValue(-1.5), 'the number -1.5');
  assert.equal(describeValue(null), 'null');
  assert.equal(previewOf({ a: 'y'.repeat(300) }).length, 201);
});

test('lone surrogates: found by their escape, replaced by U+FFFD, pairs and keys kept in order', () => {
  assert.equal(mayHoldLoneSurrogates('{"a":"\\ud800"}'), true);
  assert.equal(mayHoldLoneSurrogates('{"a":"\\uDFFF"}'), true);
  assert.equal(mayHoldLoneSurrogates('{"a":"\\u00e9 \\u7fff"}'), false);
  assert.equal(wellFormed('a\ud800b'), 'a\ufffdb');
  assert.equal(wellFormed('\udc00z'), '\ufffdz');
  assert.equal(wellFormed('x\ud83d'), 'x\ufffd');
  assert.equal(wellFormed('\ud83d\ude00 pair'), '\ud83d\ude00 pair');
  assert.equal(wellFormed('\ude00\ud83d'), '\ufffd\ufffd', 'a pair the wrong way round is two lone halves');
  const revived = JSON.parse('{"z":1,"k\\ud800":["\\udfff",{"__proto__":"\\ud800"}],"a":2}', wellFormedReviver) as Record<string, unknown>;
  assert.deepEqual(Object.keys(revived), ['z', 'k\ufffd', 'a'], 'the key is mended in its place');
  assert.equal(JSON.stringify(revived), '{"z":1,"k\ufffd":["\ufffd",{"__proto__":"\ufffd"}],"a":2}');
  assert.equal(Object.getPrototypeOf(revived), Object.prototype);
});
