import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildComposeInput,
  errorFieldsInOrder,
  MADE_WHEN_SENT,
  previewOf,
  reachOf,
  emptyForm,
  fieldErrorsOf,
  formatJson,
  formFromInput,
  integrationKeyProblem,
  integrationsOf,
  isoToLocal,
  lineColumn,
  localToIso,
  parseJsonObject,
  placeServerErrors,
  reachesWebhooks,
  labelled,
  sentence,
  uuidFromBytes,
  WEBHOOKS,
  type ComposeForm,
} from './form';
import type { Destination } from '../../../src-shared/settings';
import type { ComposeInput } from '../../../src-shared/api';

const form = (patch: Partial<ComposeForm>): ComposeForm => ({ ...emptyForm('track', 'backend'), ...patch });

test('parseJsonObject: empty is unset, objects parse, anything else is explained in words with a place', () => {
  const cases: [string, ReturnType<typeof parseJsonObject>][] = [
    ['', { ok: true, value: undefined }],
    ['   \n', { ok: true, value: undefined }],
    ['{"plan": "pro", "n": 2}', { ok: true, value: { plan: 'pro', n: 2 } }],
    ['[1, 2]', { ok: false, error: 'This is a list; it must be an object in braces, like {"plan": "pro"}.' }],
    ['"pro"', { ok: false, error: 'This is a string; it must be an object in braces, like {"plan": "pro"}.' }],
    ['null', { ok: false, error: 'This is null; it must be an object in braces, like {"plan": "pro"}.' }],
    ['42', { ok: false, error: 'This is a number; it must be an object in braces, like {"plan": "pro"}.' }],
    ['{"a": 1', { ok: false, error: 'Not valid JSON: it ends too early at line 1, column 8 (a missing closing brace, bracket or quote?).' }],
    ['{"a": "x', { ok: false, error: 'Not valid JSON: it ends too early at line 1, column 9 (a missing closing brace, bracket or quote?).' }],
    ['{a: 1}', { ok: false, error: 'Not valid JSON at line 1, column 2 near “a: 1}”. Keys need double quotes, and there is no comma after the last item.' }],
    ['{\n  "a": 1,\n}', { ok: false, error: 'Not valid JSON at line 3, column 1 near “}”. Keys need double quotes, and there is no comma after the last item.' }],
    ['{\n  "a": 1\n  "b": 2\n}', { ok: false, error: 'Not valid JSON at line 3, column 3 near “"b": 2”. A comma is missing between two items, or a brace is not closed.' }],
    ['{"a" 1}', { ok: false, error: 'Not valid JSON at line 1, column 6 near “1}”. A key needs a colon before its value.' }],
  ];
  for (const [text, expected] of cases) assert.deepEqual(parseJsonObject(text), expected, JSON.stringify(text));
});

test('jsonErrorInWords copes with parser messages without a position', () => {
  assert.match((parseJsonObject('{"a": tru}') as { error: string }).error, /^Not valid JSON/);
  assert.deepEqual(lineColumn('ab\ncd\ne', 4), { line: 2, column: 2 });
  assert.deepEqual(lineColumn('', 10), { line: 1, column: 1 });
});

test('formatJson indents what parses and leaves the rest to the error', () => {
  const cases: [string, string | null][] = [
    ['{"a":1,"b":[1,2]}', '{\n  "a": 1,\n  "b": [\n    1,\n    2\n  ]\n}'],
    ['', ''],
    ['{"a":', null],
    ['[1]', null],
  ];
  for (const [text, expected] of cases) assert.equal(formatJson(text), expected, text);
});

test('integrationsOf: everything on says nothing; switches become the map the ingest reads', () => {
  const cases: [boolean, { key: string; on: boolean }[], Record<string, boolean> | undefined, boolean][] = [
    [true, [{ key: WEBHOOKS, on: true }], undefined, true],
    [false, [{ key: WEBHOOKS, on: true }], { All: false, Webhooks: true }, true],
    [false, [{ key: WEBHOOKS, on: false }], { All: false, Webhooks: false }, false],
    [true, [{ key: WEBHOOKS, on: false }], { All: true, Webhooks: false }, false],
    [true, [{ key: WEBHOOKS, on: true }, { key: 'Mixpanel', on: false }], { All: true, Webhooks: true, Mixpanel: false }, true],
    [true, [{ key: WEBHOOKS, on: true }, { key: ' Amplitude ', on: true }], { All: true, Webhooks: true, Amplitude: true }, true],
    [true, [{ key: WEBHOOKS, on: true }, { key: '  ', on: false }], undefined, true],
  ];
  for (const [all, switches, expected, reaches] of cases) {
    const map = integrationsOf(all, switches);
    assert.deepEqual(map, expected, JSON.stringify({ all, switches }));
    assert.equal(reachesWebhooks(map), reaches, JSON.stringify(map));
  }
  assert.equal(reachesWebhooks({ All: false, Webhooks: { url: 'x' } }), true);
});

test('integrationKeyProblem refuses empty, All and repeated names', () => {
  const switches = [{ key: WEBHOOKS, on: true }];
  const cases: [string, string | null][] = [
    ['Mixpanel', null],
    ['', 'Type the destination’s name first.'],
    ['All', '“All” is the switch on the left.'],
    ['Webhooks', '“Webhooks” is already in the list.'],
  ];
  for (const [key, expected] of cases) assert.equal(integrationKeyProblem(key, switches), expected, key);
});

test('localToIso and isoToLocal: a picked local time round-trips; anything else is not a time', () => {
  for (const local of ['2026-11-22T12:30:05', '2026-01-01T00:00:00', '2026-06-30T23:59:59.250']) {
    const iso = localToIso(local);
    assert.ok(iso && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(iso), `${local} → ${iso}`);
    assert.equal(isoToLocal(iso), local);
  }
  assert.equal(isoToLocal(localToIso('2026-11-22T12:30') ?? ''), '2026-11-22T12:30:00');
  for (const bad of ['', 'yesterday', '2026-11-22', '2026-13-40T99:00']) assert.equal(localToIso(bad), null, bad);
  assert.equal(isoToLocal('soon'), '');
});

test('buildComposeInput: only the type’s fields, empty ones left out, JSON parsed, copies counted', () => {
  const cases: [string, ComposeForm, ComposeInput][] = [
    [
      'track with properties and two copies',
      form({ userId: 'u1', event: 'Order Completed', properties: '{"total": 42}', copies: '2', name: 'ignored for track' }),
      { source: 'backend', type: 'track', message: { userId: 'u1', event: 'Order Completed', properties: { total: 42 } }, copies: 2 },
    ],
    [
      'identify with traits and context',
      form({ type: 'identify', anonymousId: 'a1', traits: '{"plan":"pro"}', context: '{"ip":"1.2.3.4"}', event: 'ignored' }),
      { source: 'backend', type: 'identify', message: { anonymousId: 'a1', traits: { plan: 'pro' }, context: { ip: '1.2.3.4' } } },
    ],
    [
      'page with name, category and url properties',
      form({ type: 'page', userId: 'u', name: 'Pricing', category: 'Docs', properties: '{"url":"https://x/p"}' }),
      { source: 'backend', type: 'page', message: { userId: 'u', name: 'Pricing', category: 'Docs', properties: { url: 'https://x/p' } } },
    ],
    ['screen', form({ type: 'screen', userId: 'u', name: 'Home', category: 'not a screen field here' }), { source: 'backend', type: 'screen', message: { userId: 'u', name: 'Home' } }],
    ['group', form({ type: 'group', userId: 'u', groupId: 'acme', traits: '{"seats":5}' }), { source: 'backend', type: 'group', message: { userId: 'u', groupId: 'acme', traits: { seats: 5 } } }],
    [
      'alias has no anonymousId',
      form({ type: 'alias', previousId: 'anon-1', userId: 'u', anonymousId: 'dropped' }),
      { source: 'backend', type: 'alias', message: { userId: 'u', previousId: 'anon-1' } },
    ],
    [
      'integrations, a messageId and a time',
      form({ userId: 'u', event: 'E', all: false, messageId: ' m-1 ', timestamp: '2026-11-22T12:30:00' }),
      {
        source: 'backend',
        type: 'track',
        message: { userId: 'u', event: 'E', integrations: { All: false, Webhooks: true }, timestamp: localToIso('2026-11-22T12:30:00'), messageId: 'm-1' },
      },
    ],
  ];
  for (const [what, f, expected] of cases) assert.deepEqual(buildComposeInput(f), { ok: true, input: expected }, what);
});

test('buildComposeInput refuses every problem at once, by field', () => {
  const ok = { userId: 'u', event: 'E' };
  const cases: [ComposeForm, Record<string, string>][] = [
    [form({ ...ok, properties: '{"a":' }), { properties: 'Not valid JSON: it ends too early at line 1, column 6 (a missing closing brace, bracket or quote?).' }],
    [form({ ...ok, context: '[]' }), { context: 'This is a list; it must be an object in braces, like {"plan": "pro"}.' }],
    [form({ ...ok, copies: '0' }), { copies: 'Send from 1 to 1000 copies.' }],
    [form({ ...ok, copies: '1001' }), { copies: 'Send from 1 to 1000 copies.' }],
    [form({ ...ok, copies: '2.5' }), { copies: 'Send from 1 to 1000 copies.' }],
    [form({ ...ok, copies: '' }), { copies: 'Send from 1 to 1000 copies.' }],
    [form({ ...ok, timestamp: 'tomorrow' }), { timestamp: 'Pick a date and time, or clear it to use the time of sending.' }],
    [form({ ...ok, source: '' }), { source: 'Pick the source whose write key sends this call.' }],
    // Traits are not a track field: broken JSON there does not block a track call.
    [form({ ...ok, traits: '{' }), {}],
    // The client library would refuse these one at a time; the form names them all.
    [
      form({ properties: '{', copies: '0' }),
      {
        userId: 'Give a userId, an anonymousId, or both.',
        event: 'Event is required.',
        properties: 'Not valid JSON: it ends too early at line 1, column 2 (a missing closing brace, bracket or quote?).',
        copies: 'Send from 1 to 1000 copies.',
      },
    ],
    [form({ type: 'alias' }), { previousId: 'previousId is required.', userId: 'userId is required.' }],
    [form({ type: 'group', anonymousId: 'a' }), { groupId: 'groupId is required.' }],
    [form({ type: 'identify', anonymousId: 'a' }), {}],
  ];
  for (const [f, expected] of cases) {
    const built = buildComposeInput(f);
    assert.deepEqual(built.ok ? {} : built.errors, expected, JSON.stringify(f));
  }
});

test('formFromInput loads a template back into the form it was saved from', () => {
  const forms: ComposeForm[] = [
    form({ userId: 'u1', event: 'Order Completed', properties: '{\n  "total": 42\n}', copies: '3' }),
    form({ type: 'alias', previousId: 'anon', userId: 'u' }),
    form({ type: 'group', anonymousId: 'a', groupId: 'g', all: false, integrations: [{ key: WEBHOOKS, on: true }, { key: 'Mixpanel', on: false }] }),
    form({ type: 'page', userId: 'u', name: 'N', category: 'C', timestamp: '2026-11-22T12:30:05', messageId: 'm', context: '{\n  "ip": "1.2.3.4"\n}' }),
  ];
  for (const f of forms) {
    const built = buildComposeInput(f);
    assert.ok(built.ok);
    assert.deepEqual(buildComposeInput(formFromInput(built.input)), built, f.type);
  }
  const loaded = formFromInput({ source: 's', type: 'track', message: { userId: 'u', event: 'E', properties: { a: 1 } } });
  assert.equal(loaded.properties, '{\n  "a": 1\n}');
  assert.equal(loaded.copies, '1');
  assert.equal(formFromInput({ source: 's', type: 'delete', message: {} }).type, 'track');
});

test('placeServerErrors puts each server error next to its field, and the rest above Send', () => {
  const errors = [
    { field: 'compose.message.event', message: 'is required' },
    { field: 'compose.source', message: 'no source named "x"' },
    { field: 'compose.message.properties', message: 'is too large: the call is 40000 bytes of JSON, over the limit of 32768 bytes (32 KB) for one call; nothing was sent' },
    { field: 'compose.copies', message: 'must be a whole number from 1 to 1000' },
    { field: 'compose.message.userId', message: 'userId or anonymousId is required' },
    { field: 'compose.message.groupId', message: 'is required' },
    { field: 'compose.message', message: 'is too large' },
  ];
  assert.deepEqual(placeServerErrors(errors, 'track'), {
    fields: {
      event: 'Event is required.',
      source: 'No source named "x".',
      properties: 'Properties are too large: the call is 40000 bytes of JSON, over the limit of 32768 bytes (32 KB) for one call; nothing was sent.',
      copies: 'Copies must be a whole number from 1 to 1000.',
      userId: 'userId or anonymousId is required.',
    },
    general: ['compose.message.groupId: is required', 'compose.message: is too large'],
  });
  assert.deepEqual(placeServerErrors([{ field: 'compose.message.anonymousId', message: 'is not a field of an alias call' }], 'alias').general, [
    'compose.message.anonymousId: is not a field of an alias call',
  ]);
  assert.equal(labelled('groupId', 'is required'), 'groupId is required.');
  assert.equal(labelled('timestamp', 'must be an ISO 8601 string or a Date, got "x"'), 'Timestamp must be an ISO 8601 string or a Date, got "x".');
  assert.equal(sentence(''), '');
  assert.equal(sentence('done (twice)'), 'Done (twice)');
});

test('fieldErrorsOf: the transport’s fields when given, else read back from a validation message', () => {
  const withFields = Object.assign(new Error('x'), { code: 'validation_failed', fields: [{ field: 'compose.source', message: 'no source' }, { nope: 1 }] });
  assert.deepEqual(fieldErrorsOf(withFields), [{ field: 'compose.source', message: 'no source' }]);
  const fromMessage = Object.assign(new Error('compose.message.event: is required; compose.copies: must be a whole number from 1 to 1000'), { code: 'validation_failed' });
  assert.deepEqual(fieldErrorsOf(fromMessage), [
    { field: 'compose.message.event', message: 'is required' },
    { field: 'compose.copies', message: 'must be a whole number from 1 to 1000' },
  ]);
  assert.deepEqual(fieldErrorsOf(Object.assign(new Error('compose.source: x'), { code: 'internal' })), []);
  assert.deepEqual(fieldErrorsOf(null), []);
});

test('uuidFromBytes makes version-4 UUIDs', () => {
  assert.equal(uuidFromBytes(new Uint8Array(16).fill(0xff)), 'ffffffff-ffff-4fff-bfff-ffffffffffff');
  assert.equal(uuidFromBytes(new Uint8Array(16)), '00000000-0000-4000-8000-000000000000');
});

test('previewOf: the body the client library will post, with what it makes at sending marked', () => {
  const preview = JSON.parse(previewOf(form({ userId: 'u', event: 'E', properties: '{"total": 42}', all: false }))) as Record<string, unknown>;
  assert.deepEqual(preview, {
    batch: [
      {
        type: 'track',
        event: 'E',
        userId: 'u',
        properties: { total: 42 },
        integrations: { All: false, Webhooks: true },
        timestamp: MADE_WHEN_SENT.timestamp,
        messageId: MADE_WHEN_SENT.messageId,
      },
    ],
    sentAt: MADE_WHEN_SENT.sentAt,
    context: { library: { name: 'hookbench-client', version: '0.1.0' } },
  });
  const given = JSON.parse(previewOf(form({ userId: 'u', event: 'E', messageId: 'm-1', timestamp: '2026-11-22T12:30:00' }))) as { batch: Record<string, unknown>[] };
  assert.deepEqual([given.batch[0]?.messageId, given.batch[0]?.timestamp], ['m-1', localToIso('2026-11-22T12:30:00')]);
  // Keys in the library's order: the preview is the text that will be posted, indented.
  assert.match(previewOf(form({ userId: 'u', event: 'E' })), /^{\n {2}"batch": \[\n {4}{\n {6}"type": "track",\n {6}"event": "E",\n {6}"userId": "u",/);
});

test('errorFieldsInOrder: the fields in error as they are on screen', () => {
  assert.deepEqual(errorFieldsInOrder({ copies: 'x', event: 'y', userId: 'z', properties: 'w' }, 'track'), ['userId', 'event', 'properties', 'copies']);
});

test('reachOf: a call becomes a delivery only through an enabled destination of its source with a URL on', () => {
  const d = (o: Partial<Destination>): Destination => ({
    id: 1,
    name: 'Hook',
    enabled: true,
    sources: ['backend'],
    sharedSecret: null,
    webhooks: [{ url: 'http://x', headers: {}, enabled: true }],
    createdAt: '',
    signing: 'x-signature',
    warp: 1,
    ...o,
  });
  assert.deepEqual(reachOf(undefined, 'backend', [d({})]), { delivers: true, to: ['Hook'] });
  assert.deepEqual(reachOf({ All: false }, 'backend', [d({})]), { delivers: false, why: '“All” is off and the Webhooks switch is not on (its integrations leave Webhooks out)' });
  assert.deepEqual(reachOf({ All: false, Webhooks: true }, 'backend', [d({})]), { delivers: true, to: ['Hook'] });
  assert.deepEqual(reachOf(undefined, 'web', [d({})]), { delivers: false, why: 'no Webhooks destination is attached to source “web”' });
  assert.deepEqual(reachOf(undefined, 'backend', [d({ enabled: false })]), { delivers: false, why: '“Hook” attached to “backend” is switched off' });
  assert.deepEqual(reachOf(undefined, 'backend', [d({ webhooks: [] })]), { delivers: false, why: '“Hook” has no webhook URL' });
  assert.deepEqual(reachOf(undefined, 'backend', [d({ webhooks: [{ url: 'http://x', headers: {}, enabled: false }] })]), {
    delivers: false,
    why: 'every webhook URL of “Hook” is switched off',
  });
});
