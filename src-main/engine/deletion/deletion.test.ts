import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock';
import { createEngineApi } from '../api';
import type { HookbenchConfig } from '../config';
import { createEngine, type EngineLiveEvent } from '../index';
import { startHarness, type Harness } from '../testing/harness';
import { Receiver, status } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { ValidationError } from '../../../src-shared/settings';
import type { DeletionRequest } from '../../../src-shared/personas';
import type { InboundMessage } from '../../../src-shared/events';
import { fixedSlices, type SliceSizing } from '../sliced-work';
import { REQUEST_BODY_OF } from '../store/request-body-pack';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const USER = 'user-to-forget-7f3a';
const hmac = (body: Buffer, secret: string): string => createHmac('sha1', secret).update(body).digest('hex');
const noticeBytes = (userId: string, at: number): string => `{"type":"delete","userId":"${userId}","timestamp":"${new Date(at).toISOString()}"}`;

/**
 * Four sources: web and mobile attached to the enabled "Hooks A" (web also to the enabled "Hooks B"),
 * legacy only to the disabled "Hooks Off", and empty (attached to Hooks A) with no data of the user.
 */
function fourSources(a: Receiver, b: Receiver, off: Receiver): HookbenchConfig {
  return {
    sources: [
      { name: 'web', writeKey: 'wk_web' },
      { name: 'mobile', writeKey: 'wk_mobile' },
      { name: 'legacy', writeKey: 'wk_legacy' },
      { name: 'empty', writeKey: 'wk_empty' },
    ],
    destinations: [
      { name: 'Hooks A', enabled: true, sources: ['web', 'mobile', 'empty'], sharedSecret: 'secret-a', webhooks: [{ url: a.url, headers: {} }] },
      { name: 'Hooks B', enabled: true, sources: ['web'], sharedSecret: 'secret-b', webhooks: [{ url: b.url, headers: {} }] },
      { name: 'Hooks Off', enabled: false, sources: ['legacy'], sharedSecret: null, webhooks: [{ url: off.url, headers: {} }] },
    ],
  };
}

/**
 * The user's data: on web as themself, with an anonymousId tied to them by an identify and the
 * anonymous page before it, and an alias from the anonymousId mobile saw; on mobile only that
 * anonymous activity; on legacy as themself. Plus another user on web and empty, and dropped items
 * (an invalid call and a duplicate) of the user on web.
 */
async function seed(h: Harness, deliveriesExpected: { a: Receiver; b: Receiver; count: { a: number; b: number } }): Promise<void> {
  const post = async (writeKey: string, body: unknown): Promise<void> => {
    const res = await h.post('/v1/batch', body, { writeKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  await post('wk_web', {
    batch: [
      { type: 'page', anonymousId: 'anon-web', name: 'Pricing', messageId: 'w-1' },
      { type: 'identify', userId: USER, anonymousId: 'anon-web', traits: { plan: 'pro' }, messageId: 'w-2' },
      { type: 'track', userId: USER, event: 'Order Completed', properties: { total: 30 }, messageId: 'w-3' },
      { type: 'alias', userId: USER, previousId: 'anon-mobile', messageId: 'w-4' },
      { type: 'track', userId: USER, messageId: 'w-bad' },
      { type: 'track', userId: 'someone-else', event: 'Order Completed', messageId: 'w-5' },
    ],
  });
  await post('wk_web', { batch: [{ type: 'track', userId: USER, event: 'Order Completed', properties: { total: 30 }, messageId: 'w-3' }] });
  await post('wk_mobile', { batch: [{ type: 'screen', anonymousId: 'anon-mobile', name: 'Home', messageId: 'm-1' }] });
  await post('wk_legacy', { batch: [{ type: 'track', userId: USER, event: 'Signed Up', messageId: 'l-1' }] });
  await post('wk_empty', { batch: [{ type: 'track', userId: 'someone-else', event: 'Signed Up', messageId: 'e-1' }] });
  await deliveriesExpected.a.waitFor(deliveriesExpected.count.a);
  await deliveriesExpected.b.waitFor(deliveriesExpected.count.b);
  await waitUntil(
    () => (h.inspect.get(`SELECT COUNT(*) AS n FROM deliveries WHERE status != 'succeeded'`) as { n: number }).n === 0,
    'every message delivery to succeed',
  );
}

/** Every row of every table that holds the text anywhere, except the rows named by skip. */
function rowsNaming(h: Harness, text: string, skip: (table: string, row: Record<string, unknown>) => boolean): string[] {
  const db = h.inspect;
  const tables = db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).map((t) => t.name);
  const hits: string[] = [];
  for (const table of tables) {
    const columns = db.all<{ name: string }>(`PRAGMA table_info("${table}")`).map((c) => c.name);
    // An Inbound call's kept body is packed on disk: searched as the text it stands for.
    const value = (c: string): string => (table === 'requests' && c === 'body' ? REQUEST_BODY_OF('t') : `CAST(t."${c}" AS TEXT)`);
    const where = columns.map((c) => `instr(${value(c)}, ?) > 0`).join(' OR ');
    const rows = db.all(`SELECT * FROM "${table}" t WHERE ${where}`, ...columns.map(() => text));
    for (const row of rows) if (!skip(table, row)) hits.push(`${table}: ${JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : v))}`);
  }
  return hits;
}

test('deletion: one notice per affected source and enabled destination, signed, exact bytes; forwarded, then purged', async () => {
  const clock = new ManualClock(T0);
  const [a, b, off] = await Promise.all([new Receiver().start('/a'), new Receiver().start('/b'), new Receiver().start('/off')]);
  const h = await startHarness(fourSources(a, b, off), { clock, liveIntervalMs: 1 });
  const api = createEngineApi(h.engine);
  const live: EngineLiveEvent[] = [];
  h.engine.onLive((e) => live.push(e));
  try {
    // web: 5 accepted messages to A and B each; mobile: 1 to A; empty: 1 to A; legacy: none (its destination is off).
    await seed(h, { a, b, count: { a: 7, b: 5 } });
    const userMessageIds = (h.inspect.all(`SELECT id FROM messages WHERE user_id = ? OR anonymous_id IN ('anon-web', 'anon-mobile')`, USER) as { id: number }[]).map((r) => r.id);
    assert.equal(userMessageIds.length, 6, 'w-1..w-4 and m-1 and l-1');
    const userDeliveryIds = (h.inspect.all(`SELECT id FROM deliveries WHERE message_id IN (SELECT value FROM json_each(?))`, JSON.stringify(userMessageIds)) as { id: number }[]).map((r) => r.id);
    assert.equal(userDeliveryIds.length, 9);
    const dropped = h.inspect.all('SELECT kind FROM dropped_items ORDER BY id') as { kind: string }[];
    assert.deepEqual(dropped.map((d) => d.kind), ['invalid', 'duplicate']);
    const before = { a: a.received.length, b: b.received.length };
    // The personas room builds the user's profile (with both anonymousIds merged into it) from the log.
    const profile = await api.getProfile(USER);
    assert.equal(profile?.userId, USER);
    assert.deepEqual([...(profile?.aliases ?? [])].sort(), ['anon-mobile', 'anon-web']);

    const afterRequest = live.length;
    const created = await api.requestDeletion({ userId: USER, purge: true });
    assert.equal(created.userId, USER);
    assert.equal(created.purge, true);
    assert.equal(created.purgedAt, null);
    assert.equal(created.createdAt, '2026-11-22T12:00:00.000Z');
    assert.deepEqual(created.affectedSources, ['legacy', 'mobile', 'web'], 'mobile holds only anonymous activity linked by the alias; empty holds none of the user');
    assert.deepEqual(
      created.notices.map((n) => `${n.source} → ${n.destination}`),
      ['mobile → Hooks A', 'web → Hooks A', 'web → Hooks B'],
      'none for legacy (its destination is off) nor for empty (no data of the user); two for web (two destinations)',
    );
    assert.equal(created.status, 'pending');
    assert.ok(created.notices.every((n) => n.status === 'pending'));

    await a.waitFor(before.a + 2);
    await b.waitFor(before.b + 1);
    const forwarded = await waitUntil(() => {
      const r = h.engine.deletions.get(created.id);
      return r?.status === 'forwarded' && r.purgedAt !== null ? r : undefined;
    }, 'the request to be forwarded and purged');
    assert.ok(forwarded.notices.every((n) => n.status === 'succeeded'));
    assert.equal(forwarded.purgedAt, '2026-11-22T12:00:00.000Z');
    assert.equal(forwarded.explanation, "all 3 notices were delivered; the user's stored messages and profile were purged at 2026-11-22T12:00:00.000Z");

    // The receivers got exactly {type, userId, timestamp}, signed with their destination's secret.
    const expected = noticeBytes(USER, T0);
    const gotA = a.received.slice(before.a);
    const gotB = b.received.slice(before.b);
    assert.equal(gotA.length, 2, 'one per source: web and mobile');
    assert.equal(gotB.length, 1);
    for (const [got, secret] of [...gotA.map((r) => [r, 'secret-a'] as const), ...gotB.map((r) => [r, 'secret-b'] as const)]) {
      assert.equal(got.body.toString('utf8'), expected);
      assert.deepEqual(Object.keys(JSON.parse(got.body.toString('utf8')) as object), ['type', 'userId', 'timestamp']);
      assert.equal(got.headers['x-signature'], hmac(got.body, secret));
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['user-agent'], 'Segment.io/1.0');
    }
    assert.equal(off.received.length, 0, 'nothing to the disabled destination');

    // Deliveries list and detail show the notices as delete deliveries of the user.
    const page = await api.listDeliveries({ type: 'delete' });
    assert.equal(page.items.length, 3);
    for (const s of page.items) {
      assert.equal(s.type, 'delete');
      assert.equal(s.userId, USER);
      assert.equal(s.messageRowId, null);
      assert.equal(s.messageId, null);
      assert.equal(s.status, 'succeeded');
    }
    assert.deepEqual((await api.listDeliveries({ text: 'TO-FORGET' })).items.map((s) => s.id).sort(), page.items.map((s) => s.id).sort(), 'found by the userId');
    const detail = await api.getDelivery(forwarded.notices[0]!.deliveryId);
    assert.equal(detail?.body, expected);
    assert.equal(detail?.signature.state, 'valid');
    assert.match(detail?.nextStep ?? '', /^delivered: 200/);

    // The purge: no row of any table (the profile tables included) names the user, but for the
    // audit trail (the request, its notices, and the notice deliveries with their attempts).
    assert.equal(await api.getProfile(USER), null);
    assert.equal(await api.getProfile('anon-web'), null);
    const noticeIds = new Set(forwarded.notices.map((n) => n.deliveryId));
    const hits = rowsNaming(h, USER, (table, row) =>
      table === 'deletion_requests' || table === 'deletion_notices' || (table === 'deliveries' && noticeIds.has(row.id as number)) || (table === 'attempts' && noticeIds.has(row.delivery_id as number)),
    );
    assert.deepEqual(hits, []);
    // The Inbound calls that carried the user keep their line, without the body.
    assert.deepEqual(
      h.inspect.all('SELECT id FROM requests WHERE body IS NULL AND body_clipped = 2 ORDER BY id').map((r) => r.id),
      [1, 2, 3, 4],
    );
    assert.ok(h.inspect.all('SELECT id FROM requests WHERE body IS NOT NULL').length > 0, 'calls that never named the user keep their body');
    // The linked anonymous ids went with the user's messages too.
    assert.deepEqual(rowsNaming(h, 'anon-web', () => false), []);
    assert.deepEqual(rowsNaming(h, 'anon-mobile', () => false), []);
    const left = (sql: string, ids: number[]): number => (h.inspect.get(sql, JSON.stringify(ids)) as { n: number }).n;
    assert.equal(left('SELECT COUNT(*) AS n FROM messages WHERE id IN (SELECT value FROM json_each(?))', userMessageIds), 0);
    assert.equal(left('SELECT COUNT(*) AS n FROM deliveries WHERE id IN (SELECT value FROM json_each(?))', userDeliveryIds), 0);
    assert.equal(left('SELECT COUNT(*) AS n FROM attempts WHERE delivery_id IN (SELECT value FROM json_each(?))', userDeliveryIds), 0);
    assert.equal((h.inspect.get('SELECT COUNT(*) AS n FROM dropped_items') as { n: number }).n, 0);
    // Someone else's data stays.
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'someone-else'`) as { n: number }).n, 2);
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM deliveries WHERE message_id IS NOT NULL`) as { n: number }).n, 3);

    assert.deepEqual(await api.listDeletions(), [forwarded]);
    assert.deepEqual(await api.getDeletion(created.id), forwarded);
    assert.equal(await api.getDeletion(created.id + 1), null);
    await waitUntil(() => live.some((e) => e.type === 'deletions' && e.ids.includes(created.id)), 'a deletions live event');
    // The purge's steps report what each removed: every purged delivery is in one of them.
    const reportedSince = (from: number): Set<number> => new Set(live.slice(from).flatMap((e) => (e.type === 'deliveries' ? e.ids : [])));
    await waitUntil(() => userDeliveryIds.every((id) => reportedSince(afterRequest).has(id)), 'the purged deliveries reported live');
  } finally {
    await h.close();
    await Promise.all([a.close(), b.close(), off.close()]);
  }
});

test('deletion: a notice answered 500 is retried while the request stays pending, fails when the window ends, and a replay forwards it', async () => {
  const clock = new ManualClock(T0);
  const receiver = await new Receiver().start();
  receiver.respond(status(500));
  const config: HookbenchConfig = {
    sources: [{ name: 'web', writeKey: 'wk_web' }],
    destinations: [{ name: 'Hooks', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: receiver.url, headers: {} }] }],
  };
  const h = await startHarness(config, { clock, liveIntervalMs: 1 });
  const api = createEngineApi(h.engine);
  const live: EngineLiveEvent[] = [];
  h.engine.onLive((e) => live.push(e));
  const deletionEvents = (from: number, id: number): number => live.slice(from).filter((e) => e.type === 'deletions' && e.ids.includes(id)).length;
  try {
    // No message delivery in the way: the user's only call carries integrations that turn Webhooks off.
    const res = await h.post('/v1/track', { userId: 'u-retry', event: 'E', integrations: { All: false }, messageId: 'r-1' }, { writeKey: 'wk_web' });
    assert.equal(res.status, 200);
    const created = await api.requestDeletion({ userId: 'u-retry', purge: true });
    assert.equal(created.notices.length, 1);
    const noticeId = created.notices[0]!.deliveryId;
    await waitUntil(() => deletionEvents(0, created.id) > 0, 'the live event of the new request');
    const afterCreation = live.length;

    await receiver.waitFor(1);
    let d = await waitUntil(() => {
      const row = h.engine.stores.log.getDelivery(noticeId);
      return row?.status === 'retrying' ? row : undefined;
    }, 'the first failure');
    assert.equal(h.engine.deletions.get(created.id)?.status, 'pending');
    assert.equal(h.engine.deletions.get(created.id)?.notices[0]?.status, 'retrying');
    assert.match(h.engine.deletions.get(created.id)?.explanation ?? '', /^0 of 1 notice delivered, 1 still being delivered; .* will be purged once every notice is delivered$/);

    while (d.status === 'retrying') {
      const rounds = d.rounds;
      clock.advance(d.next_attempt_at! - clock.now());
      d = await waitUntil(() => {
        const row = h.engine.stores.log.getDelivery(noticeId);
        return row && row.rounds > rounds && row.status !== 'in_flight' ? row : undefined;
      }, `round ${rounds + 1}`);
      if (d.status === 'retrying') assert.equal(h.engine.deletions.get(created.id)?.status, 'pending', 'pending while retries remain');
    }
    assert.equal(d.status, 'failed');
    assert.ok(receiver.received.length >= 10, `retried (${receiver.received.length} attempts)`);
    assert.ok(receiver.received.every((r) => r.body.toString('utf8') === noticeBytes('u-retry', T0)), 'every retry sends the same bytes');
    const failed = await waitUntil(() => {
      const r = h.engine.deletions.get(created.id);
      return r?.status === 'failed' ? r : undefined;
    }, 'the request to fail');
    assert.equal(failed.notices[0]?.status, 'failed');
    await waitUntil(() => deletionEvents(afterCreation, created.id) > 0, 'a live event for the change to failed');
    assert.match(failed.explanation ?? '', /not delivered: web → Hooks failed \(.*4 h.*\); replay a failed notice from Deliveries to try again; nothing was purged/);
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u-retry'`) as { n: number }).n, 1, 'no purge after a failure');

    // The receiver is fixed; a replay of the notice sends the same bytes, and the request follows it.
    receiver.respond(status(200));
    const attemptsBefore = receiver.received.length;
    const replay = await api.replayDelivery({ id: noticeId });
    assert.equal(replay.type, 'delete');
    assert.equal(replay.userId, 'u-retry');
    assert.equal(h.engine.deletions.get(created.id)?.status, 'pending', 'a replay under way makes it pending again');
    await receiver.waitFor(attemptsBefore + 1);
    const last = receiver.received[attemptsBefore]!;
    assert.equal(last.body.toString('utf8'), noticeBytes('u-retry', T0));
    assert.equal(last.headers['x-signature'], hmac(last.body, 's3cret'));
    const forwarded = await waitUntil(() => {
      const r = h.engine.deletions.get(created.id);
      return r?.status === 'forwarded' && r.purgedAt !== null ? r : undefined;
    }, 'the request to be forwarded by the replay');
    assert.deepEqual(forwarded.notices.map((n) => [n.deliveryId, n.status]), [[replay.id, 'succeeded']], 'the replay decides the notice now');
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u-retry'`) as { n: number }).n, 0, 'purged once forwarded');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('deletion: with nothing to forward the request is forwarded at once, with no notice, saying why', async () => {
  const a = await new Receiver().start('/a');
  const b = await new Receiver().start('/b');
  const off = await new Receiver().start('/off');
  const h = await startHarness(fourSources(a, b, off));
  const api = createEngineApi(h.engine);
  try {
    await h.post('/v1/track', { userId: 'only-legacy', event: 'E', messageId: 'ol-1' }, { writeKey: 'wk_legacy' });
    const legacyOnly = await api.requestDeletion({ userId: 'only-legacy' });
    assert.equal(legacyOnly.status, 'forwarded');
    assert.deepEqual(legacyOnly.notices, []);
    assert.deepEqual(legacyOnly.affectedSources, ['legacy']);
    assert.equal(legacyOnly.explanation, 'nothing to forward: no enabled destination is attached to the affected source (legacy)');
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'only-legacy'`) as { n: number }).n, 1, 'no purge unless asked');

    const purged = await api.requestDeletion({ userId: 'only-legacy', purge: true });
    assert.equal(purged.status, 'forwarded');
    assert.notEqual(purged.purgedAt, null, 'purged at once: nothing was outstanding');
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'only-legacy'`) as { n: number }).n, 0);

    const nobody = await api.requestDeletion({ userId: 'never-seen' });
    assert.equal(nobody.status, 'forwarded');
    assert.deepEqual(nobody.affectedSources, []);
    assert.equal(nobody.explanation, 'nothing to forward: no stored message names "never-seen", so no source is affected');
    assert.deepEqual((await api.listDeletions()).map((r) => r.id), [nobody.id, purged.id, legacyOnly.id], 'newest first');
    assert.equal(a.received.length + b.received.length + off.received.length, 0);
  } finally {
    await h.close();
    await Promise.all([a.close(), b.close(), off.close()]);
  }
});

test('deletion: the purge spares near misses, runs the registered hooks in its transaction, and a failing hook undoes it all', async () => {
  const receiver = await new Receiver().start();
  const config: HookbenchConfig = {
    sources: [{ name: 'web', writeKey: 'wk_web' }],
    destinations: [{ name: 'Hooks', enabled: false, sources: ['web'], sharedSecret: null, webhooks: [{ url: receiver.url, headers: {} }] }],
  };
  const h = await startHarness(config);
  const api = createEngineApi(h.engine);
  try {
    await h.post(
      '/v1/batch',
      {
        batch: [
          { type: 'identify', userId: 'u1', anonymousId: 'anon-1', messageId: 'n-1' },
          { type: 'track', userId: 'u10', event: 'E', messageId: 'n-2' },
          { type: 'track', userId: 'u2', anonymousId: 'anon-1', event: 'Shared device', messageId: 'n-3' },
          { type: 'track', userId: 'u2', event: 'Referred', properties: { friend: 'u1' }, messageId: 'n-4' },
          { type: 'track', userId: 'u1', messageId: 'bad-1' },
          { type: 'track', userId: 'u10', messageId: 'bad-2' },
          { type: 'track', anonymousId: 'anon-1', messageId: 'bad-3' },
          { type: 'track', userId: 'u2', anonymousId: 'anon-1', messageId: 'bad-4' },
        ],
      },
      { writeKey: 'wk_web' },
    );
    const seen: { userId: string; linkedIds: readonly string[]; inTransaction: boolean }[] = [];
    const off = h.engine.onPurge((p) => seen.push({ ...p, inTransaction: h.engine.stores.inTransaction() }));
    const failing = h.engine.onPurge(() => {
      throw new Error('profile table is locked');
    });
    const undone = await api.requestDeletion({ userId: 'u1', purge: true });
    assert.equal(undone.status, 'forwarded');
    assert.equal(undone.purgedAt, null);
    assert.match(undone.explanation ?? '', /a step of the purge failed and was undone \(profile table is locked\)/);
    assert.equal((h.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u1'`) as { n: number }).n, 1, 'rolled back');

    failing();
    h.engine.deletions.resume();
    const done = h.engine.deletions.get(undone.id)!;
    assert.notEqual(done.purgedAt, null, 'the next settle purges');
    assert.deepEqual(seen.map((s) => [s.userId, [...s.linkedIds], s.inTransaction]), [
      ['u1', ['anon-1'], true],
      ['u1', ['anon-1'], true],
    ]);
    off();
    const messages = (h.inspect.all('SELECT message_id FROM messages ORDER BY id') as { message_id: string }[]).map((m) => m.message_id);
    assert.deepEqual(messages, ['n-2', 'n-3', 'n-4'], 'u10, and u2 on a shared device or naming u1 in a property, stay');
    const raws = (h.inspect.all('SELECT raw FROM dropped_items ORDER BY id') as { raw: string }[]).map((r) => (JSON.parse(r.raw) as { messageId: string }).messageId);
    assert.deepEqual(raws, ['bad-2', 'bad-4']);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('deletion API: every param is checked, by field', async () => {
  const h = await startHarness({ sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [] });
  const api = createEngineApi(h.engine);
  const fields = async (call: () => Promise<unknown>): Promise<string[]> => {
    try {
      await call();
      return [];
    } catch (err) {
      assert.ok(err instanceof ValidationError, String(err));
      return err.errors.map((e) => e.field);
    }
  };
  try {
    assert.deepEqual(await fields(() => api.requestDeletion({ userId: '' })), ['deletion.userId']);
    assert.deepEqual(await fields(() => api.requestDeletion({ userId: 'x'.repeat(201), purge: 1 as unknown as boolean })), ['deletion.userId', 'deletion.purge']);
    assert.deepEqual(await fields(() => api.requestDeletion(null as unknown as { userId: string })), ['deletion']);
    assert.deepEqual(await fields(() => api.getDeletion(0)), ['id']);
    assert.deepEqual(await fields(() => api.getDeletion('1' as unknown as number)), ['id']);
    assert.deepEqual(await fields(() => (api.listDeletions as (p: unknown) => Promise<DeletionRequest[]>)({ limit: 5 })), ['params']);
    assert.deepEqual(await api.listDeletions(), [], 'nothing was stored by the refused calls');
  } finally {
    await h.close();
  }
});

test('deletion: after a restart the engine still follows the notices of a pending request, and purges when they succeed', async () => {
  const clock = new ManualClock(T0);
  const receiver = await new Receiver().start();
  receiver.respond(status(503));
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-deletion-'));
  const config: HookbenchConfig = {
    sources: [{ name: 'web', writeKey: 'wk_web' }],
    destinations: [{ name: 'Hooks', enabled: true, sources: ['web'], sharedSecret: null, webhooks: [{ url: receiver.url, headers: {} }] }],
  };
  try {
    const first = await startHarness(config, { clock, dataDir });
    let requestId: number;
    let noticeId: number;
    try {
      await first.post('/v1/track', { userId: 'u-restart', event: 'E', integrations: { Webhooks: false }, messageId: 'rs-1' }, { writeKey: 'wk_web' });
      const created = first.engine.deletions.request({ userId: 'u-restart', purge: true });
      requestId = created.id;
      noticeId = created.notices[0]!.deliveryId;
      await receiver.waitFor(1);
      await waitUntil(() => first.engine.stores.log.getDelivery(noticeId)?.status === 'retrying', 'the first failure');
    } finally {
      await first.close();
    }

    receiver.respond(status(200));
    const second = await startHarness(config, { clock, dataDir });
    try {
      assert.equal(second.engine.deletions.get(requestId)?.status, 'pending');
      const due = second.engine.stores.log.getDelivery(noticeId)!.next_attempt_at!;
      clock.advance(due - clock.now());
      const done = await waitUntil(() => {
        const r = second.engine.deletions.get(requestId);
        return r?.status === 'forwarded' && r.purgedAt !== null ? r : undefined;
      }, 'the request to be forwarded after the restart');
      assert.deepEqual(done.notices.map((n) => [n.deliveryId, n.status]), [[noticeId, 'succeeded']]);
      assert.equal((second.inspect.get(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u-restart'`) as { n: number }).n, 0);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await receiver.close();
  }
});

test('deletion: its statements over the log (notice chains, footprint, purge) seek by index, never scan messages or deliveries', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-deletion-plan-'));
  const engine = createEngine({ dataDir: dir, clock: new ManualClock(T0) });
  try {
    for (const [name, plan] of Object.entries(engine.stores.deletions.plans())) {
      const scans = plan.filter((line) => /^SCAN (d|r|root|m|messages|deliveries)\b/.test(line) || /BLOOM FILTER/.test(line));
      assert.deepEqual(scans, [], `${name}:\n${plan.join('\n')}`);
      assert.ok(plan.some((line) => /^SEARCH /.test(line)), `${name}:\n${plan.join('\n')}`);
    }
    const { linked, userMessageIds } = engine.stores.deletions.plans();
    assert.ok(linked.some((line) => /messages_user/.test(line)), linked.join('\n'));
    assert.ok(userMessageIds.filter((line) => /messages_user/.test(line)).length === 2, userMessageIds.join('\n'));
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deletion: a purge runs in short steps; a message of the user committed mid-purge, and ids it links, go too; one after it stays', async () => {
  const clock = new ManualClock(T0);
  const config: HookbenchConfig = {
    sources: [{ name: 'web', writeKey: 'wk_web' }],
    // No enabled destination: the request is forwarded at once and the purge starts in the call.
    destinations: [],
  };
  // One message per step, so the purge of this footprint takes many turns of the event loop.
  const h = await startHarness(config, { clock, purgeSizing: fixedSlices(1) });
  const api = createEngineApi(h.engine);
  const sourceId = h.engine.stores.config.listSources()[0]!.id;
  const iso = new Date(T0).toISOString();
  const message = (m: Partial<InboundMessage> & { messageId: string }): InboundMessage =>
    ({ type: 'track', userId: null, anonymousId: null, event: 'E', properties: {}, context: {}, integrations: {}, timestamp: iso, receivedAt: iso, ...m }) as InboundMessage;
  const commit = (messages: InboundMessage[]): void => {
    h.engine.commitInternal({ sourceId, path: '/v1/batch', userAgent: 'test', messages });
  };
  try {
    const before: InboundMessage[] = [];
    for (let k = 0; k < 20; k++) before.push(message({ messageId: `own-${k}`, userId: 'u-slices', anonymousId: 'anon-before' }));
    for (let k = 0; k < 10; k++) before.push(message({ messageId: `anon-${k}`, anonymousId: 'anon-before' }));
    before.push(message({ messageId: 'other-1', userId: 'u-other', anonymousId: 'anon-other' }));
    commit(before);
    const count = (sql: string, ...params: unknown[]): number => (h.inspect.get(sql, ...params) as { n: number }).n;

    const created = await api.requestDeletion({ userId: 'u-slices', purge: true });
    assert.equal(created.status, 'forwarded');
    assert.equal(created.purgedAt, null, 'one step removed one message; the rest follows between other work');
    assert.match(created.explanation ?? '', /the purge is under way$/);
    assert.ok(count(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u-slices' OR anonymous_id = 'anon-before'`) >= 29);

    // Mid-purge, in the same turn: the user again, an alias that links a new anonymousId, and a
    // call of that anonymousId alone.
    commit([
      message({ messageId: 'mid-own', userId: 'u-slices' }),
      message({ type: 'alias', messageId: 'mid-alias', userId: 'u-slices', previousId: 'anon-mid', event: undefined }),
      message({ messageId: 'mid-anon', anonymousId: 'anon-mid' }),
    ]);
    const done = await waitUntil(() => h.engine.deletions.get(created.id)?.purgedAt ?? undefined, 'the purge to finish');
    assert.equal(done, iso);
    for (const text of ['u-slices', 'anon-before', 'anon-mid']) {
      assert.deepEqual(rowsNaming(h, text, (table) => table === 'deletion_requests'), [], `nothing names ${text}`);
    }
    assert.equal(count(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u-other'`), 1, "someone else's message stays");
    assert.match(h.engine.deletions.get(created.id)?.explanation ?? '', /purged at /);

    // After the purge: new data, kept.
    commit([message({ messageId: 'after', userId: 'u-slices' })]);
    assert.equal(count(`SELECT COUNT(*) AS n FROM messages WHERE user_id = 'u-slices'`), 1);
  } finally {
    await h.close();
  }
});

test('deletion: a purge stopped midway (a restart) finishes at the next start, the anonymous messages its links found included', async () => {
  const clock = new ManualClock(T0);
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-deletion-steps-'));
  const config: HookbenchConfig = { sources: [{ name: 'web', writeKey: 'wk_web' }], destinations: [] };
  const iso = new Date(T0).toISOString();
  const message = (m: Partial<InboundMessage> & { messageId: string }): InboundMessage =>
    ({ type: 'track', userId: null, anonymousId: null, event: 'E', properties: {}, context: {}, integrations: {}, timestamp: iso, receivedAt: iso, ...m }) as InboundMessage;
  // One message a step; after the 11th step the purges stop, as a stop of the engine would: the
  // links are read four messages a step (the third step, reading the last two, also removes one)
  // and the user's own messages but the one carrying the link are gone, the anonymous ones not yet.
  let steps = 0;
  let stopAfter = 11;
  let first: Awaited<ReturnType<typeof startHarness>> | null = null;
  const counting: SliceSizing = {
    first: 1,
    next: () => {
      steps++;
      if (steps === stopAfter) first?.engine.deletions.stop();
      return 1;
    },
  };
  try {
    first = await startHarness(config, { clock, dataDir, purgeSizing: counting });
    const sourceId = first.engine.stores.config.listSources()[0]!.id;
    // Only the first of the user's messages links 'anon-linked' (the others' anonymousId is the
    // userId itself, which links nothing); it is also the first the purge would otherwise take.
    const own = Array.from({ length: 10 }, (_, k) => message({ messageId: `own-${k}`, userId: 'u-restart-steps', anonymousId: k === 0 ? 'anon-linked' : 'u-restart-steps' }));
    const anonymous = Array.from({ length: 5 }, (_, k) => message({ messageId: `anon-${k}`, anonymousId: 'anon-linked' }));
    first.engine.commitInternal({ sourceId, path: '/v1/batch', userAgent: 'test', messages: [...own, ...anonymous] });
    const created = await createEngineApi(first.engine).requestDeletion({ userId: 'u-restart-steps', purge: true });
    const count = (h: Harness, sql: string): number => (h.inspect.get(sql) as { n: number }).n;
    await waitUntil(() => steps >= stopAfter, 'the purge to stop midway');
    assert.equal(first.engine.deletions.get(created.id)?.purgedAt, null);
    assert.deepEqual(first.inspect.all(`SELECT message_id FROM messages WHERE user_id = 'u-restart-steps'`), [{ message_id: 'own-0' }], 'the message carrying the link is kept to the end');
    assert.equal(count(first, `SELECT COUNT(*) AS n FROM messages WHERE user_id IS NULL AND anonymous_id = 'anon-linked'`), 5);
    await first.close();
    first = null;

    stopAfter = Number.POSITIVE_INFINITY;
    const second = await startHarness(config, { clock, dataDir, purgeSizing: counting });
    try {
      await waitUntil(() => second.engine.deletions.get(created.id)?.purgedAt ?? undefined, 'the purge to finish after the restart');
      for (const text of ['u-restart-steps', 'anon-linked']) {
        assert.deepEqual(rowsNaming(second, text, (table) => table === 'deletion_requests'), [], `nothing names ${text}`);
      }
    } finally {
      await second.close();
    }
  } finally {
    await first?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
