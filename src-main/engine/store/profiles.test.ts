/**
 * Profiles kept by each commit equal profiles read from the whole log afterwards, whatever the
 * messages (identify, track, alias, group, page; anonymous, identified, merged) and however they
 * are split into commits and catch-up chunks; and the per-event summaries always equal what the
 * track rows they summarize say, also after retention removes some of them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { InboundMessage } from '../../../src-shared/events';
import type { JsonObject } from '../../../src-shared/json';
import { openDatabase, type Db } from './database';
import { createStores, type Stores } from './stores';
import { FOLLOW_LIMIT, ProfileStore } from './profiles';
import type { AcceptedItem } from './log-store';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const USERS = ['u1', 'u2', 'u3'];
const ANONS = ['a1', 'a2', 'a3', 'a4'];
const EVENTS = ['Order Completed', 'Viewed'];

interface Spec {
  type: 'identify' | 'track' | 'alias' | 'group' | 'page';
  userId: string | null;
  anonymousId: string | null;
  previousId: string;
  event: string;
  traits: JsonObject;
  properties: JsonObject;
  /** Minutes after T0: few values, so timestamps tie. */
  minute: number;
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  type: fc.constantFrom('identify', 'track', 'track', 'alias', 'group', 'page'),
  userId: fc.option(fc.constantFrom(...USERS), { nil: null }),
  anonymousId: fc.option(fc.constantFrom(...ANONS), { nil: null }),
  previousId: fc.constantFrom(...USERS, ...ANONS),
  event: fc.constantFrom(...EVENTS),
  traits: fc.dictionary(fc.constantFrom('plan', 'email', 'n'), fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom('free', 'pro')), { maxKeys: 2 }),
  properties: fc.dictionary(fc.constantFrom('total', 'sku'), fc.integer({ min: 0, max: 3 }), { maxKeys: 2 }),
  minute: fc.integer({ min: 0, max: 5 }),
});

function messageOf(s: Spec, k: number): InboundMessage {
  const at = new Date(T0 + s.minute * 60_000).toISOString();
  return {
    type: s.type,
    messageId: `m-${k}`,
    userId: s.type === 'alias' ? (s.userId ?? 'u1') : s.userId,
    anonymousId: s.userId === null && s.anonymousId === null ? 'a1' : s.anonymousId,
    ...(s.type === 'track' ? { event: s.event, properties: s.properties } : {}),
    ...(s.type === 'identify' || s.type === 'group' ? { traits: s.traits } : {}),
    ...(s.type === 'alias' ? { previousId: s.previousId } : {}),
    context: {},
    integrations: {},
    timestamp: at,
    receivedAt: at,
  } as InboundMessage;
}

function open(dir: string, name: string): { db: Db; stores: Stores; sourceId: number } {
  const db = openDatabase(join(dir, name));
  const stores = createStores(db);
  const sourceId = stores.config.upsertSource({ name: 'b', writeKey: `wk_${name}` }, T0).id;
  return { db, stores, sourceId };
}

/** Commits the messages split at `cuts` (each commit its own request, as ingest makes them). */
function commitAll(stores: Stores, sourceId: number, messages: InboundMessage[], cuts: number[]): void {
  const bounds = [...new Set([0, ...cuts.map((c) => c % (messages.length + 1)), messages.length])].sort((a, b) => a - b);
  for (let i = 0; i + 1 < bounds.length; i++) {
    const items: AcceptedItem[] = messages.slice(bounds[i], bounds[i + 1]).map((message) => ({ message, json: JSON.stringify(message), destinationIds: [] }));
    if (items.length === 0) continue;
    stores.log.commitRequest({ sourceId, path: '/v1/batch', receivedAt: T0 + i, httpStatus: 200, bytes: 0, userAgent: null }, sourceId, items, [], 1);
  }
}

function dump(db: Db): Record<string, unknown[]> {
  const all = (sql: string): unknown[] => db.prepare(sql).all();
  return {
    cursor: all('SELECT last_message_id FROM persona_cursor'),
    profiles: all('SELECT * FROM persona_profiles ORDER BY profile_id'),
    ids: all('SELECT * FROM persona_ids ORDER BY id'),
    traits: all('SELECT * FROM persona_traits ORDER BY profile_id, key'),
    tracks: all('SELECT * FROM persona_tracks ORDER BY message_id'),
    events: all('SELECT * FROM persona_events ORDER BY profile_id, event'),
  };
}

/** The summaries as the track rows say they should be (the migration's own query). */
function summariesFromTracks(db: Db): unknown[] {
  return db
    .prepare(
      `SELECT profile_id, event, n, first_at, at AS last_at, message_id AS last_seq, properties AS last_properties FROM (
         SELECT profile_id, event, at, message_id, properties, COUNT(*) OVER w AS n, MIN(at) OVER w AS first_at,
           ROW_NUMBER() OVER (PARTITION BY profile_id, event ORDER BY at DESC, message_id DESC) AS r
         FROM persona_tracks WINDOW w AS (PARTITION BY profile_id, event))
       WHERE r = 1 ORDER BY profile_id, event`,
    )
    .all();
}

function forgetProfiles(db: Db): void {
  db.exec(`DELETE FROM persona_profiles; DELETE FROM persona_ids; DELETE FROM persona_traits; DELETE FROM persona_tracks;
    DELETE FROM persona_events; UPDATE persona_cursor SET last_message_id = 0;`);
}

test('profiles that follow the commits equal profiles read from scratch; summaries equal their tracks, also after retention', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-profiles-prop-'));
  let run = 0;
  try {
    fc.assert(
      fc.property(
        fc.array(specArb, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (specs, cuts, chunk, doomed) => {
          run++;
          const messages = specs.map(messageOf);
          const followed = open(dir, `followed-${run}.sqlite`);
          const scratch = open(dir, `scratch-${run}.sqlite`);
          try {
            commitAll(followed.stores, followed.sourceId, messages, cuts);
            assert.ok(followed.stores.profiles.isCurrent());
            // What the commits owe, taken in as the engine's follow-up does, `chunk` messages a slice.
            while (!followed.stores.profiles.followOwed(chunk)) {
              // the next slice
            }
            assert.equal(followed.stores.profiles.catchUp(), 0, 'nothing owed after the follow-up');

            commitAll(scratch.stores, scratch.sourceId, messages, cuts);
            forgetProfiles(scratch.db);
            const fresh = new ProfileStore(scratch.db);
            assert.equal(fresh.isCurrent(), false);
            assert.equal(fresh.catchUp(chunk), messages.length);
            assert.deepEqual(dump(followed.db), dump(scratch.db));
            assert.deepEqual(dump(followed.db).events, summariesFromTracks(followed.db));

            // Retention takes some messages: their tracks go, and the summaries follow.
            const ids = [...new Set(doomed.map((d) => 1 + (d % messages.length)))];
            followed.db.transaction(() => followed.stores.profiles.forgetTracks(ids))();
            assert.deepEqual(dump(followed.db).events, summariesFromTracks(followed.db));
          } finally {
            followed.db.close();
            scratch.db.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a commit over a backlog leaves it to the catch-up; once current, ids reused after the newest messages went are still read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-profiles-follow-'));
  const { db, stores, sourceId } = open(dir, 'follow.sqlite');
  try {
    const m = (k: number, userId: string): InboundMessage => messageOf({ type: 'track', userId, anonymousId: null, previousId: 'u1', event: 'Viewed', traits: {}, properties: {}, minute: 0 }, k);
    commitAll(stores, sourceId, [m(1, 'u1'), m(2, 'u1')], []);
    forgetProfiles(db);
    const behind = new ProfileStore(db);
    stores.log.followCommits((first) => behind.followCommit(first));
    commitAll(stores, sourceId, [m(3, 'u2')], []);
    assert.equal(behind.progress().read, 0, 'the commit did not read the backlog (nor itself)');
    assert.deepEqual(behind.progress(), { catchingUp: true, read: 0, of: 3 });
    assert.equal(behind.catchUpSlice(2), false);
    assert.equal(behind.catchUpSlice(2), true);
    assert.equal(behind.isCurrent(), true);
    assert.equal(behind.view('u2')?.events[0]?.count, 1);

    // Current, a commit leaves its messages owed rather than reading them inside its transaction; the next read takes them in.
    commitAll(stores, sourceId, [m(5, 'u5')], []);
    assert.equal(behind.cursor(), 3, 'the commit read nothing');
    assert.equal(behind.view('u5')?.events[0]?.count, 1, 'the read took in what the commit owed');
    assert.equal(behind.cursor(), 4);

    // The newest message goes (as retention and purges remove them: its track first), and the next one takes its id again.
    db.transaction(() => {
      behind.forgetTracks([4]);
      db.prepare('DELETE FROM messages WHERE id = 4').run();
    })();
    commitAll(stores, sourceId, [m(4, 'u3')], []);
    assert.equal(behind.view('u3')?.events[0]?.count, 1, 'read by its commit although its id was at the cursor');

    // One commit larger than a step (a 500 KB batch of tiny calls) is still read whole by itself.
    const many = Array.from({ length: FOLLOW_LIMIT + 10 }, (_, k) => m(100 + k, 'u4'));
    commitAll(stores, sourceId, many, []);
    assert.equal(behind.isCurrent(), true);
    assert.equal(behind.view('u4')?.events[0]?.count, FOLLOW_LIMIT + 10);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a trait sent again with its value takes the later message as its own: a merge after it keeps it over a value set in between', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-profiles-kept-trait-'));
  const { db, stores, sourceId } = open(dir, 'kept.sqlite');
  try {
    const identify = (k: number, ids: { userId?: string; anonymousId?: string }, traits: JsonObject): InboundMessage =>
      ({ type: 'identify', messageId: `t-${k}`, userId: null, anonymousId: null, ...ids, traits, context: {}, integrations: {}, timestamp: new Date(T0).toISOString(), receivedAt: new Date(T0).toISOString() }) as InboundMessage;
    const traitRows = (): unknown[] => db.prepare('SELECT profile_id, key, value, seq FROM persona_traits ORDER BY profile_id, key').all();
    commitAll(stores, sourceId, [identify(1, { userId: 'u1' }, { plan: 'pro', seats: 2 }), identify(2, { anonymousId: 'a1' }, { plan: 'free' })], [1]);
    stores.profiles.settle();
    // Sent again: plan as it was (only its seq moves), seats changed (the upsert).
    commitAll(stores, sourceId, [identify(3, { userId: 'u1' }, { plan: 'pro', seats: 3 })], []);
    stores.profiles.settle();
    const third = (db.prepare("SELECT id FROM messages WHERE message_id = 't-3'").get() as { id: number }).id;
    assert.deepEqual(traitRows(), [
      { profile_id: 'a1', key: 'plan', value: '"free"', seq: third - 1 },
      { profile_id: 'u1', key: 'plan', value: '"pro"', seq: third },
      { profile_id: 'u1', key: 'seats', value: '3', seq: third },
    ]);
    // The anonymous profile merges into u1: its plan was set before u1's was last sent.
    commitAll(stores, sourceId, [identify(4, { userId: 'u1', anonymousId: 'a1' }, {})], []);
    assert.deepEqual(stores.profiles.view('u1')?.traits, { plan: 'pro', seats: 3 });
    assert.deepEqual(
      db.prepare("SELECT key, profile_id, value FROM persona_traits INDEXED BY persona_traits_key WHERE key = 'plan' ORDER BY profile_id").all(),
      [{ key: 'plan', profile_id: 'u1', value: '"pro"' }],
      "the traits' index holds each value once, as the table does",
    );
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the preview and the profile view read summaries and tracks by index, never every track call', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-profiles-plan-'));
  const { db, stores } = open(dir, 'plan.sqlite');
  try {
    const plans = stores.profiles.plans();
    const lines = Object.values(plans).flat();
    assert.ok(!lines.some((l) => /SCAN persona_tracks|SCAN persona_events/.test(l)), lines.join('\n'));
    assert.ok(plans.summariesOf.some((l) => l.includes('SEARCH persona_events USING PRIMARY KEY (event=?)')), plans.summariesOf.join('\n'));
    assert.ok(plans.tracksSinceOf.some((l) => /USING (COVERING )?INDEX persona_tracks_profile \(profile_id=\? AND event=\? AND at>\?\)/.test(l)), plans.tracksSinceOf.join('\n'));
    assert.ok(plans.summariesOfIds.some((l) => l.includes('SEARCH e USING PRIMARY KEY (event=? AND profile_id=?)')), plans.summariesOfIds.join('\n'));
    assert.ok(plans.traitsNamedOf.some((l) => l.includes('SEARCH t USING PRIMARY KEY (profile_id=? AND key=?)')), plans.traitsNamedOf.join('\n'));
    assert.ok(plans.events.some((l) => /SEARCH persona_events USING (COVERING )?INDEX persona_events_profile \(profile_id=\?\)/.test(l)), plans.events.join('\n'));
    assert.ok(plans.traitsNamed.some((l) => l.includes('USING COVERING INDEX persona_traits_key (key=?)')), plans.traitsNamed.join('\n'));
    assert.ok(plans.page.some((l) => l.includes('SEARCH p USING PRIMARY KEY (profile_id>?)')), plans.page.join('\n'));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
