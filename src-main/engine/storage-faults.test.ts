import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { ManualClock } from './clock';
import { createEngine } from './index';
import { createEngineApi } from './api';
import { StorageFaultError } from './store/storage-fault';
import { answerCall } from '../electron/ipc-guard';
import { startHarness, configWith, WRITE_KEY, type Harness } from './testing/harness';
import { Receiver } from './testing/receiver';
import { SmallDisk } from './testing/small-disk';
import { waitUntil } from './testing/wait';
import type { EngineHealth } from '../../src-shared/api';
import { LogInspector } from './store/inspect';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
before(() => process.on('unhandledRejection', onUnhandled));
after(() => process.off('unhandledRejection', onUnhandled));

async function postRaw(h: Harness, body: unknown): Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }> {
  const res = await fetch(`${h.server.url}/v1/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
}

async function healthz(h: Harness): Promise<{ ok: boolean; status: string; problem: EngineHealth['problem']; deliveries: Record<string, number> | null }> {
  const res = await fetch(`${h.server.url}/healthz`);
  return (await res.json()) as { ok: boolean; status: string; problem: EngineHealth['problem']; deliveries: Record<string, number> | null };
}

/** A batch big enough that the WAL must grow to take it (about 300 KB). */
function bigBatch(prefix: string, count = 250): { batch: Record<string, unknown>[] } {
  return {
    batch: Array.from({ length: count }, (_, i) => ({
      type: 'track',
      userId: `u${i}`,
      event: 'Big',
      messageId: `${prefix}-${i}`,
      properties: { pad: 'x'.repeat(1000) },
    })),
  };
}

function statusOf(h: Harness, messageId: string): string | undefined {
  const row = h.inspect.get('SELECT d.status FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = ?', messageId) as { status: string } | undefined;
  return row?.status;
}

describe('storage faults: the engine stays up, answers 503 and recovers by itself', () => {
  test('a full disk (a real tmpfs filled to the last byte): 503 disk_full with Retry-After, degraded health, kept rounds written and everything acknowledged delivered once space is freed', async () => {
    const disk = SmallDisk.mount(32 * 1024 * 1024);
    const receiver = await new Receiver().start();
    const held: ServerResponse[] = [];
    receiver.respond((_req, res) => held.push(res));
    const clock = new ManualClock(T0);
    const lines: string[] = [];
    const h = await startHarness(configWith(receiver.url), { dataDir: join(disk.dir, 'data'), clock, log: (l) => lines.push(l) });
    const events: EngineHealth[] = [];
    h.engine.onLive((e) => {
      if (e.type === 'health') events.push(e.health);
    });
    try {
      assert.equal((await postRaw(h, { batch: [{ type: 'track', userId: 'u0', event: 'First', messageId: 'first' }] })).status, 200);
      await receiver.waitFor(1);
      assert.equal(statusOf(h, 'first'), 'in_flight');

      disk.fill();
      const refused = await postRaw(h, bigBatch('big'));
      assert.equal(refused.status, 503);
      assert.equal(refused.body.code, 'disk_full');
      assert.equal(refused.retryAfter, '5');
      assert.match(String(refused.body.message), /free disk space on the disk that holds/);
      assert.equal((h.inspect.get("SELECT COUNT(*) AS n FROM messages WHERE message_id LIKE 'big-%'") as { n: number }).n, 0, 'nothing of a refused batch is kept');

      const degraded = await healthz(h);
      assert.equal(degraded.status, 'degraded');
      assert.equal(degraded.ok, false);
      assert.equal(degraded.problem?.code, 'disk_full');
      assert.equal(degraded.problem?.dataDir, join(disk.dir, 'data'));
      assert.ok(degraded.deliveries, 'the old fields still answer');
      assert.deepEqual(events.map((e) => e.status), ['degraded']);

      // While degraded, a call is answered at once without trying the disk, and the refusal is not logged.
      const small = await postRaw(h, { batch: [{ type: 'track', userId: 'u1', event: 'Later', messageId: 'later' }] });
      assert.equal(small.status, 503);
      assert.equal(small.body.code, 'disk_full');

      // The round in flight finishes while the disk is full: kept in memory, not lost.
      held.shift()?.end('ok');
      await waitUntil(() => receiver.received.length === 1 && held.length === 0, 'the held response to be sent');
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(statusOf(h, 'first'), 'in_flight');

      // Still full: the probe on the clock keeps the engine degraded.
      clock.advance(1000);
      assert.equal((await healthz(h)).status, 'degraded');

      receiver.respond((_req, res) => res.end('ok'));
      disk.free();
      clock.advance(1000);
      const healthy = await healthz(h);
      assert.equal(healthy.status, 'ok');
      assert.equal(healthy.problem, null);
      assert.deepEqual(events.map((e) => e.status), ['degraded', 'ok']);
      await waitUntil(() => statusOf(h, 'first') === 'succeeded', 'the kept round to be written');
      assert.equal(receiver.received.length, 1, 'the kept round was not sent again');

      // The SDKs' retries are accepted and delivered.
      assert.equal((await postRaw(h, bigBatch('big'))).status, 200);
      assert.equal((await postRaw(h, { batch: [{ type: 'track', userId: 'u1', event: 'Later', messageId: 'later' }] })).status, 200);
      await receiver.waitFor(1 + 250 + 1);
      await waitUntil(() => statusOf(h, 'later') === 'succeeded' && statusOf(h, 'big-249') === 'succeeded', 'every acknowledged message delivered');
      assert.ok(lines.some((l) => /storage disk_full/.test(l)) && lines.some((l) => /writable again/.test(l)), lines.join('\n'));
      assert.deepEqual(unhandled, []);
    } finally {
      await h.close();
      await receiver.close();
      disk.unmount();
    }
  });

  test('a full disk with no destination: every valid call is a 503 disk_full (never a 500), a bad one still its 400, and the engine stays up', async () => {
    const disk = SmallDisk.mount(16 * 1024 * 1024);
    const clock = new ManualClock(T0);
    const h = await startHarness({ sources: [{ name: 'backend', writeKey: WRITE_KEY }], destinations: [] }, { dataDir: join(disk.dir, 'data'), clock, log: () => {} });
    try {
      disk.fill();
      const answers = [];
      for (let i = 0; i < 15; i++) {
        const res = await postRaw(h, i % 2 === 0 ? bigBatch(`nd-${i}`) : { batch: 'not an array' });
        answers.push(`${res.status} ${String(res.body.code)}`);
      }
      assert.deepEqual(new Set(answers), new Set(['503 disk_full', '400 invalid_batch']));
      assert.equal(answers[0], '503 disk_full');
      disk.free();
      clock.advance(1000);
      assert.equal((await postRaw(h, { batch: 'not an array' })).status, 400, 'refusals are judged and logged again');
      assert.deepEqual(unhandled, []);
    } finally {
      await h.close();
      disk.unmount();
    }
  });

  test('a lock held by another connection: 503 database_locked within the short wait, /healthz answers at once, and what was acknowledged is delivered after release', async () => {
    const receiver = await new Receiver().start();
    const clock = new ManualClock(T0);
    const h = await startHarness(configWith(receiver.url), { clock, log: () => {} });
    const other = new LogInspector(join(h.dataDir, 'hookbench.sqlite'));
    try {
      // Acknowledged before the lock; its receiver is down so it is retried later.
      receiver.respond((_req, res) => {
        res.writeHead(503);
        res.end();
      });
      assert.equal((await postRaw(h, { batch: [{ type: 'track', userId: 'u0', event: 'Before', messageId: 'before' }] })).status, 200);
      await waitUntil(() => statusOf(h, 'before') === 'retrying', 'the first round to fail');
      receiver.respond((_req, res) => res.end('ok'));

      other.exec('BEGIN EXCLUSIVE');
      other.run("INSERT INTO settings (key, value) VALUES ('other.program', 'x')");
      let started = Date.now();
      const refused = await postRaw(h, { batch: [{ type: 'track', userId: 'u1', event: 'During', messageId: 'during' }] });
      const ingestMs = Date.now() - started;
      assert.equal(refused.status, 503);
      assert.equal(refused.body.code, 'database_locked');
      assert.ok(ingestMs < 1000, `the first call waited ${ingestMs} ms`);
      started = Date.now();
      const health = await healthz(h);
      const healthMs = Date.now() - started;
      assert.equal(health.problem?.code, 'database_locked');
      assert.ok(healthMs < 200, `/healthz took ${healthMs} ms`);
      // A control API call that needs a write says why it failed, on either transport.
      const api = createEngineApi(h.engine);
      await assert.rejects(api.saveSource({ name: 'other', writeKey: 'wk_other' }), (e) => e instanceof StorageFaultError && e.fault.code === 'database_locked');
      assert.deepEqual(
        await answerCall(api, { method: 'saveSource', params: { name: 'other', writeKey: 'wk_other' } }).then((a) => (a.ok ? null : a.error.code)),
        'database_locked',
      );
      assert.deepEqual(await api.getHealth(), h.engine.health.current());
      // The retry falls due while locked: nothing is claimed, nothing is lost.
      clock.advance(60_000);
      assert.equal((await healthz(h)).status, 'degraded');
      assert.equal(receiver.received.length, 1);

      other.exec('COMMIT');
      clock.advance(1000);
      assert.equal((await healthz(h)).status, 'ok');
      assert.equal((await postRaw(h, { batch: [{ type: 'track', userId: 'u1', event: 'During', messageId: 'during' }] })).status, 200);
      await waitUntil(() => statusOf(h, 'before') === 'succeeded' && statusOf(h, 'during') === 'succeeded', 'both delivered');
      assert.deepEqual(unhandled, []);
    } finally {
      other.close();
      await h.close();
      await receiver.close();
    }
  });

  test('at start-up and in an interval sync: a held lock degrades the engine instead of ending it; after release it resumes the interrupted delivery and runs the sync that fell due', async () => {
    const receiver = await new Receiver().start();
    const clock = new ManualClock(T0);
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-startlock-'));
    const dbPath = join(dataDir, 'hookbench.sqlite');
    try {
      const h = await startHarness(configWith(receiver.url), { clock, dataDir, log: () => {} });
      assert.equal((await postRaw(h, { batch: [{ type: 'track', userId: 'u1', event: 'Order Completed', messageId: 'buy-1' }] })).status, 200);
      await receiver.waitFor(1);
      const audience = await createEngineApi(h.engine).saveAudience({
        name: 'Buyers',
        space: 'backend',
        syncEveryMinutes: 60,
        condition: { kind: 'event', event: 'Order Completed' },
      });
      await receiver.waitFor(2);
      await waitUntil(() => h.engine.stores.log.countDeliveriesByStatus().succeeded === 2, 'both delivered');
      await h.close();

      // As a crash would leave it: the first delivery still in flight.
      const other = new LogInspector(dbPath);
      other.run("UPDATE deliveries SET status = 'in_flight' WHERE id = (SELECT MIN(id) FROM deliveries)");
      other.exec('BEGIN EXCLUSIVE');
      other.run("INSERT INTO settings (key, value) VALUES ('other.program', 'x')");

      const engine = createEngine({ dataDir, clock, random: () => 0.5, log: () => {} });
      try {
        assert.deepEqual(engine.start(), { attempts: 0, deliveries: 0 }, 'nothing could be resumed yet');
        assert.equal(engine.health.current().problem?.code, 'database_locked');
        const api = createEngineApi(engine);
        // The interval sync falls due while the lock is held: it fails, reported, and the engine stays up.
        clock.advance(61 * 60_000);
        assert.equal((await api.listSyncs(audience.id)).length, 1);
        assert.equal(engine.health.current().status, 'degraded');

        other.exec('COMMIT');
        clock.advance(1000);
        assert.equal(engine.health.current().status, 'ok');
        clock.advance(0);
        assert.equal((await api.listSyncs(audience.id)).length, 2, 'the sync that fell due ran once the log took writes');
        await receiver.waitFor(3);
        await waitUntil(() => (engine.stores.log.getDelivery(1)?.status === 'succeeded' ? true : undefined), 'the interrupted delivery resumed');
        assert.equal(JSON.parse(receiver.received[2]!.body.toString('utf8')).messageId, 'buy-1');
        assert.deepEqual(unhandled, []);
      } finally {
        other.close();
        await engine.stop();
      }
    } finally {
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
