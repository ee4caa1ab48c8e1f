/**
 * A person's messages by era (message_people): on a real SQLite file, through the engine's own
 * commit path, the deletion footprint read by era is exactly the messages a plain reading of the
 * log finds, across eras, after messages go, and while a log from before schema 21 is copied in
 * (messages_user answers until the copy is done, then is dropped).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../index';
import { stoppedEngine } from '../testing/stopped-engine';
import { ManualClock } from '../clock';
import { LogInspector } from './inspect';
import { ERA_BITS } from './message-people';
import type { InboundMessage } from '../../../src-shared/events';

const T0 = Date.parse('2026-11-24T12:00:00.000Z');
const ERA = 2 ** ERA_BITS;

function commit(engine: Engine, messages: { id: string; userId: string | null; anonymousId: string | null }[]): void {
  const iso = new Date(T0).toISOString();
  const items = messages.map((m) => {
    const message = { type: 'track', messageId: m.id, userId: m.userId, anonymousId: m.anonymousId, event: 'E', properties: {}, context: {}, integrations: {}, timestamp: iso, receivedAt: iso } as InboundMessage;
    return { message, json: JSON.stringify(message), destinationIds: [] };
  });
  engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: T0, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 86_400_000);
}

/** A copy of message `from` under id `id` (a later era), as a log that large would hold it. */
function copyAt(raw: LogInspector, from: number, id: number): void {
  raw.exec(`INSERT INTO messages (id, source_id, request_id, message_id, dedupe_key, type, user_id, anonymous_id, event, received_at, json, warnings, violations)
    SELECT ${id}, source_id, request_id, message_id || '@${id}', NULL, type, user_id, anonymous_id, event, received_at, json, warnings, violations FROM messages WHERE id = ${from}`);
}

/** The user's messages as a plain reading of the whole log finds them. */
function plainly(raw: LogInspector, userId: string, anonymous: string[]): number[] {
  const rows = raw.all(`SELECT id FROM messages WHERE user_id = ? OR (user_id IS NULL AND anonymous_id IN (SELECT value FROM json_each(?))) ORDER BY id`, userId, JSON.stringify(anonymous)) as { id: number }[];
  return rows.map((r) => r.id);
}


/** Messages of u1 (own and anonymous), u2 and nobody, in eras 0, 2 and 5. */
function logAcrossEras(t: TestContext): { engine: Engine; raw: LogInspector } {
  const { engine, dir } = stoppedEngine(t, new ManualClock(T0), 'hookbench-message-people-');
  commit(engine, [
    { id: 'a', userId: 'u1', anonymousId: 'x1' },
    { id: 'b', userId: null, anonymousId: 'x1' },
    { id: 'c', userId: 'u2', anonymousId: 'x2' },
    { id: 'd', userId: null, anonymousId: 'x2' },
    { id: 'e', userId: 'u1', anonymousId: 'u1' },
  ]);
  const raw = LogInspector.of(dir);
  t.after(() => raw.close());
  for (const [k, era] of [[1, 2], [2, 2], [3, 5], [4, 5], [5, 5]] as const) copyAt(raw, k, era * ERA + k);
  // And commits after them, in era 5, through the write path again.
  commit(engine, [
    { id: 'f', userId: 'u1', anonymousId: 'x1' },
    { id: 'g', userId: null, anonymousId: 'x1' },
  ]);
  return { engine, raw };
}

test('message_people: each message has its entry under its era and person, kept as messages come and go', (t) => {
  const { engine, raw } = logAcrossEras(t);
  const entries = (): unknown[] => raw.all('SELECT era, person, id FROM message_people ORDER BY id');
  const expected = (raw.all(`SELECT id >> ${ERA_BITS} AS era, iif(user_id IS NOT NULL, 'u:' || user_id, 'a:' || anonymous_id) AS person, id FROM messages ORDER BY id`) as unknown[]);
  assert.equal(expected.length, 12);
  assert.deepEqual(entries(), expected);
  assert.deepEqual([...new Set((entries() as { era: number }[]).map((e) => e.era))], [0, 2, 5]);
  engine.stores.retention.removeMessages([1, 2 * ERA + 1, 5 * ERA + 3]);
  assert.deepEqual(entries(), (expected as { id: number }[]).filter((e) => ![1, 2 * ERA + 1, 5 * ERA + 3].includes(e.id)));
});

test('message_people: the footprint by era is what a plain reading of the log finds, from any id on', (t) => {
  const { engine, raw } = logAcrossEras(t);
  assert.equal(engine.stores.messagePeople.ready(), true);
  for (const [user, anonymous] of [['u1', ['x1']], ['u1', []], ['u2', ['x2', 'x1']], ['nobody', ['x9']]] as const) {
    const person = { userId: user, linkedIds: new Set<string>(anonymous) };
    const want = plainly(raw, user, [...anonymous]);
    assert.deepEqual(engine.stores.deletions.affectedSourceIds(person), want.length > 0 ? [1] : []);
    // The links read in parts from every id on, as a purge under way reads them.
    const own = plainly(raw, user, []);
    for (const after of [0, 3, 2 * ERA + 1, 5 * ERA + 2, 5 * ERA + 100]) {
      const links = engine.stores.deletions.links(user, after);
      assert.equal(links.read, own.filter((id) => id > after).length, `${user} after ${after}`);
      const part = engine.stores.deletions.links(user, after, 2);
      assert.equal(part.last, own.filter((id) => id > after).slice(0, 2).at(-1) ?? 0, `${user} after ${after}, two`);
    }
  }
  // The purge's reading takes every one of the person's messages, across eras, and no other.
  const person = { userId: 'u1', linkedIds: new Set(['x1']) };
  const want = plainly(raw, 'u1', ['x1']);
  let removed = 0;
  for (let step = engine.stores.deletions.removeMessagesOf(person, 2); step.messages > 0; step = engine.stores.deletions.removeMessagesOf(person, 2)) removed += step.messages;
  assert.equal(removed, want.length);
  assert.deepEqual(plainly(raw, 'u1', ['x1']), []);
  assert.equal(plainly(raw, 'u2', ['x2']).length, 4);
});

test('message_people: a log from before it is copied in slices, messages_user answering meanwhile, then dropped', (t) => {
  const { engine, raw } = logAcrossEras(t);
  // As schema 20 left a log: no entries, the copy owed below the newest id, and the old index.
  raw.exec(`DELETE FROM message_people; UPDATE message_people_backfill SET below = (SELECT MAX(id) + 1 FROM messages);
    CREATE INDEX IF NOT EXISTS messages_user ON messages (user_id, anonymous_id);`);
  const hasIndex = (): boolean => raw.all(`SELECT name FROM sqlite_schema WHERE name = 'messages_user'`).length === 1;
  const person = { userId: 'u1', linkedIds: new Set(['x1']) };
  const want = plainly(raw, 'u1', ['x1']);
  const linkedBefore = engine.stores.deletions.links('u1', 0);
  assert.equal(engine.stores.messagePeople.ready(), false);
  assert.ok(engine.stores.deletions.plans().userMessageIds.some((line) => /messages_user/.test(line)));
  let slices = 0;
  while (!engine.stores.messagePeople.backfill(3)) {
    slices++;
    // Mid-copy the footprint is still whole: read through messages_user.
    assert.deepEqual(engine.stores.deletions.links('u1', 0), linkedBefore);
    assert.equal(hasIndex(), true);
  }
  assert.ok(slices >= 4, `${slices} slices of three`);
  assert.equal(engine.stores.messagePeople.ready(), true);
  assert.equal(hasIndex(), false, 'messages_user is dropped once the copy is done');
  assert.equal(raw.all('SELECT * FROM message_people').length, 12);
  assert.deepEqual(engine.stores.deletions.links('u1', 0), linkedBefore);
  assert.ok(engine.stores.deletions.plans().userMessageIds.some((line) => /message_people|USING PRIMARY KEY \(era/.test(line)));
  let removed = 0;
  for (let step = engine.stores.deletions.removeMessagesOf(person, 2); step.messages > 0; step = engine.stores.deletions.removeMessagesOf(person, 2)) removed += step.messages;
  assert.equal(removed, want.length);
});
