import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { API_METHODS, type ApiResponse, type EngineApi } from '../../src-shared/api';
import type { HookbenchBridge } from '../../src-shared/bridge';
import { ApiCallError } from '../../src-renderer/transport';
import { ipcTransport } from '../../src-renderer/transport-ipc';
import { createEngineApi } from '../engine/api';
import { startHarness, type Harness } from '../engine/testing/harness';
import { answerCall, guardedCalls, isOwnRenderer, type RendererLocation } from './ipc-guard';

const BUILT: RendererLocation = { kind: 'file', indexUrl: 'file:///opt/Hookbench/resources/app.asar/out/renderer/index.html' };
const DEV: RendererLocation = { kind: 'dev', url: 'http://localhost:5173/' };

describe('the sender check', () => {
  const cases: [string | null | undefined, RendererLocation, boolean][] = [
    ['file:///opt/Hookbench/resources/app.asar/out/renderer/index.html', BUILT, true],
    ['file:///opt/Hookbench/resources/app.asar/out/renderer/index.html?ingest=x#/deliveries', BUILT, true],
    ['file:///opt/Hookbench/resources/app.asar/out/renderer/other.html', BUILT, false],
    ['file:///tmp/index.html', BUILT, false],
    ['file://evil-host/opt/Hookbench/resources/app.asar/out/renderer/index.html', BUILT, false],
    ['https://example.com/opt/Hookbench/resources/app.asar/out/renderer/index.html', BUILT, false],
    ['http://localhost:5173/', DEV, true],
    ['http://localhost:5173/src/main.tsx', DEV, true],
    ['http://localhost:5174/', DEV, false],
    ['https://localhost:5173/', DEV, false],
    ['http://localhost.evil.com:5173/', DEV, false],
    ['file:///opt/Hookbench/resources/app.asar/out/renderer/index.html', DEV, false],
    ['', BUILT, false],
    [null, BUILT, false],
    [undefined, DEV, false],
    ['not a url', BUILT, false],
    ['data:text/html,<script>1</script>', { kind: 'dev', url: 'data:text/html,x' }, false],
  ];
  for (const [frame, renderer, expected] of cases) {
    test(`${String(frame)} against ${renderer.kind} → ${expected ? 'ours' : 'refused'}`, () => {
      assert.equal(isOwnRenderer(frame, renderer), expected);
    });
  }
});

describe('the invoke channel over a real engine', () => {
  const withApi = async (run: (api: EngineApi, h: Harness) => Promise<void>): Promise<void> => {
    const h = await startHarness({ sources: [], destinations: [] });
    try {
      await run(createEngineApi(h.engine), h);
    } finally {
      await h.close();
    }
  };

  test('an unknown method is refused, naming every known one', () =>
    withApi(async (api) => {
      const answer = await answerCall(api, { method: 'dropDatabase', params: {} });
      assert.equal(answer.ok, false);
      if (answer.ok) return;
      assert.equal(answer.error.code, 'unknown_method');
      assert.match(answer.error.message, /^"dropDatabase" is not a Hookbench API method; known: /);
      for (const name of API_METHODS) assert.ok(answer.error.message.includes(name), `lists ${name}`);
    }));

  test('names that only look like methods (inherited, prototype) are refused too', () =>
    withApi(async (api) => {
      for (const method of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
        const answer = await answerCall(api, { method });
        assert.deepEqual(answer.ok ? null : answer.error.code, 'unknown_method', method);
      }
    }));

  test('a request without a method name is a bad request', () =>
    withApi(async (api) => {
      for (const request of [null, 'listSources', ['listSources'], { params: {} }, { method: 42 }]) {
        const answer = await answerCall(api, request);
        assert.equal(answer.ok ? null : answer.error.code, 'bad_request', JSON.stringify(request));
      }
    }));

  test('a known method runs against the engine', () =>
    withApi(async (api) => {
      const saved = await answerCall(api, { method: 'saveSource', params: { name: 'web', writeKey: 'wk_web' } });
      assert.equal(saved.ok, true);
      const listed = (await answerCall(api, { method: 'listSources' })) as ApiResponse<{ name: string }[]>;
      assert.deepEqual(listed.ok ? listed.result.map((s) => s.name) : listed.error, ['web']);
    }));

  test('a validation error keeps its code, message and fields', () =>
    withApi(async (api) => {
      const answer = await answerCall(api, { method: 'saveSource', params: { name: 'web', writeKey: 'has spaces' } });
      assert.equal(answer.ok, false);
      if (answer.ok) return;
      assert.equal(answer.error.code, 'validation_failed');
      assert.deepEqual(answer.error.fields?.map((f) => f.field), ['source.writeKey']);
      assert.match(answer.error.message, /^source\.writeKey: must be/);
    }));

  test('a call from a frame that is not our renderer is refused before the engine sees it', () =>
    withApi(async (api, h) => {
      const call = guardedCalls(api, BUILT);
      for (const frame of ['https://evil.example/', 'file:///tmp/index.html', null]) {
        const answer = await call(frame, { method: 'saveSource', params: { name: 'evil', writeKey: 'wk_evil' } });
        assert.equal(answer.ok ? null : answer.error.code, 'forbidden', String(frame));
      }
      assert.deepEqual(h.engine.stores.config.listSources(), []);
      const ours = await call(`${(BUILT as { indexUrl: string }).indexUrl}?ingest=x`, { method: 'listSources' });
      assert.equal(ours.ok, true);
    }));

  test('through the renderer transport, as IPC carries it (structured clone both ways)', () =>
    withApi(async (api) => {
      const call = guardedCalls(api, BUILT);
      const frame = (BUILT as { indexUrl: string }).indexUrl;
      const bridge: HookbenchBridge = {
        call: async (method, params) => structuredClone(await call(frame, structuredClone({ method, params }))) as never,
        subscribe: () => () => {},
        platform: 'linux',
      };
      const transport = ipcTransport(bridge);
      const source = await transport.call('saveSource', { name: 'web', writeKey: 'wk_web' });
      assert.equal(source.name, 'web');
      await assert.rejects(
        transport.call('saveDestination', {
          name: 'hooks',
          enabled: true,
          sources: ['web'],
          sharedSecret: null,
          webhooks: Array.from({ length: 6 }, (_, i) => ({ url: `http://127.0.0.1:9/${i}`, headers: {} })),
        }),
        (err: unknown) => {
          assert.ok(err instanceof ApiCallError);
          assert.equal(err.code, 'validation_failed');
          assert.match(err.message, /webhooks/);
          assert.ok(err.fields?.some((f) => f.field.includes('webhooks')), JSON.stringify(err.fields));
          return true;
        },
      );
    }));
});
