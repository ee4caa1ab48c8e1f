/**
 * Clearing the log: `hookbench clear` as a real process on a real data folder (and its refusal
 * while a real `hookbench serve` holds the folder), and Clear log over the control API of a real
 * server with a delivery still retrying.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiResponse, ClearLogResult, StorageStatus } from '../../src-shared/api';
import { createEngine } from '../engine';
import { configWith, startHarness, type Harness } from '../engine/testing/harness';
import { Receiver } from '../engine/testing/receiver';
import { waitUntil } from '../engine/testing/wait';
import { startServe } from './testing/process';
import { LogInspector } from '../engine/store/inspect';

const root = new URL('../../', import.meta.url).pathname;
const clear = (args: string[]): ReturnType<typeof spawnSync> =>
  spawnSync(process.execPath, ['bin/hookbench.mjs', 'clear', ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

function counts(dir: string): Record<string, number> {
  const db = LogInspector.of(dir, { readonly: true });
  try {
    const n = (table: string): number => db.count(table);
    return {
      sources: n('sources'),
      destinations: n('destinations'),
      requests: n('requests'),
      messages: n('messages'),
      deliveries: n('deliveries'),
      attempts: n('attempts'),
      profiles: n('persona_profiles'),
      // The search index's pages of segments: FTS5 numbers them from segment id << 37.
      searchPages: db.count('message_text_data', 'id >= ?', 2 ** 37),
    };
  } finally {
    db.close();
  }
}

test('hookbench clear on a real data folder: says what would go, then clears the log and keeps the configuration', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-clear-'));
  const receiver = await new Receiver().start();
  try {
    const h = await startHarness(configWith(receiver.url), { dataDir: dir });
    for (let i = 0; i < 5; i++) assert.equal((await h.post('/v1/identify', { userId: `user-${i}`, traits: { n: i } })).status, 200);
    assert.equal((await h.post('/v1/track', {}, { writeKey: 'nope' })).status, 200, 'an unknown key is answered 200 and logged as refused');
    await waitUntil(() => h.engine.stores.log.countDeliveriesByStatus().succeeded === 5, 'five deliveries');
    await h.close();
    // Each commit read its messages into the profiles.
    const before = counts(dir);
    assert.ok((before.searchPages ?? 0) > 0, 'the messages were indexed');
    assert.deepEqual(before, { sources: 1, destinations: 1, requests: 6, messages: 5, deliveries: 5, attempts: 5, profiles: 5, searchPages: before.searchPages });

    const dry = clear(['--data-dir', dir]);
    assert.equal(dry.status, 1, dry.stderr as string);
    assert.match(dry.stdout as string, /6 requests, 5 messages, 5 deliveries \(0 still pending or retrying, which stay\)/);
    assert.match(dry.stdout as string, /hookbench clear --yes removes/);
    assert.equal(counts(dir).messages, 5, 'nothing removed without --yes');

    const done = clear(['--data-dir', dir, '--yes']);
    assert.equal(done.status, 0, done.stderr as string);
    assert.match(done.stdout as string, /cleared .*: 6 requests, 5 messages, 5 deliveries, 5 attempts, 0 dropped items, 0 receiver requests; kept 0 deliveries/);
    // The profiles read every message before it went, and stay; the search index's segments, whose
    // rows were all marked gone, were dropped.
    assert.deepEqual(counts(dir), { sources: 1, destinations: 1, requests: 0, messages: 0, deliveries: 0, attempts: 0, profiles: 5, searchPages: 0 });
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hookbench clear refuses a folder a running hookbench serve holds, naming its pid and the way to do it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-clear-'));
  const serve = await startServe(['--data-dir', dir, '--port', '0']);
  try {
    const r = clear(['--data-dir', dir, '--yes']);
    assert.equal(r.status, 2);
    assert.match(r.stderr as string, new RegExp(`a running Hookbench \\(pid ${serve.child.pid}\\) is using .*; use "Clear log" in its Configure view, or stop it`));
    const none = clear(['--data-dir', join(dir, 'missing')]);
    assert.equal(none.status, 2);
    assert.match(none.stderr as string, /there is no Hookbench log in/);
  } finally {
    serve.child.kill('SIGINT');
    await serve.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});

async function call<T>(h: Harness, method: string, params?: unknown): Promise<T> {
  const res = await fetch(`${h.server.url}/api/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method, params }),
  });
  const body = (await res.json()) as ApiResponse<T>;
  assert.ok(body.ok, JSON.stringify(body));
  return body.result;
}

test('Clear log over the control API: finished rows go, a retrying delivery and its message stay; retention settings are saved and refused by field', async () => {
  const receiver = await new Receiver().start();
  receiver.respond((req, res) => {
    res.writeHead(req.body.includes('u-fail') ? 503 : 200);
    res.end();
  });
  const h = await startHarness(configWith(receiver.url));
  try {
    for (const userId of ['u1', 'u2', 'u-fail']) assert.equal((await h.post('/v1/track', { userId, event: 'E' })).status, 200);
    await waitUntil(() => {
      const s = h.engine.stores.log.countDeliveriesByStatus();
      return s.succeeded === 2 && s.retrying === 1;
    }, 'two delivered, one retrying');

    const result = await call<ClearLogResult>(h, 'clearLog');
    assert.deepEqual(result, { requests: 2, messages: 2, deliveries: 2, attempts: 2, droppedItems: 0, receiverRequests: 0, keptActiveDeliveries: 1 });
    const left = h.inspect.all('SELECT user_id FROM messages') as { user_id: string }[];
    assert.deepEqual(left, [{ user_id: 'u-fail' }]);
    assert.deepEqual(h.engine.stores.log.countDeliveriesByStatus(), { retrying: 1 });
    assert.equal(h.engine.stores.config.listSources().length, 1);

    const saved = await call<StorageStatus>(h, 'saveRetention', { days: 7 });
    assert.deepEqual(saved.retention, { days: 7, megabytes: 1024 });
    assert.deepEqual((await call<StorageStatus>(h, 'getStorage')).retention, { days: 7, megabytes: 1024 });
    const refused = await fetch(`${h.server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'saveRetention', params: { megabytes: 0 } }),
    });
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as ApiResponse;
    assert.ok(!body.ok);
    assert.deepEqual(body.error.fields, [{ field: 'retention.megabytes', message: 'must be a whole number of megabytes from 1 to 1048576' }]);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('Clear log says how far it has got while it runs, answers other calls meanwhile, and gives the freed space back', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  try {
    const sent = 6_000;
    for (let b = 0; b < sent / 100; b++) {
      const batch = Array.from({ length: 100 }, (_, k) => ({ type: 'track', userId: `u${(b * 100 + k) % 97}`, event: 'Order Completed', properties: { pad: 'x'.repeat(300) } }));
      assert.equal((await h.post('/v1/batch', { batch })).status, 200);
    }
    await waitUntil(() => h.engine.stores.log.countDeliveriesByStatus().succeeded === sent, 'every delivery sent');
    const before = await call<StorageStatus>(h, 'getStorage');
    assert.equal(before.clearing, null);

    const clearing = call<ClearLogResult>(h, 'clearLog');
    const seen: NonNullable<StorageStatus['clearing']>[] = [];
    let finished = false;
    void clearing.finally(() => (finished = true));
    while (!finished) {
      const status = await call<StorageStatus>(h, 'getStorage');
      if (status.clearing) seen.push(status.clearing);
    }
    const result = await clearing;
    assert.equal(result.messages, sent);

    // Asked between the clear's slices: the progress grew, it started from the span of ids, and
    // the other calls were answered while it ran.
    const removing = seen.filter((p) => !p.releasing);
    assert.ok(removing.length >= 3, `progress read ${removing.length} times while removing`);
    assert.ok(removing.some((p) => p.removedMessages > 0 && p.removedMessages < sent), JSON.stringify(removing.map((p) => p.removedMessages)));
    for (let k = 1; k < removing.length; k++) assert.ok(removing[k]!.removedMessages >= removing[k - 1]!.removedMessages);
    assert.ok(seen.every((p) => p.aboutMessages === sent && p.startedAt === seen[0]!.startedAt));

    const after = await call<StorageStatus>(h, 'getStorage');
    assert.equal(after.clearing, null);
    assert.equal(h.inspect.pragma('freelist_count'), 0, 'every freed page given back');
    // The pages the rows took (the file on disk may not have been written from the WAL yet before).
    assert.ok(after.usedBytes < before.usedBytes / 2, `${before.usedBytes} → ${after.usedBytes} bytes used`);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a data folder made before retention is converted to incremental vacuum at start', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-clear-'));
  try {
    const old = LogInspector.of(dir);
    old.exec('PRAGMA journal_mode = WAL');
    old.exec('CREATE TABLE filler (x TEXT)');
    old.close();
    const engine = createEngine({ dataDir: dir });
    await engine.stop();
    const inspect = LogInspector.of(dir, { readonly: true });
    const mode = inspect.pragma('auto_vacuum');
    inspect.close();
    assert.equal(mode, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
