/**
 * Export and import from the UI: the view filters as export scopes (pure), and the store against a
 * real engine behind a real server, through the renderer's HTTP transport.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, startHarness, WRITE_KEY } from '../../../src-main/engine/testing/harness';
import { serverTransport } from '../../testing/server-transport';
import type { Transport } from '../../transport';
import type { ApiMethod, ApiParams, ApiResult } from '../../../src-shared/api';
import { exportFileName, scopeOfDeliveries, scopeOfInbound } from './scope';
import { blobSink, createTransferStore, openFileSink, type ExportSink } from './store';

test('a view filter as an export scope: what applies goes into the message filter, the rest is named', () => {
  assert.deepEqual(scopeOfDeliveries({ type: 'track', status: ['failed'], violations: 'any', from: '2026-01-01T00:00:00Z', text: 'u-1', url: 'hook' }), {
    filter: { type: 'track', deliveryStatus: 'failed', violations: 'any', since: '2026-01-01T00:00:00Z' },
    applied: ['type track', 'status failed (messages with a delivery in it)', 'violating the tracking plan', 'time range (when the message was received)'],
    ignored: ['URL', 'search'],
  });
  assert.deepEqual(scopeOfDeliveries({ status: ['failed', 'retrying'] }).ignored, ['status (only one status can apply)']);
  assert.deepEqual(scopeOfDeliveries({}), { filter: {}, applied: [], ignored: [] });
  const sources = [{ id: 3, name: 'web', writeKey: 'wk', createdAt: '2026-01-01T00:00:00.000Z' }];
  assert.deepEqual(scopeOfInbound({ sourceId: 3, to: '2026-02-01T00:00:00Z', path: '/v1/t', status: 'refused' }, sources), {
    filter: { source: 'web', until: '2026-02-01T00:00:00Z' },
    applied: ['source web', 'time range (when the message was received)'],
    ignored: ['status refused (refused calls carry no messages)', 'path'],
  });
  assert.equal(exportFileName(new Date(2026, 10, 23, 9, 5, 7), 'har'), 'hookbench-2026-11-23-090507.har');
});

test('the store exports page by page into one file, stops on Cancel without saving, and imports with the summary', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/closed', { enabled: false }));
  const http = serverTransport(h.server.url, h.server.token);
  try {
    await h.post('/v1/batch', { batch: Array.from({ length: 5 }, (_, i) => ({ type: 'track', event: 'E', userId: `u-${i}`, messageId: `m-${i}` })) });
    const saved: { name: string; file: Blob }[] = [];
    const calls: string[] = [];
    let onPage: (() => void) | null = null;
    const transport: Transport = {
      ...http,
      call: async <M extends ApiMethod>(method: M, params?: ApiParams<M>): Promise<ApiResult<M>> => {
        calls.push(method);
        const result = await http.call(method, params);
        if (method === 'exportMessages') onPage?.();
        return result;
      },
    };
    // Where the picker is declined nothing is read; a sink that is written page by page is aborted on Cancel.
    let declining = false;
    const streamed: { name: string; writes: string[]; ended: 'closed' | 'aborted' | null }[] = [];
    let streaming = false;
    const openSink = async (name: string, type: string): Promise<ExportSink | null> => {
      if (declining) return null;
      if (!streaming) return blobSink(name, type, (n, file) => saved.push({ name: n, file }));
      const s = { name, writes: [] as string[], ended: null as 'closed' | 'aborted' | null };
      streamed.push(s);
      return {
        write: async (text) => void s.writes.push(text),
        close: async () => void (s.ended = 'closed'),
        abort: async () => void (s.ended = 'aborted'),
      };
    };
    const { store } = createTransferStore(transport, { openSink, now: () => new Date(2026, 0, 2, 3, 4, 5), pageSize: 2 });

    await store.getState().startExport('ndjson', { userId: 'u-1' });
    await store.getState().startExport('ndjson', {});
    assert.equal(saved.length, 2);
    assert.equal(saved[0]?.name, 'hookbench-2026-01-02-030405.ndjson');
    assert.equal(saved[1]?.file.type, 'application/x-ndjson');
    const lines = (await saved[1]?.file.text())?.trimEnd().split('\n') ?? [];
    assert.deepEqual(lines.map((l) => (JSON.parse(l) as { messageId: string }).messageId), ['m-0', 'm-1', 'm-2', 'm-3', 'm-4'], 'three pages of two, in order, one file');
    assert.deepEqual(store.getState().exportRun, { format: 'ndjson', state: 'done', done: 5, total: 5, file: 'hookbench-2026-01-02-030405.ndjson', error: null });

    calls.length = 0;
    onPage = () => store.getState().cancelExport();
    await store.getState().startExport('csv', {});
    assert.equal(calls.filter((c) => c === 'exportMessages').length, 1, 'no page is read after Cancel');
    assert.equal(saved.length, 2, 'a cancelled export saves nothing');
    assert.equal(store.getState().exportRun?.state, 'cancelled');

    onPage = null;
    declining = true;
    calls.length = 0;
    await store.getState().startExport('ndjson', {});
    assert.deepEqual(calls, [], 'the picker declined: nothing is read');
    assert.equal(store.getState().exportRun?.state, 'cancelled');
    declining = false;
    streaming = true;
    await store.getState().startExport('ndjson', {});
    assert.deepEqual(streamed[0]?.writes.map((w) => w.trimEnd().split('\n').length), [2, 2, 1], 'each page written as it is read');
    assert.equal(streamed[0]?.ended, 'closed');
    onPage = () => store.getState().cancelExport();
    await store.getState().startExport('ndjson', {});
    assert.equal(streamed[1]?.ended, 'aborted', 'a cancelled export leaves no file');

    await store.getState().loadSources();
    const text = ['{"type":"track","event":"New","userId":"n-1","messageId":"n-1"}', '{"type":"track","userId":"n-2"}', '{"type":"track","event":"E","userId":"u-0","messageId":"m-0"}', 'oops'].join('\n');
    await store.getState().startImport({ name: 'back.ndjson', text }, WRITE_KEY);
    const run = store.getState().importRun;
    assert.equal(run?.state, 'done');
    assert.equal(run?.source, 'backend');
    assert.deepEqual(
      { accepted: run?.tally.accepted, invalid: run?.tally.invalid, duplicates: run?.tally.duplicates, skipped: run?.tally.skipped },
      { accepted: 1, invalid: 1, duplicates: 1, skipped: 1 },
    );
    assert.deepEqual(run?.skipped, ['line 4 skipped: not valid JSON']);
    assert.match(run?.tally.invalidReasons[0] ?? '', /event/);
  } finally {
    http.close();
    await h.close();
  }
});

test('the save picker: pages written to the picked file; a cancelled export removes the file the picker made; a closed picker starts nothing', async () => {
  const events: string[] = [];
  const holder = globalThis as unknown as { showSaveFilePicker?: unknown };
  let closing = false;
  holder.showSaveFilePicker = async (o: { suggestedName: string }) => {
    if (closing) throw new DOMException('The user aborted a request.', 'AbortError');
    events.push(`picked ${o.suggestedName}`);
    return {
      createWritable: async () => ({
        write: async (text: string) => void events.push(`write ${text}`),
        close: async () => void events.push('close'),
        abort: async () => void events.push('abort'),
      }),
      remove: async () => void events.push('remove'),
    };
  };
  try {
    const done = await openFileSink('a.ndjson', 'application/x-ndjson');
    assert.ok(done);
    await done.write('x\n');
    await done.close();
    const cancelled = await openFileSink('b.ndjson', 'application/x-ndjson');
    await cancelled?.write('y\n');
    await cancelled?.abort();
    assert.deepEqual(events, ['picked a.ndjson', 'write x\n', 'close', 'picked b.ndjson', 'write y\n', 'abort', 'remove']);
    closing = true;
    assert.equal(await openFileSink('c.ndjson', 'application/x-ndjson'), null);
  } finally {
    delete holder.showSaveFilePicker;
  }
});
