/**
 * The window's stores against a real engine behind a real server: a view that is left (its store
 * stopped) and shown again (started again) reads the engine anew but keeps what the user typed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, startHarness } from '../../src-main/engine/testing/harness';
import { waitUntil } from '../../src-main/engine/testing/wait';
import { httpTransport } from '../transport';
import { serverTransport } from '../testing/server-transport';
import { createViewStores } from './view-stores';

test('a half-edited destination, call, audience and deletion survive a tab switch; the views still read the engine anew', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const transport = serverTransport(h.server.url, h.server.token);
  const other = httpTransport(h.server.token, h.server.url);
  const stores = createViewStores(transport);
  try {
    const configure = stores.configure.store;
    let stop = stores.configure.start();
    await waitUntil(() => configure.getState().loaded, 'Configure loads');
    configure.getState().newDestination();
    configure.getState().updateDraft((d) => ({ ...d, name: 'Half done', webhooks: [{ url: 'http://127.0.0.1:9/half', headers: [], enabled: true }] }));
    const draft = configure.getState().draft;
    stores.compose.store.getState().update({ userId: 'user_half' });
    stores.audiences.store.getState().newAudience();
    stores.audiences.store.getState().update({ name: 'Half an audience' });
    stores.deletions.store.getState().setDraft({ userId: 'user_to_forget' });

    // Another tab is shown: Configure stops following the engine, and meanwhile a source appears.
    stop();
    await other.call('saveSource', { name: 'added-meanwhile', writeKey: 'wk_added_meanwhile' });

    stop = stores.configure.start();
    await waitUntil(() => configure.getState().sources.some((s) => s.name === 'added-meanwhile'), 'Configure reads the engine again');
    stop();
    assert.equal(configure.getState().draft, draft, 'the destination editor is as the user left it');
    assert.equal(configure.getState().draft?.name, 'Half done');
    assert.equal(stores.compose.store.getState().form.userId, 'user_half');
    assert.equal(stores.audiences.store.getState().editor?.form.name, 'Half an audience');
    assert.equal(stores.deletions.store.getState().draft.userId, 'user_to_forget');
  } finally {
    transport.close();
    await h.close();
  }
});
