/**
 * The Configure store against a real engine behind a real server, through the renderer's own HTTP
 * transport: refusals land by field (ours before sending, the engine's after), and changes made
 * elsewhere arrive through `config` live events.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineApi } from '../../../src-main/engine/api';
import { configWith, startHarness, WRITE_KEY } from '../../../src-main/engine/testing/harness';
import { waitUntil } from '../../../src-main/engine/testing/wait';
import { edit } from './destination-form';
import { createConfigureStore } from './store';
import { serverTransport } from '../../testing/server-transport';
import { httpTransport } from '../../transport';

async function setUp() {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const transport = serverTransport(h.server.url, h.server.token);
  let n = 0;
  const configure = createConfigureStore(transport, () => `wk_generated_${++n}`);
  const stop = configure.start();
  const s = configure.store;
  await waitUntil(() => s.getState().loaded, 'the first load');
  return {
    h,
    s,
    api: createEngineApi(h.engine),
    /** Another window on the same server. */
    other: httpTransport(h.server.token, h.server.url),
    async close() {
      stop();
      transport.close();
      await h.close();
    },
  };
}

test('loads sources, destinations, delivery settings and the ingest address', async () => {
  const { h, s, close } = await setUp();
  try {
    const state = s.getState();
    assert.deepEqual(state.environment, { ingestUrl: h.server.url, dataDir: h.dataDir, secrets: h.engine.secretsAtRest });
    assert.deepEqual(state.sources.map((o) => o.name), ['backend']);
    assert.equal(state.selectedSource, 'backend', 'the first source\'s snippets are shown');
    assert.deepEqual(state.destinations.map((d) => d.name), ['Local receiver']);
    assert.equal(state.delivery?.timeoutMs, 5000);
    assert.equal(state.sourceDraft.writeKey, 'wk_generated_1', 'a write key is ready for a new source');
  } finally {
    await close();
  }
});

test('sources: our refusal before sending, the engine\'s (a write key already in use) by field, then a save', async () => {
  const { s, api, close } = await setUp();
  try {
    s.getState().setSourceDraft({ name: '', writeKey: 'has spaces' });
    assert.equal(await s.getState().saveSource(), false);
    assert.deepEqual(
      s.getState().sourceErrors.map((e) => e.field),
      ['source.name', 'source.writeKey'],
    );

    s.getState().setSourceDraft({ name: 'web', writeKey: WRITE_KEY });
    assert.deepEqual(s.getState().sourceErrors, [], 'editing clears the refusal');
    assert.equal(await s.getState().saveSource(), false);
    assert.deepEqual(s.getState().sourceErrors, [{ field: 'source.writeKey', message: 'is already the write key of source "backend"' }]);
    assert.deepEqual((await api.listSources()).map((o) => o.name), ['backend'], 'nothing saved');

    s.getState().setSourceDraft({ writeKey: 'wk_web' });
    assert.equal(await s.getState().saveSource(), true);
    assert.equal(s.getState().sourceSaved, 'web');
    assert.equal(s.getState().selectedSource, 'web');
    assert.deepEqual(s.getState().sourceDraft, { name: '', writeKey: 'wk_generated_2' }, 'the form is ready for the next one');
    assert.deepEqual((await api.listSources()).map((o) => [o.name, o.writeKey]), [['backend', WRITE_KEY], ['web', 'wk_web']]);
  } finally {
    await close();
  }
});

test('sources: an existing name is refused in the form (no silent key change); Rotate write key replaces it and says which key stops working', async () => {
  const { s, api, close } = await setUp();
  try {
    s.getState().setSourceDraft({ name: 'backend', writeKey: 'wk_typed' });
    assert.equal(await s.getState().saveSource(), false);
    assert.deepEqual(s.getState().sourceErrors.map((e) => e.field), ['source.name']);
    assert.equal((await api.listSources())[0]?.writeKey, WRITE_KEY, 'the key is unchanged');

    assert.equal(await s.getState().rotateWriteKey('backend'), true);
    const [backend] = await api.listSources();
    assert.match(backend?.writeKey ?? '', /^wk_generated_/);
    assert.notEqual(backend?.writeKey, WRITE_KEY);
    assert.deepEqual(s.getState().rotated, { name: 'backend', oldKey: WRITE_KEY });
    assert.equal(s.getState().sources[0]?.writeKey, backend?.writeKey, 'the row shows the new key');
  } finally {
    await close();
  }
});

test('destinations: a rename keeps the id and the place in the list; a URL switched off is saved so', async () => {
  const { s, api, close } = await setUp();
  try {
    const [before] = await api.listDestinations();
    s.getState().editDestination('Local receiver');
    s.getState().updateDraft((d) => edit.setWebhookEnabled({ ...d, name: 'Renamed receiver' }, 0, false));
    assert.equal(await s.getState().saveDestination(), true);
    const [after] = await api.listDestinations();
    assert.equal(after?.id, before?.id);
    assert.equal(after?.name, 'Renamed receiver');
    assert.equal(after?.webhooks[0]?.enabled, false);
    assert.deepEqual(s.getState().destinations.map((d) => d.name), ['Renamed receiver']);
    assert.equal(s.getState().draft?.saved, 'Renamed receiver');

    // A new destination under an existing name would replace it: refused before sending.
    s.getState().newDestination();
    s.getState().updateDraft((d) => edit.setUrl({ ...d, name: 'Renamed receiver' }, 0, 'http://127.0.0.1:9/x'));
    assert.equal(await s.getState().saveDestination(), false);
    assert.deepEqual(s.getState().draftErrors.map((e) => e.field), ['destination.name']);
  } finally {
    await close();
  }
});

test('destinations: a 6th URL is refused before sending; the engine\'s refusal lands by field; nothing is half-saved', async () => {
  const { s, api, close } = await setUp();
  try {
    const before = await api.listDestinations();
    s.getState().newDestination();
    s.getState().updateDraft((d) => ({ ...d, name: 'Six' }));
    for (let i = 0; i < 6; i++) {
      if (i > 0) s.getState().updateDraft(edit.addWebhook);
      s.getState().updateDraft((d) => edit.setUrl(d, i, `http://127.0.0.1:9/${i}`));
    }
    assert.equal(await s.getState().saveDestination(), false);
    assert.deepEqual(s.getState().draftErrors.map((e) => e.field), ['destination.webhooks[5]']);
    assert.deepEqual(await api.listDestinations(), before, 'nothing saved');

    // A source removed elsewhere after the form was filled: only the engine knows; its refusal names the field.
    s.getState().updateDraft((d) => edit.removeWebhook(d, 5));
    assert.deepEqual(s.getState().draftErrors, [], 'a shown refusal goes as soon as the draft is fixed');
    s.getState().updateDraft((d) => edit.toggleSource(d, 'gone', true));
    assert.equal(await s.getState().saveDestination(), false);
    assert.deepEqual(s.getState().draftErrors, [{ field: 'destination.sources[1]', message: 'no source named "gone"' }]);
    assert.deepEqual(await api.listDestinations(), before, 'still nothing saved');

    s.getState().updateDraft((d) => edit.toggleSource(d, 'gone', false));
    s.getState().updateDraft((d) => ({ ...edit.setHeader(edit.addHeader(d, 0), 0, 0, { name: 'X-Env', value: 'dev' }), sharedSecret: 'sek' }));
    assert.equal(await s.getState().saveDestination(), true);
    assert.equal(s.getState().destinationSaved, 'Six');
    assert.equal(s.getState().draft?.saved, 'Six', 'the editor now edits the saved destination');
    const six = (await api.listDestinations()).find((d) => d.name === 'Six');
    assert.deepEqual(six?.webhooks[0], { url: 'http://127.0.0.1:9/0', headers: { 'X-Env': 'dev' }, enabled: true });
    assert.equal(six?.webhooks.length, 5);
    assert.deepEqual(six?.sources, ['backend']);
    assert.equal(six?.sharedSecret, 'sek');
    s.getState().updateDraft((d) => ({ ...d, enabled: false }));
    assert.equal(s.getState().destinationSaved, null, 'the saved marker goes once the draft changes');
  } finally {
    await close();
  }
});

test('removals: refused with the reason while attached; changes made elsewhere arrive live; the preset keeps the timeout', async () => {
  const { s, api, other, close } = await setUp();
  try {
    await s.getState().deleteSource('backend');
    assert.match(s.getState().removeErrors.backend ?? '', /^cannot be removed while destination "Local receiver" is attached to it/);
    assert.deepEqual(s.getState().sources.map((o) => o.name), ['backend']);

    s.getState().editDestination('Local receiver');
    await s.getState().deleteDestination('Local receiver');
    assert.equal(s.getState().draft, null, 'the editor of a deleted destination closes');
    await s.getState().deleteSource('backend');
    assert.deepEqual(s.getState().removeErrors, {});
    assert.deepEqual(s.getState().sources, []);
    assert.equal(s.getState().selectedSource, null);

    // Another window saves: the store follows through the live stream.
    await other.call('saveSource', { name: 'mobile', writeKey: 'wk_mobile' });
    await waitUntil(() => s.getState().sources.some((o) => o.name === 'mobile'), 'the new source to arrive live');
    assert.equal(s.getState().selectedSource, 'mobile');
    await other.call('saveDeliverySettings', { timeoutMs: 1000 });
    await waitUntil(() => s.getState().delivery?.timeoutMs === 1000, 'the new timeout to arrive live');

    await s.getState().setPreset('short');
    const saved = await api.getDeliverySettings();
    assert.equal(saved.retryWindowMs, 60_000);
    assert.equal(saved.timeoutMs, 1000, 'choosing a preset keeps the timeout in force');
    assert.deepEqual(s.getState().delivery, saved);
  } finally {
    await close();
  }
});

test('retention: the form starts from the engine, is refused by field before sending, saves, and follows a save made elsewhere', async () => {
  const { s, other, close } = await setUp();
  try {
    assert.deepEqual(s.getState().retentionDraft, { days: '30', megabytes: '1024' });
    assert.ok((s.getState().storage?.databaseBytes ?? 0) > 0);
    s.getState().setRetentionDraft({ days: '0', megabytes: 'lots' });
    assert.equal(await s.getState().saveRetention(), false);
    assert.deepEqual(
      s.getState().retentionErrors.map((e) => `${e.field}: ${e.message}`),
      ['retention.days: must be a whole number of days from 1 to 3650', 'retention.megabytes: must be a whole number of megabytes from 1 to 1048576'],
    );
    s.getState().setRetentionDraft({ days: '7', megabytes: '200' });
    assert.equal(await s.getState().saveRetention(), true);
    assert.deepEqual(s.getState().storage?.retention, { days: 7, megabytes: 200 });
    assert.equal(s.getState().retentionSaved, true);

    await other.call('saveRetention', { days: 14 });
    await waitUntil(() => s.getState().storage?.retention.days === 14, 'the retention live event');
    assert.deepEqual(s.getState().retentionDraft, { days: '14', megabytes: '200' });
  } finally {
    await close();
  }
});

test('Clear log: the log empties, the sources stay, and the store says what went', async () => {
  const { h, s, close } = await setUp();
  try {
    assert.equal((await h.post('/v1/track', {}, { writeKey: 'nope' })).status, 200);
    assert.equal((await h.post('/v1/track', {}, { writeKey: 'nope' })).status, 200);
    await s.getState().clearLog();
    assert.equal(s.getState().clearError, null);
    assert.deepEqual(s.getState().cleared, { requests: 2, messages: 0, deliveries: 0, attempts: 0, droppedItems: 0, keptActiveDeliveries: 0, receiverRequests: 0 });
    assert.equal((h.inspect.get('SELECT COUNT(*) AS n FROM requests') as { n: number }).n, 0);
    assert.deepEqual(s.getState().sources.map((o) => o.name), ['backend']);
  } finally {
    await close();
  }
});
