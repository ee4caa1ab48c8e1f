import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiMethod, ComposeTemplate, LiveEvent } from '../../../src-shared/api';
import type { Destination, Source } from '../../../src-shared/settings';
import { ApiCallError, type Transport } from '../../transport';
import { createComposeStore, searchFor } from './store';

const SOURCES: Source[] = [
  { id: 1, name: 'backend', writeKey: 'wk_1', createdAt: '2026-01-01T00:00:00.000Z' },
  { id: 2, name: 'web', writeKey: 'wk_2', createdAt: '2026-01-01T00:00:00.000Z' },
];

/** A transport whose answers the test scripts per method, recording each call. */
function scripted(answers: Partial<Record<ApiMethod, (params: unknown) => unknown>>) {
  const calls: { method: ApiMethod; params: unknown }[] = [];
  let emit: (e: LiveEvent) => void = () => {};
  const transport: Transport = {
    async call(method: ApiMethod, params?: unknown) {
      calls.push({ method, params });
      const answer = answers[method];
      if (!answer) throw new Error(`unexpected call ${method}`);
      return answer(params) as never;
    },
    subscribe(onEvent) {
      emit = onEvent;
      return () => {
        emit = () => {};
      };
    },
  };
  return { transport, calls, emit: (e: LiveEvent) => emit(e) };
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('compose store: picks the first source, sends the built input and keeps the result', async () => {
  const t = scripted({
    listSources: () => SOURCES,
    listTemplates: () => [],
    composeEvents: () => ({ sent: 2, messageIds: ['a', 'b'], endpoint: 'http://127.0.0.1:1/v1/batch' }),
  });
  const { store, start } = createComposeStore(t.transport, () => 'anon-fixed');
  const stop = start();
  await settle();
  assert.equal(store.getState().form.source, 'backend');
  store.getState().update({ userId: 'u', event: 'E', copies: '2' });
  store.getState().generateAnonymousId();
  await store.getState().send();
  assert.deepEqual(t.calls.at(-1), {
    method: 'composeEvents',
    params: { source: 'backend', type: 'track', message: { userId: 'u', anonymousId: 'anon-fixed', event: 'E' }, copies: 2 },
  });
  assert.deepEqual(store.getState().result?.messageIds, ['a', 'b']);
  assert.equal(store.getState().sending, false);
  stop();
});

test('compose store: the server’s field errors land next to their fields; other failures above Send', async () => {
  let fail: Error = new Error('x');
  const t = scripted({
    listSources: () => SOURCES,
    listTemplates: () => [],
    composeEvents: () => {
      throw fail;
    },
  });
  const { store, start } = createComposeStore(t.transport);
  start();
  await settle();
  // Filled in, so only the server can refuse it (as it would a call over 32 KB).
  store.getState().update({ userId: 'u', event: 'E' });
  fail = new ApiCallError('validation_failed', 'compose.message.event: is required; compose.message.traits: nope');
  await store.getState().send();
  assert.deepEqual(store.getState().fieldErrors, { event: 'Event is required.' });
  assert.equal(store.getState().error, 'compose.message.traits: nope', 'traits are not on a track form');

  store.getState().update({ event: 'E' });
  assert.deepEqual(store.getState().fieldErrors, {}, 'typing in a field clears its error');

  fail = new ApiCallError('internal', 'the Tracking API is not listening yet');
  await store.getState().send();
  assert.equal(store.getState().error, 'the Tracking API is not listening yet');

  // What cannot be sent at all is not sent.
  const before = t.calls.length;
  store.getState().update({ properties: '{' });
  await store.getState().send();
  assert.equal(t.calls.length, before);
  assert.match(store.getState().fieldErrors.properties ?? '', /^Not valid JSON/);
});

test('compose store: templates save the built input, reload on live config events, and load back into the form', async () => {
  let templates: ComposeTemplate[] = [];
  const t = scripted({
    listSources: () => SOURCES,
    listTemplates: () => templates,
    saveTemplate: (params) => {
      const { name, input } = params as { name: string; input: ComposeTemplate['input'] };
      const saved = { name, input, savedAt: '2026-01-01T00:00:00.000Z' };
      templates = [...templates.filter((x) => x.name !== name), saved];
      return saved;
    },
    deleteTemplate: (name) => {
      templates = templates.filter((x) => x.name !== name);
    },
  });
  const { store, start } = createComposeStore(t.transport);
  start();
  await settle();
  store.getState().setType('alias');
  store.getState().update({ previousId: 'anon', userId: 'u', source: 'web' });
  store.getState().setTemplateName('link');
  await store.getState().saveTemplate();
  assert.deepEqual(store.getState().templates.map((x) => x.input), [{ source: 'web', type: 'alias', message: { previousId: 'anon', userId: 'u' } }]);

  // Another window saved one: the live event brings it here.
  templates = [...templates, { name: 'other', input: { source: 'backend', type: 'identify', message: { userId: 'x' } }, savedAt: '' }];
  t.emit({ type: 'config', what: 'templates' });
  await settle();
  assert.equal(store.getState().templates.length, 2);

  store.getState().setType('track');
  store.getState().update({ userId: 'changed' });
  store.getState().loadTemplate('link');
  const form = store.getState().form;
  assert.deepEqual([form.type, form.source, form.previousId, form.userId], ['alias', 'web', 'anon', 'u']);
  assert.equal(store.getState().currentTemplate, 'link');

  await store.getState().deleteTemplate('link');
  assert.deepEqual(store.getState().templates.map((x) => x.name), ['other']);
  assert.equal(store.getState().currentTemplate, null);
});

test('compose store: every missing field at once, nothing sent; after a send, whether it becomes a delivery and why not', async () => {
  const destination = (o: Partial<Destination>): Destination => ({
    id: 1,
    name: 'Local receiver',
    enabled: true,
    sources: ['backend'],
    sharedSecret: null,
    webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {}, enabled: true }],
    createdAt: '',
    signing: 'x-signature',
    warp: 1,
    ...o,
  });
  let destinations = [destination({})];
  const t = scripted({
    listSources: () => SOURCES,
    listTemplates: () => [],
    listDestinations: () => destinations,
    composeEvents: () => ({ sent: 1, messageIds: ['a'], endpoint: 'http://127.0.0.1:1/v1/batch' }),
  });
  const { store, start } = createComposeStore(t.transport);
  start();
  await settle();
  store.getState().setType('group');
  store.getState().update({ traits: '{' });
  await store.getState().send();
  assert.deepEqual(Object.keys(store.getState().fieldErrors).sort(), ['groupId', 'traits', 'userId']);
  assert.equal(store.getState().fieldErrors.groupId, 'groupId is required.');
  assert.ok(!t.calls.some((c) => c.method === 'composeEvents'));

  store.getState().setType('track');
  store.getState().update({ userId: 'u', event: 'E' });
  await store.getState().send();
  assert.deepEqual(store.getState().resultReach, { delivers: true, to: ['Local receiver'] });

  store.getState().setIntegration(0, false);
  await store.getState().send();
  assert.deepEqual(store.getState().resultReach, { delivers: false, why: 'the Webhooks switch is off for this call (its integrations leave Webhooks out)' });

  store.getState().setIntegration(0, true);
  destinations = [destination({ webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {}, enabled: false }] })];
  t.emit({ type: 'config', what: 'destinations' });
  await settle();
  await store.getState().send();
  assert.deepEqual(store.getState().resultReach, { delivers: false, why: 'every webhook URL of “Local receiver” is switched off' });
});

test('what Deliveries searches for after a send: the one messageId, else who the copies are from', () => {
  assert.equal(searchFor(['ajs-1'], { userId: 'u-1' }), 'ajs-1');
  assert.equal(searchFor(['a', 'b'], { userId: 'u-1', anonymousId: 'anon-1' }), 'u-1');
  assert.equal(searchFor(['a', 'b'], { anonymousId: 'anon-1' }), 'anon-1');
  assert.equal(searchFor(['a', 'b'], { userId: '' }), null);
  assert.equal(searchFor([], {}), null);
});
