import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Destination } from '../../../src-shared/settings';
import { draftOf, edit, emptyDraft, headerRowFields, nameClash, placedFields, toDestinationInput, type DestinationDraft } from './destination-form';

const draft = (over: Partial<DestinationDraft> = {}): DestinationDraft => ({
  ...emptyDraft(['backend']),
  name: 'Receiver',
  webhooks: [{ url: 'http://127.0.0.1:3000/hook', headers: [], enabled: true }],
  ...over,
});

const problems = (d: DestinationDraft): string[] => toDestinationInput(d).errors.map((e) => `${e.field}: ${e.message}`);

test('a draft maps to the DestinationInput the engine takes: trimmed, blank header rows dropped, empty secret = none', () => {
  const { input, errors } = toDestinationInput(
    draft({
      name: ' Receiver ',
      sharedSecret: '',
      webhooks: [
        { url: ' http://a.test/1 ', headers: [{ name: ' X-Env ', value: 'dev' }, { name: '', value: '' }], enabled: true },
        { url: 'https://b.test/2', headers: [], enabled: true },
      ],
    }),
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(input, {
    name: 'Receiver',
    enabled: true,
    sources: ['backend'],
    sharedSecret: null,
    signing: 'x-signature',
    webhooks: [
      { url: 'http://a.test/1', headers: { 'X-Env': 'dev' }, enabled: true },
      { url: 'https://b.test/2', headers: {}, enabled: true },
    ],
    warp: 1,
  });
  assert.equal(toDestinationInput(draft({ sharedSecret: ' s ' })).input.sharedSecret, ' s ', 'a secret is kept exactly as typed');
});

test('refusals by the engine\'s field paths: 6th URL, bad URL, bad and reserved header names, CR/LF in a value', () => {
  let six = draft();
  for (let i = 0; i < 5; i++) six = edit.setUrl(edit.addWebhook(six), i + 1, `http://127.0.0.1:3000/${i}`);
  assert.equal(six.webhooks.length, 6);
  assert.deepEqual(problems(six), ['destination.webhooks[5]: a destination has at most 5 webhook URLs; this is number 6']);

  const table: [Partial<DestinationDraft>, string[]][] = [
    [{ name: '  ' }, ['destination.name: is required']],
    [{ webhooks: [{ url: 'not a url', headers: [], enabled: true }] }, ['destination.webhooks[0].url: "not a url" is not a valid URL']],
    [{ webhooks: [{ url: 'ftp://x/', headers: [], enabled: true }] }, ['destination.webhooks[0].url: must use http or https, not ftp']],
    [{ webhooks: [{ url: '', headers: [], enabled: true }] }, ['destination.webhooks[0].url: is required: a full http:// or https:// URL']],
    [
      { webhooks: [{ url: 'http://x/', headers: [{ name: 'Bad Header', value: 'v' }], enabled: true }] },
      ["destination.webhooks[0].headers.Bad Header: header name must be a token (letters, digits, !#$%&'*+-.^_`|~; no spaces, CR or LF)"],
    ],
    [
      { webhooks: [{ url: 'http://x/', headers: [{ name: 'X-Signature', value: 'v' }], enabled: true }] },
      ['destination.webhooks[0].headers.X-Signature: X-Signature is set by Hookbench and cannot be overridden'],
    ],
    [
      { webhooks: [{ url: 'http://x/', headers: [{ name: 'X-A', value: 'a\r\nInjected: 1' }], enabled: true }] },
      ['destination.webhooks[0].headers.X-A: header value must not contain CR, LF or NUL'],
    ],
    [
      { webhooks: [{ url: 'http://x/', headers: [{ name: '', value: 'orphan' }], enabled: true }] },
      ['destination.webhooks[0].headers[0]: header name is required (or clear the value to drop the row)'],
    ],
    [
      { webhooks: [{ url: 'http://x/', headers: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }], enabled: true }] },
      ['destination.webhooks[0].headers[1]: header names are case-insensitive; this one is given twice'],
    ],
    [{ webhooks: [] }, []],
  ];
  for (const [over, expected] of table) assert.deepEqual(problems(draft(over)), expected, JSON.stringify(over));
});

test('each header row claims its own index path and, for the first row with a name, the engine\'s by-name path', () => {
  const d = draft({ webhooks: [{ url: 'http://x/', headers: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }, { name: '', value: '' }], enabled: true }] });
  assert.deepEqual(headerRowFields(d, 0, 0), ['destination.webhooks[0].headers[0]', 'destination.webhooks[0].headers.X-A']);
  assert.deepEqual(headerRowFields(d, 0, 1), ['destination.webhooks[0].headers[1]']);
  assert.deepEqual(headerRowFields(d, 0, 2), ['destination.webhooks[0].headers[2]']);
  const placed = placedFields(d);
  for (const f of ['destination.name', 'destination.webhooks[0].url', 'destination.webhooks[5]', 'destination.webhooks[0].headers.X-A']) assert.ok(placed.has(f), f);
  assert.ok(!placed.has('destination.sources[3]'), 'an error on a field the form does not show is listed under it');
});

test('a saved destination round-trips through the draft unchanged', () => {
  const saved: Destination = {
    id: 3,
    createdAt: '2026-01-01T00:00:00.000Z',
    name: 'Receiver',
    enabled: false,
    sources: ['backend', 'web'],
    sharedSecret: 's3cret',
    signing: 'x-signature+standard-webhooks',
    warp: 240,
    webhooks: [
      { url: 'http://a.test/1', headers: { 'X-Env': 'dev', Authorization: 'Bearer t' }, enabled: true },
      { url: 'http://b.test/2', headers: {}, enabled: false },
    ],
  };
  const d = draftOf(saved);
  assert.equal(d.saved, 'Receiver');
  const { id: _id, createdAt: _c, ...input } = saved;
  assert.deepEqual(toDestinationInput(d), { input, errors: [] });
});

test('edits: add and remove URLs and header rows, toggle sources, without touching the original draft', () => {
  const d0 = draft();
  const d1 = edit.addHeader(d0, 0);
  const d2 = edit.setHeader(d1, 0, 0, { name: 'X-A' });
  const d3 = edit.setHeader(d2, 0, 0, { value: 'v' });
  assert.deepEqual(d3.webhooks[0]?.headers, [{ name: 'X-A', value: 'v' }]);
  assert.deepEqual(d0.webhooks[0]?.headers, [], 'the original is unchanged');
  assert.deepEqual(edit.removeHeader(d3, 0, 0).webhooks[0]?.headers, []);
  assert.equal(edit.removeWebhook(edit.addWebhook(d0), 1).webhooks.length, 1);
  assert.deepEqual(edit.toggleSource(d0, 'web', true).sources, ['backend', 'web']);
  assert.deepEqual(edit.toggleSource(d0, 'backend', false).sources, []);
  assert.deepEqual(edit.toggleSource(edit.toggleSource(d0, 'web', true), 'web', true).sources, ['backend', 'web'], 'no duplicate');
});

test('a URL switched off is sent as enabled: false; a new or renamed destination under another one\'s name is refused before sending', () => {
  const off = edit.setWebhookEnabled(draft({}), 0, false);
  assert.equal(toDestinationInput(off).input.webhooks[0]?.enabled, false);
  assert.deepEqual(nameClash(draft({ name: 'Other' }), ['Receiver', 'Other']).map((e) => e.field), ['destination.name']);
  assert.deepEqual(nameClash({ ...draft({ name: 'Receiver' }), saved: 'Receiver' }, ['Receiver']), [], 'its own name is fine');
  assert.deepEqual(nameClash({ ...draft({ name: 'Renamed' }), saved: 'Receiver' }, ['Receiver']), [], 'a free name is fine');
});
