/**
 * Profiles, audiences and computed traits against the real engine: ingest over HTTP, SQLite on a
 * temp dir, real receivers, and the ManualClock for time (interval syncs, events aging out).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineApi } from '../../../src-shared/api';
import type { JsonObject, JsonValue } from '../../../src-shared/json';
import { SYNC_DELIVERY_IDS, type SyncSummary } from '../../../src-shared/personas';
import { ValidationError } from '../../../src-shared/settings';
import { createEngineApi } from '../api';
import { ManualClock } from '../clock';
import type { HookbenchConfig } from '../config';
import { startHarness, WRITE_KEY, type Harness } from '../testing/harness';
import { profilesForCalls, SYNC_CALLS_PER_SLICE } from './service';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';

const DAY = 24 * 60 * 60 * 1000;
const SECRET = 'aud-s3cret';

interface World {
  h: Harness;
  api: EngineApi;
  clock: ManualClock;
  /** The enabled destination attached to the space source "personas". */
  space: Receiver;
  /** A disabled destination attached to "personas". */
  disabled: Receiver;
  /** The destination of the source the app's events arrive at ("backend"). */
  backend: Receiver;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const [space, disabled, backend] = await Promise.all([new Receiver().start(), new Receiver().start(), new Receiver().start()]);
  const config: HookbenchConfig = {
    sources: [
      { name: 'backend', writeKey: WRITE_KEY },
      { name: 'personas', writeKey: 'wk_personas' },
    ],
    destinations: [
      { name: 'Audience hook', enabled: true, sources: ['personas'], sharedSecret: SECRET, webhooks: [{ url: space.url, headers: {} }] },
      { name: 'Disabled hook', enabled: false, sources: ['personas'], sharedSecret: null, webhooks: [{ url: disabled.url, headers: {} }] },
      { name: 'Backend hook', enabled: true, sources: ['backend'], sharedSecret: null, webhooks: [{ url: backend.url, headers: {} }] },
    ],
  };
  const h = await startHarness(config, { clock });
  return {
    h,
    api: createEngineApi(h.engine),
    clock,
    space,
    disabled,
    backend,
    async close() {
      await h.close();
      await Promise.all([space.close(), disabled.close(), backend.close()]);
    },
  };
}

/** Posts a batch to the "backend" source over HTTP, as an SDK would. */
async function send(w: World, batch: JsonObject[]): Promise<void> {
  const res = await w.h.post('/v1/batch', { batch });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
const ago = (w: World, days: number): string => new Date(w.clock.now() - days * DAY).toISOString();
const order = (w: World, userId: string, daysAgo: number, properties: JsonObject = {}): JsonObject => ({
  type: 'track',
  userId,
  event: 'Order Completed',
  timestamp: ago(w, daysAgo),
  properties,
});
const identify = (userId: string, traits: JsonObject): JsonObject => ({ type: 'identify', userId, traits });

interface Identify {
  type: string;
  userId: string;
  traits: { [key: string]: JsonValue };
  context: { personas: { [key: string]: string } };
  messageId: string;
  timestamp: string;
}
const bodies = (r: Receiver, from = 0): Identify[] => r.received.slice(from).map((x) => JSON.parse(x.body.toString('utf8')) as Identify);
const sent = (r: Receiver, from = 0): string[] =>
  bodies(r, from)
    .map((b) => `${b.userId}=${JSON.stringify(Object.values(b.traits)[0])}`)
    .sort();

async function fieldsOf(call: Promise<unknown>): Promise<string[]> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.errors.map((e) => `${e.field}: ${e.message}`);
  }
  assert.fail('expected a ValidationError');
}

/** `count` users who each completed an order yesterday, sent in batches of 100; their ids, in profile order. */
async function buyers(w: World, count: number): Promise<string[]> {
  const users = Array.from({ length: count }, (_, i) => `buyer-${String(i).padStart(3, '0')}`);
  for (let i = 0; i < users.length; i += 100) await send(w, users.slice(i, i + 100).map((u) => order(w, u, 1)));
  return users;
}

/** Every delivery of a sync has arrived and succeeded. */
async function delivered(w: World, s: SyncSummary): Promise<void> {
  await waitUntil(
    () => s.deliveryIds.every((id) => w.h.engine.stores.log.getDelivery(id)?.status === 'succeeded'),
    `the ${s.deliveryIds.length} deliveries of sync ${s.id}`,
  );
}

test('profiles: identify traits merge by message order, tracks counted with times, merges via userId+anonymousId and via alias', async () => {
  const w = await world();
  try {
    await send(w, [
      { type: 'track', anonymousId: 'anon-1', event: 'Viewed', timestamp: ago(w, 3), properties: { page: '/a' } },
      { type: 'identify', anonymousId: 'anon-1', traits: { plan: 'free', color: 'red' } },
      { type: 'track', userId: 'old-id', event: 'Viewed', timestamp: ago(w, 2), properties: { page: '/b' } },
    ]);
    // Anonymous activity is its own profile until a userId is seen with it.
    let anon = await w.api.getProfile('anon-1');
    assert.equal(anon?.profileId, 'anon-1');
    assert.equal(anon?.userId, null);
    assert.deepEqual(anon?.traits, { plan: 'free', color: 'red' });

    await send(w, [
      { type: 'identify', userId: 'u1', anonymousId: 'anon-1', traits: { plan: 'pro', email: 'u1@example.com' } },
      { type: 'track', userId: 'u1', event: 'Viewed', timestamp: ago(w, 1), properties: { page: '/c' } },
      { type: 'alias', userId: 'u1', previousId: 'old-id' },
      { type: 'identify', userId: 'old-id', traits: { color: 'blue' } },
    ]);
    const u1 = await w.api.getProfile('u1');
    assert.ok(u1);
    assert.equal(u1.profileId, 'u1');
    assert.equal(u1.userId, 'u1');
    assert.deepEqual(u1.aliases, ['anon-1', 'old-id']);
    // plan: the later identify wins; color: the last identify (sent for old-id, now merged) wins.
    assert.deepEqual(u1.traits, { color: 'blue', email: 'u1@example.com', plan: 'pro' });
    assert.deepEqual(u1.events, [{ event: 'Viewed', count: 3, lastAt: ago(w, 1), lastProperties: { page: '/c' } }]);
    anon = await w.api.getProfile('anon-1');
    assert.equal(anon?.profileId, 'u1', 'a merged id finds its profile');

    await send(w, [identify('u2', { plan: 'free' }), { type: 'page', anonymousId: 'anon-2', name: 'Home' }]);
    const page1 = await w.api.listProfiles({ limit: 2 });
    assert.deepEqual(page1.items.map((p) => p.profileId), ['anon-2', 'u1']);
    assert.equal(page1.next, 'u1');
    const page2 = await w.api.listProfiles({ limit: 2, after: page1.next ?? '' });
    assert.deepEqual(page2.items.map((p) => p.profileId), ['u2']);
    assert.equal(page2.next, null);
    assert.deepEqual((await w.api.listProfiles({ text: 'old-' })).items.map((p) => p.profileId), ['u1'], 'by a linked id');
    assert.deepEqual((await w.api.listProfiles({ text: 'example.com' })).items.map((p) => p.profileId), ['u1'], 'by a trait value');
    assert.deepEqual((await w.api.listProfiles({ text: '%' })).items, [], 'LIKE wildcards are plain text');
  } finally {
    await w.close();
  }
});

test('audience: the initial sync sends every member, signed, only to the space’s enabled destinations; later syncs send only changes both ways', async () => {
  const w = await world();
  try {
    await send(w, [
      order(w, 'u1', 25),
      order(w, 'u1', 20),
      order(w, 'u2', 3),
      order(w, 'u3', 2),
      order(w, 'u3', 1),
      order(w, 'u5', 5),
      order(w, 'u5', 4),
      identify('u3', { plan: 'pro' }),
    ]);
    await w.backend.waitFor(8);

    const saved = await w.api.saveAudience({
      name: 'Repeat Buyers',
      space: 'personas',
      syncEveryMinutes: null,
      condition: {
        kind: 'and',
        all: [
          { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 },
          { kind: 'trait', trait: 'plan', op: 'not_equals', value: 'churned' },
        ],
      },
    });
    assert.equal(saved.key, 'repeat_buyers');
    assert.equal(saved.size, 3);
    const initial = saved.lastSync;
    assert.ok(initial);
    assert.deepEqual(
      { kind: initial.kind, entered: initial.entered, exited: initial.exited, changed: initial.changed, sent: initial.sent },
      { kind: 'initial', entered: 3, exited: 0, changed: 0, sent: 3 },
    );
    assert.equal(initial.deliveryIds.length, 3, 'one delivery per member and enabled destination of the space');
    await w.space.waitFor(3);
    await delivered(w, initial);
    assert.deepEqual(sent(w.space), ['u1=true', 'u3=true', 'u5=true']);
    const sources = await w.api.listSources();
    const personasSource = sources.find((s) => s.name === 'personas');
    for (const [i, b] of bodies(w.space).entries()) {
      assert.equal(b.type, 'identify');
      assert.deepEqual(Object.keys(b.traits), ['repeat_buyers']);
      assert.deepEqual(b.context.personas, {
        computation_class: 'audience',
        computation_id: String(saved.id),
        computation_key: 'repeat_buyers',
        namespace: `spa_${personasSource?.id}`,
        space_id: 'personas',
      });
      assert.equal(b.timestamp, '2026-11-22T12:00:00.000Z');
      const raw = w.space.received[i]!;
      assert.equal(raw.headers['x-signature'], createHmac('sha1', SECRET).update(raw.body).digest('hex'), 'signed with the destination’s secret');
    }
    assert.equal(new Set(bodies(w.space).map((b) => b.messageId)).size, 3, 'a fresh messageId each');
    // The sync is an Inbound request of the space's source, like any ingest request.
    const [request] = (await w.api.listRequests({ limit: 1 })).items;
    assert.equal(request?.id, initial.requestId);
    assert.equal(request?.path, '/personas/sync');
    assert.equal(request?.userAgent, 'hookbench-personas');
    assert.equal(request?.accepted, 3);
    assert.deepEqual((await w.api.messagesOf(initial.requestId ?? 0)).flatMap((m) => m.deliveryIds).sort(), [...initial.deliveryIds].sort());
    assert.equal(w.disabled.received.length, 0);
    assert.equal(w.backend.received.length, 8, 'the app source’s destination gets no identify calls');

    // u2 newly qualifies; u1's older order ages out of the 30 days; u3 churns; u5 is unchanged.
    w.clock.advance(6 * DAY);
    await send(w, [order(w, 'u2', 0), identify('u3', { plan: 'churned' })]);
    const second = await w.api.syncComputation(saved.id);
    assert.deepEqual(
      { kind: second.kind, entered: second.entered, exited: second.exited, changed: second.changed, sent: second.sent },
      { kind: 'incremental', entered: 1, exited: 2, changed: 0, sent: 3 },
    );
    await w.space.waitFor(6);
    await delivered(w, second);
    assert.deepEqual(sent(w.space, 3), ['u1=false', 'u2=true', 'u3=false']);

    // Nothing changed: nothing is sent, no request is logged, no delivery is made.
    const deliveriesBefore = Object.values(await w.api.countDeliveriesByStatus()).reduce((a, b) => a + b, 0);
    const third = await w.api.syncComputation(saved.id);
    assert.deepEqual({ sent: third.sent, requestId: third.requestId, deliveryIds: third.deliveryIds }, { sent: 0, requestId: null, deliveryIds: [] });
    assert.equal(Object.values(await w.api.countDeliveriesByStatus()).reduce((a, b) => a + b, 0), deliveriesBefore);

    assert.deepEqual((await w.api.listSyncs(saved.id)).map((s) => [s.kind, s.sent]), [['incremental', 0], ['incremental', 3], ['initial', 3]]);
    const listed = (await w.api.listComputations()).find((c) => c.id === saved.id);
    assert.equal(listed?.size, 2, 'u2 and u5');
    assert.equal(listed?.lastSync?.id, third.id);
    assert.equal(listed?.nextSyncAt, null);
    assert.deepEqual((await w.api.getProfile('u2'))?.computed, { repeat_buyers: true });

    // The identify deliveries replay like any other: the same bytes, signed the same.
    const original = w.space.received[3]!;
    const originalId = second.deliveryIds[0]!;
    const replay = await w.api.replayDelivery({ id: originalId });
    assert.equal(replay.replayOf, originalId);
    await w.space.waitFor(7);
    const again = w.space.received[6]!;
    assert.deepEqual(again.body, original.body);
    assert.equal(again.headers['x-signature'], createHmac('sha1', SECRET).update(again.body).digest('hex'));
  } finally {
    await w.close();
  }
});

test('audience: replacing a definition keeps its id and synced state; the next sync sends only the differences', async () => {
  const w = await world();
  try {
    await send(w, [order(w, 'u1', 1), order(w, 'u2', 1), order(w, 'u2', 2), identify('u3', { plan: 'pro' })]);
    const first = await w.api.saveAudience({ name: 'Buyers', space: 'personas', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } });
    assert.equal(first.lastSync?.sent, 2);
    const replaced = await w.api.saveAudience({
      name: 'Buyers',
      space: 'personas',
      syncEveryMinutes: null,
      condition: { kind: 'or', any: [{ kind: 'event', event: 'Order Completed', atLeast: 2 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] },
    });
    assert.equal(replaced.id, first.id);
    assert.equal(replaced.lastSync?.id, first.lastSync?.id, 'replacing sends nothing itself');
    assert.equal(replaced.size, 2);
    const next = await w.api.syncComputation(first.id);
    assert.deepEqual([next.entered, next.exited, next.sent], [1, 1, 2]);
    await w.space.waitFor(4);
    assert.deepEqual(sent(w.space, 2), ['u1=false', 'u3=true']);
  } finally {
    await w.close();
  }
});

test('a sync of more profiles than a slice: the event loop turns between slices, its calls are one Inbound request, each member is sent once, and a sync asked for meanwhile is the same one', async () => {
  const w = await world();
  try {
    const users = await buyers(w, 250);
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await w.h.engine.personas.current();
    // The first slice runs before saveAudience returns: the audience exists, and its sync is running.
    const saving = w.h.engine.personas.saveAudience({ name: 'Buyers', space: 'personas', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } });
    const turnsBefore = turns;
    const listed = w.h.engine.personas.listComputations()[0];
    assert.ok(listed, 'the audience is listed while its first sync runs');
    assert.deepEqual(listed.syncing, { entered: SYNC_CALLS_PER_SLICE, exited: 0, changed: 0, sent: SYNC_CALLS_PER_SLICE }, 'with how far its sync has got');
    const same = await w.h.engine.personas.sync(listed.id);
    const saved = await saving;
    assert.equal(saved.syncing, null, 'done: no sync running');
    counting = false;
    assert.ok(turns > turnsBefore, 'the event loop turned between the sync\'s slices');
    assert.equal(same.id, saved.lastSync?.id, 'asked for while it ran: the same sync');
    const s = saved.lastSync;
    assert.ok(s);
    assert.deepEqual([s.kind, s.entered, s.sent, s.deliveries, s.deliveryIds.length], ['initial', 250, 250, 250, SYNC_DELIVERY_IDS]);
    assert.equal(saved.size, 250);
    const request = w.h.inspect.get('SELECT items, accepted, path FROM requests WHERE id = ?', s.requestId) as { items: number; accepted: number; path: string };
    assert.deepEqual(request, { items: 250, accepted: 250, path: '/personas/sync' }, 'one Inbound request for the whole sync');
    await w.space.waitFor(250);
    assert.deepEqual(sent(w.space), users.map((u) => `${u}=true`));
    assert.equal((await w.api.listSyncs(saved.id)).length, 1);
  } finally {
    await w.close();
  }
});

test('a sync stopped between slices leaves what it sent recorded: the next sync (initial again) sends the rest, nobody twice', async () => {
  const w = await world();
  try {
    const users = await buyers(w, 120);
    await w.h.engine.personas.current();
    const saving = w.h.engine.personas.saveAudience({ name: 'Buyers', space: 'personas', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } });
    // The first slice has run (SYNC_CALLS_PER_SLICE calls); the engine stops before the next.
    w.h.engine.personas.stop();
    await assert.rejects(saving, /stopped before the sync finished/);
    const id = w.h.engine.personas.listComputations()[0]?.id ?? assert.fail('the audience was saved');
    assert.equal(w.h.engine.personas.getComputation(id)?.size, SYNC_CALLS_PER_SLICE, 'the first slice\'s members are recorded as sent');
    assert.deepEqual(await w.api.listSyncs(id), [], 'no sync logged');
    w.h.engine.personas.start();
    const rest = await w.api.syncComputation(id);
    assert.deepEqual([rest.kind, rest.entered, rest.sent], ['initial', users.length - SYNC_CALLS_PER_SLICE, users.length - SYNC_CALLS_PER_SLICE]);
    await w.space.waitFor(users.length);
    assert.deepEqual(sent(w.space), users.map((u) => `${u}=true`), 'every member once');
  } finally {
    await w.close();
  }
});

test('profilesForCalls: a slice ends at its max-th call; all of it when it makes fewer', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  assert.equal(profilesForCalls(ids, new Set(['b', 'd']), 2), 4);
  assert.equal(profilesForCalls(ids, new Set(['b', 'd']), 3), 5);
  assert.equal(profilesForCalls(ids, new Set(['a']), 1), 1);
  assert.equal(profilesForCalls(ids, new Set(), 1), 5);
  assert.equal(profilesForCalls([], new Set(), 1), 0);
});

test('interval syncs fire on the engine’s clock, and stop with the engine', async () => {
  const w = await world();
  // This test counts the personas room's timers; retention's own is tested with retention.
  w.h.engine.retention.stop();
  let stopped = false;
  try {
    await send(w, [order(w, 'u1', 0)]);
    const created = w.clock.now();
    const saved = await w.api.saveAudience({ name: 'Buyers', space: 'personas', syncEveryMinutes: 60, condition: { kind: 'event', event: 'Order Completed' } });
    assert.equal(saved.nextSyncAt, new Date(created + 60 * 60_000).toISOString());

    await w.space.waitFor(1);
    await delivered(w, saved.lastSync!);
    await send(w, [order(w, 'u2', 0)]);
    w.clock.advance(59 * 60_000);
    assert.equal((await w.api.listSyncs(saved.id)).length, 1, 'not yet');
    w.clock.advance(60_000);
    let syncs = await w.api.listSyncs(saved.id);
    assert.equal(syncs.length, 2);
    assert.deepEqual([syncs[0]?.kind, syncs[0]?.entered, syncs[0]?.startedAt], ['incremental', 1, new Date(created + 60 * 60_000).toISOString()]);
    await w.space.waitFor(2);
    assert.deepEqual(sent(w.space), ['u1=true', 'u2=true']);
    // Moving the clock while a delivery is out would time it out: let it land first.
    await delivered(w, syncs[0]!);

    // Three more hours: three more syncs, with nothing to send.
    w.clock.advance(3 * 60 * 60_000);
    syncs = await w.api.listSyncs(saved.id);
    assert.deepEqual(syncs.map((s) => s.sent), [0, 0, 0, 1, 1]);
    // A sync on demand starts the interval again from itself.
    w.clock.advance(10 * 60_000);
    const manual = await w.api.syncComputation(saved.id);
    assert.equal((await w.api.listComputations())[0]?.nextSyncAt, new Date(Date.parse(manual.startedAt) + 60 * 60_000).toISOString());
    assert.deepEqual(w.clock.pendingTimers(), [60 * 60_000], 'the next interval sync, and nothing else');

    await w.close();
    stopped = true;
    assert.deepEqual(w.clock.pendingTimers(), [], 'no timer outlives the engine');
  } finally {
    if (!stopped) await w.close();
  }
});

test('computed traits: sent when the value changes (first value, change, loss as null), usable in audiences, shown on profiles', async () => {
  const w = await world();
  try {
    await send(w, [order(w, 'u1', 3, { currency: 'EUR' }), order(w, 'u1', 2, { currency: 'USD' }), order(w, 'u2', 1, { currency: 'EUR' }), identify('u3', { plan: 'pro' })]);
    const count = await w.api.saveComputedTrait({ name: 'Order Count', space: 'personas', syncEveryMinutes: null, rule: { kind: 'event_count', event: 'Order Completed' } });
    assert.equal(count.key, 'order_count');
    assert.deepEqual([count.lastSync?.entered, count.lastSync?.sent], [2, 2]);
    const currency = await w.api.saveComputedTrait({
      name: 'Last Currency',
      space: 'personas',
      syncEveryMinutes: null,
      rule: { kind: 'last_property', event: 'Order Completed', property: 'currency' },
    });
    await w.space.waitFor(4);
    assert.deepEqual(sent(w.space), ['u1="USD"', 'u1=2', 'u2="EUR"', 'u2=1']);
    assert.equal(bodies(w.space).find((b) => b.traits.order_count !== undefined)?.context.personas.computation_class, 'trait');

    // Unchanged values: nothing.
    const same = await w.api.syncComputation(count.id);
    assert.deepEqual([same.sent, same.requestId], [0, null]);

    // u1 orders again without a currency: the count changes, the last currency goes away (null).
    await send(w, [order(w, 'u1', 0)]);
    const changed = await w.api.syncComputation(count.id);
    assert.deepEqual([changed.entered, changed.changed, changed.exited, changed.sent], [0, 1, 0, 1]);
    const lost = await w.api.syncComputation(currency.id);
    assert.deepEqual([lost.entered, lost.changed, lost.exited, lost.sent], [0, 0, 1, 1]);
    await w.space.waitFor(6);
    assert.deepEqual(sent(w.space, 4), ['u1=3', 'u1=null']);
    assert.deepEqual((await w.api.getProfile('u1'))?.computed, { order_count: 3 });

    // An audience sees the space's computed traits as traits.
    const preview = await w.api.previewComputation({ condition: { kind: 'trait', trait: 'order_count', op: 'gte', value: 2 } });
    assert.deepEqual(preview.members.map((m) => [m.profileId, m.value]), [['u1', true]]);
    const frequent = await w.api.saveAudience({
      name: 'Frequent Buyers',
      space: 'personas',
      syncEveryMinutes: null,
      condition: { kind: 'trait', trait: 'order_count', op: 'gte', value: 2 },
    });
    assert.equal(frequent.size, 1);
  } finally {
    await w.close();
  }
});

test('preview: members and total without saving or sending; anonymous profiles are previewed by their anonymousId', async () => {
  const w = await world();
  try {
    await send(w, [
      order(w, 'u1', 1),
      { type: 'track', anonymousId: 'anon-9', event: 'Order Completed', timestamp: ago(w, 1) },
      { type: 'track', userId: 'u2', anonymousId: 'anon-2', event: 'Order Completed', timestamp: ago(w, 1) },
    ]);
    const preview = await w.api.previewComputation({ condition: { kind: 'event', event: 'Order Completed' } });
    assert.equal(preview.total, 3);
    assert.deepEqual(preview.members, [
      { profileId: 'anon-9', userId: null, anonymousIds: ['anon-9'], value: true },
      { profileId: 'u1', userId: 'u1', anonymousIds: [], value: true },
      { profileId: 'u2', userId: 'u2', anonymousIds: ['anon-2'], value: true },
    ]);
    const counts = await w.api.previewComputation({ rule: { kind: 'event_count', event: 'Order Completed' } });
    assert.deepEqual(counts.members.map((m) => m.value), [1, 1, 1]);
    assert.deepEqual(await w.api.listComputations(), []);
    assert.equal(w.space.received.length, 0);

    // An anonymous member is sent under its anonymousId.
    await w.api.saveAudience({ name: 'Buyers', space: 'personas', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } });
    await w.space.waitFor(3);
    assert.deepEqual(sent(w.space), ['anon-9=true', 'u1=true', 'u2=true']);
  } finally {
    await w.close();
  }
});

test('refusals name the field: definitions, key clashes, ids, pages, previews', async () => {
  const w = await world();
  try {
    const audience = { name: 'VIP Users', space: 'personas', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } } as const;
    const saved = await w.api.saveAudience(audience);
    assert.deepEqual(await fieldsOf(w.api.saveComputedTrait({ name: 'vip users', space: 'personas', syncEveryMinutes: null, rule: { kind: 'event_count', event: 'E' } })), [
      'trait.name: makes the trait key "vip_users", which the audience "VIP Users" already uses in the space "personas"',
    ]);
    assert.deepEqual(await fieldsOf(w.api.saveAudience({ ...audience, name: 'VIP-Users' })), [
      'audience.name: makes the trait key "vip_users", which the audience "VIP Users" already uses in the space "personas"',
    ]);
    const elsewhere = await w.api.saveAudience({ ...audience, space: 'backend' });
    assert.notEqual(elsewhere.id, saved.id, 'keys are unique per space');
    assert.deepEqual(
      await fieldsOf(
        w.api.saveAudience({ ...audience, name: 'Deep', condition: { kind: 'and', all: [{ kind: 'event', event: 'E' }, { kind: 'event', event: 'E', withinDays: 0 }] } }),
      ),
      ['audience.condition.all[1].withinDays: must be a whole number of days from 1 to 3650'],
    );
    assert.deepEqual(await fieldsOf(w.api.saveAudience({ ...audience, space: 'nowhere' })), ['audience.space: no source named "nowhere"']);
    assert.deepEqual(await fieldsOf(w.api.syncComputation(999)), ['id: no audience or computed trait with id 999']);
    assert.deepEqual(await fieldsOf(w.api.syncComputation('1' as unknown as number)), ['id: must be a positive whole number']);
    assert.deepEqual(await fieldsOf(w.api.deleteComputation(999)), ['id: no audience or computed trait with id 999']);
    assert.deepEqual(await fieldsOf(w.api.listSyncs(0)), ['computationId: must be a positive whole number']);
    assert.deepEqual(await fieldsOf(w.api.listProfiles({ limit: 0 })), ['page.limit: must be a whole number from 1 to 500']);
    assert.deepEqual(await fieldsOf(w.api.getProfile('')), ['profileId: must be a profile id (a userId or an anonymousId)']);
    assert.deepEqual(await fieldsOf(w.api.previewComputation({} as never)), ['input: must have exactly one of condition (an audience) or rule (a computed trait)']);
    assert.deepEqual(await fieldsOf(w.api.previewComputation({ rule: { kind: 'last_property', event: 'E' } } as never)), [
      'input.rule.property: is required: the property’s name, e.g. total',
    ]);

    await w.api.deleteComputation(saved.id);
    assert.deepEqual((await w.api.listComputations()).map((c) => c.id), [elsewhere.id]);
    assert.equal(await w.api.getProfile('nobody'), null);
  } finally {
    await w.close();
  }
});

test('a deletion request with purge removes the profile (and its anonymous past, not a shared device’s other user); the next sync sends nothing for it', async () => {
  const w = await world();
  try {
    await send(w, [
      order(w, 'u1', 1),
      { type: 'track', anonymousId: 'anon-2', event: 'Order Completed', timestamp: ago(w, 2) },
      { type: 'identify', userId: 'u2', anonymousId: 'anon-2', traits: { plan: 'pro' } },
      // A shared device: anon-3 is u3's, and u2 signs in on it too.
      { type: 'identify', userId: 'u3', anonymousId: 'anon-3' },
      { type: 'track', userId: 'u2', anonymousId: 'anon-3', event: 'Order Completed', timestamp: ago(w, 1) },
      order(w, 'u3', 1),
    ]);
    await w.backend.waitFor(6);
    const saved = await w.api.saveAudience({ name: 'Buyers', space: 'personas', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } });
    assert.equal(saved.size, 3);
    const request = await w.api.requestDeletion({ userId: 'u2', purge: true });
    const done = await waitUntil(() => {
      const r = w.h.engine.deletions.get(request.id);
      return r?.purgedAt ? r : null;
    }, 'the deletion to be forwarded and purged');
    assert.equal(done.status, 'forwarded');
    assert.equal(await w.api.getProfile('u2'), null);
    assert.equal(await w.api.getProfile('anon-2'), null, 'its linked ids go with it');
    assert.equal((await w.api.getProfile('anon-3'))?.profileId, 'u3', 'the shared device stays u3’s');
    const next = await w.api.syncComputation(saved.id);
    assert.deepEqual([next.exited, next.sent], [0, 0], 'a purged person is not told anything');
    assert.equal((await w.api.listComputations())[0]?.size, 2);
  } finally {
    await w.close();
  }
});

test('interval syncs survive a restart: one that fell due while stopped runs at start; saves and syncs are reported live', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-personas-restart-'));
  const receiver = await new Receiver().start();
  const config: HookbenchConfig = {
    sources: [{ name: 'backend', writeKey: WRITE_KEY }],
    destinations: [{ name: 'Hook', enabled: true, sources: ['backend'], sharedSecret: null, webhooks: [{ url: receiver.url, headers: {} }] }],
  };
  try {
    let h = await startHarness(config, { clock, dataDir, liveIntervalMs: 1 });
    const live: number[][] = [];
    h.engine.onLive((e) => {
      if (e.type === 'computations') live.push(e.ids);
    });
    await h.post('/v1/track', { userId: 'u1', event: 'Order Completed' });
    const saved = await createEngineApi(h.engine).saveAudience({ name: 'Buyers', space: 'backend', syncEveryMinutes: 30, condition: { kind: 'event', event: 'Order Completed' } });
    await waitUntil(() => live.some((ids) => ids.includes(saved.id)), 'the save reported live');
    await receiver.waitFor(2);
    await waitUntil(() => h.engine.stores.log.listDeliveries().every((d) => d.status === 'succeeded'), 'the deliveries to land');
    await h.post('/v1/track', { userId: 'u2', event: 'Order Completed' });
    await receiver.waitFor(3);
    await waitUntil(() => h.engine.stores.log.listDeliveries().every((d) => d.status === 'succeeded'), 'the deliveries to land');
    await h.close();

    clock.advance(2 * 60 * 60_000);
    h = await startHarness(config, { clock, dataDir, liveIntervalMs: 1 });
    try {
      const api = createEngineApi(h.engine);
      assert.equal((await api.listSyncs(saved.id)).length, 1, 'nothing runs while stopped');
      clock.advance(0);
      const syncs = await api.listSyncs(saved.id);
      assert.deepEqual(
        syncs.map((s) => [s.kind, s.entered, s.startedAt]),
        [
          ['incremental', 1, '2026-11-22T14:00:00.000Z'],
          ['initial', 1, '2026-11-22T12:00:00.000Z'],
        ],
      );
      assert.equal((await api.listComputations())[0]?.nextSyncAt, '2026-11-22T14:30:00.000Z');
    } finally {
      await h.close();
    }
  } finally {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
