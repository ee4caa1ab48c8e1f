import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiResponse, LiveEvent } from '../src-shared/api';
import type { HookbenchBridge } from '../src-shared/bridge';
import { ApiCallError, pickTransport, type ConnectionState } from './transport';
import { bridgeFrom, ipcTransport } from './transport-ipc';

/** A bridge like the preload's: answers from a table, records calls, lets the test push live events. */
function fakeBridge(answer: (method: string, params: unknown) => ApiResponse | Promise<ApiResponse>) {
  const calls: { method: string; params: unknown }[] = [];
  const listeners = new Set<(event: LiveEvent) => void>();
  const bridge: HookbenchBridge = {
    async call(method, params) {
      calls.push({ method, params });
      return (await answer(method, params)) as never;
    },
    subscribe(onEvent) {
      listeners.add(onEvent);
      return () => listeners.delete(onEvent);
    },
    platform: 'linux',
  };
  return { bridge, calls, listeners, push: (event: LiveEvent) => listeners.forEach((l) => l(event)) };
}

describe('the IPC transport', () => {
  test('a call carries method and params and resolves with the result', async () => {
    const fake = fakeBridge(() => ({ ok: true, result: [{ id: 1, name: 'web', writeKey: 'wk', createdAt: 'x' }] }));
    const sources = await ipcTransport(fake.bridge).call('listSources');
    assert.deepEqual(sources.map((s) => s.name), ['web']);
    await ipcTransport(fake.bridge).call('getDelivery', 7);
    assert.deepEqual(fake.calls, [
      { method: 'listSources', params: undefined },
      { method: 'getDelivery', params: 7 },
    ]);
  });

  test('an error answer becomes ApiCallError with its code and message', async () => {
    const fake = fakeBridge(() => ({
      ok: false,
      error: { code: 'validation_failed', message: 'webhooks: at most 5 URLs', fields: [{ field: 'webhooks', message: 'at most 5 URLs' }] },
    }));
    await assert.rejects(ipcTransport(fake.bridge).call('listDestinations'), (err: unknown) => {
      assert.ok(err instanceof ApiCallError);
      assert.equal(err.code, 'validation_failed');
      assert.equal(err.message, 'webhooks: at most 5 URLs');
      assert.deepEqual(err.fields, [{ field: 'webhooks', message: 'at most 5 URLs' }]);
      return true;
    });
  });

  test('a broken channel or a malformed answer is an ApiCallError in plain words, not a crash', async () => {
    const broken = fakeBridge(() => {
      throw new Error("Error invoking remote method 'hookbench:call': reply was never sent");
    });
    await assert.rejects(ipcTransport(broken.bridge).call('listSources'), (err: unknown) => {
      assert.ok(err instanceof ApiCallError);
      assert.equal(err.code, 'ipc_failed');
      assert.match(err.message, /^listSources: the app's main process did not answer \(.*reply was never sent\)$/);
      return true;
    });
    const garbled = fakeBridge(() => 'nonsense' as unknown as ApiResponse);
    await assert.rejects(ipcTransport(garbled.bridge).call('listSources'), { code: 'bad_response' });
  });

  test('subscribing reports connecting then connected, forwards live events, and stops on unsubscribe', () => {
    const fake = fakeBridge(() => ({ ok: true, result: null }));
    const states: ConnectionState[] = [];
    const events: LiveEvent[] = [];
    const stop = ipcTransport(fake.bridge).subscribe((e) => events.push(e), (s) => states.push(s));
    assert.deepEqual(states, ['connecting', 'connected']);
    fake.push({ type: 'deliveries', ids: [1, 2] });
    fake.push({ type: 'config', what: 'sources' });
    stop();
    fake.push({ type: 'requests', ids: [3] });
    assert.deepEqual(events, [
      { type: 'deliveries', ids: [1, 2] },
      { type: 'config', what: 'sources' },
    ]);
    assert.equal(fake.listeners.size, 0);
  });

  test('the engine stopping (the app quitting) turns the state to stopped', () => {
    const fake = fakeBridge(() => ({ ok: true, result: null }));
    const states: ConnectionState[] = [];
    const events: LiveEvent[] = [];
    const stop = ipcTransport(fake.bridge).subscribe((e) => events.push(e), (s) => states.push(s));
    fake.push({ type: 'stopped' });
    assert.deepEqual(states, ['connecting', 'connected', 'stopped']);
    assert.deepEqual(events, [{ type: 'stopped' }]);
    stop();
  });
});

describe('picking the transport', () => {
  test('the bridge wins when the preload put one on the window, with or without a token', async () => {
    const fake = fakeBridge(() => ({ ok: true, result: [] }));
    for (const search of ['', '?token=t']) {
      const picked = pickTransport(search, fake.bridge);
      assert.ok('transport' in picked);
      await picked.transport.call('listSources');
    }
    assert.equal(fake.calls.length, 2, 'both calls went over the bridge, not HTTP');
  });

  test('without a bridge: the HTTP transport with the token, or the reason there is none', () => {
    assert.ok('transport' in pickTransport('?token=t', undefined));
    const none = pickTransport('', undefined);
    assert.ok('problem' in none);
    assert.match(none.problem, /hookbench serve/);
  });

  test('only something shaped like the bridge counts as one', () => {
    const fake = fakeBridge(() => ({ ok: true, result: null }));
    assert.equal(bridgeFrom(fake.bridge), fake.bridge);
    for (const notBridge of [undefined, null, 'hookbench', {}, { call: () => {} }, { call: 1, subscribe: () => {} }, { platform: 'linux' }]) {
      assert.equal(bridgeFrom(notBridge), null, JSON.stringify(notBridge));
    }
  });
});
