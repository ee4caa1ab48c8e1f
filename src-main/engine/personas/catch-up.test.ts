/**
 * Profiles follow the log as it is committed; a log from before that catches up in bounded time.
 * The measure is printed; the bound (a second of CPU per 10,000 messages) is the project's budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InboundMessage } from '../../../src-shared/events';
import type { JsonObject } from '../../../src-shared/json';
import Database from 'better-sqlite3';
import { ManualClock } from '../clock';
import { createEngine } from '../index';
import type { AcceptedItem } from '../store/log-store';

const USERS = 10_000;
const PER_USER = 10;

function messagesOf(user: number, start: number): InboundMessage[] {
  const userId = `user-${String(user).padStart(5, '0')}`;
  const anonymousId = `anon-${user}`;
  const base = (type: InboundMessage['type'], k: number, extra: Partial<InboundMessage>): InboundMessage => ({
    type,
    messageId: `${userId}-${k}`,
    userId,
    anonymousId: null,
    context: { library: { name: 'bench' } },
    integrations: {},
    timestamp: new Date(start + k * 60_000).toISOString(),
    receivedAt: new Date(start + k * 60_000).toISOString(),
    ...extra,
  });
  const properties: JsonObject = { total: user % 100, currency: user % 2 ? 'EUR' : 'USD' };
  return [
    // Anonymous first, then identified with the same anonymousId: every user is one merge.
    base('track', 0, { userId: null, anonymousId, event: 'Product Viewed', properties }),
    base('identify', 1, { anonymousId, traits: { plan: user % 3 ? 'free' : 'pro', email: `${userId}@example.com` } }),
    ...Array.from({ length: PER_USER - 3 }, (_, i) => base('track', 2 + i, { event: i % 2 ? 'Order Completed' : 'Product Viewed', properties })),
    base('page', PER_USER - 1, { name: 'Home' }),
  ];
}

test(`profiles follow ${USERS * PER_USER} messages as they are committed, and a backlog of them catches up well under a second per 10,000`, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-personas-'));
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  let engine = createEngine({ dataDir, clock });
  try {
    engine.applyConfig({ sources: [{ name: 'backend', writeKey: 'wk' }], destinations: [] });
    const sourceId = engine.stores.config.listSources()[0]!.id;
    const start = clock.now() - 30 * 24 * 60 * 60_000;
    let batch: AcceptedItem[] = [];
    const flush = (): void => {
      engine.stores.log.commitRequest({ sourceId, path: '/v1/batch', receivedAt: clock.now(), httpStatus: 200, bytes: 0, userAgent: null }, sourceId, batch, [], 1);
      batch = [];
    };
    for (let u = 0; u < USERS; u++) {
      for (const message of messagesOf(u, start)) batch.push({ message, json: JSON.stringify(message), destinationIds: [] });
      if (batch.length >= 2500) flush();
    }
    if (batch.length > 0) flush();
    assert.equal(engine.personas.catchingUp(), undefined, 'commits leave no backlog, only messages owed to the next read');

    const expectOne = (): void => {
      const profile = engine.personas.getProfile('anon-42');
      assert.equal(profile?.profileId, 'user-00042');
      assert.deepEqual(profile?.traits, { email: 'user-00042@example.com', plan: 'pro' });
      assert.deepEqual(
        profile?.events.map((e) => [e.event, e.count]),
        [
          ['Order Completed', 3],
          ['Product Viewed', 5],
        ],
      );
    };
    expectOne();
    assert.equal(engine.personas.catchUp(), 0, 'the first read took in what the commits owed');
    assert.equal(engine.personas.listProfiles({ text: null, after: '', limit: 500 }).items.length, 500);
    const followed = engine.personas.listProfiles({ text: null, after: '', limit: 500 }).items;

    // The same log as a version before this one left it: messages, no profiles.
    await engine.stop();
    const db = new Database(join(dataDir, 'hookbench.sqlite'));
    db.exec(`DELETE FROM persona_profiles; DELETE FROM persona_ids; DELETE FROM persona_traits; DELETE FROM persona_tracks;
      DELETE FROM persona_events; UPDATE persona_cursor SET last_message_id = 0;`);
    db.close();
    engine = createEngine({ dataDir, clock });
    assert.ok(engine.personas.catchingUp(), 'the profiles owe the backlog');

    // CPU time, not wall time: on a machine busy with other work the wall clock measures the others.
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const read = engine.personas.catchUp();
    const cpu = process.cpuUsage(cpu0);
    const wall = performance.now() - t0;
    const ms = (cpu.user + cpu.system) / 1000;
    console.log(
      `personas catch-up: ${read} messages in ${ms.toFixed(0)} ms of CPU, ${wall.toFixed(0)} ms of wall time (${((ms / read) * 10_000).toFixed(0)} ms of CPU per 10,000)`,
    );
    assert.equal(read, USERS * PER_USER);
    assert.ok(ms < (read / 10_000) * 1000, `${ms.toFixed(0)} ms is over the budget of a second per 10,000 messages`);
    assert.equal(engine.personas.catchingUp(), undefined);
    expectOne();
    assert.deepEqual(engine.personas.listProfiles({ text: null, after: '', limit: 500 }).items, followed, 'the same profiles either way');

    for (const message of messagesOf(USERS, start)) batch.push({ message, json: JSON.stringify(message), destinationIds: [] });
    flush();
    assert.equal(engine.personas.catchingUp(), undefined, 'caught up, a commit leaves its messages owed, not a backlog');
    assert.equal(engine.personas.getProfile(`user-${USERS}`)?.events.length, 2);
    assert.equal(engine.personas.catchUp(), 0);
  } finally {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
