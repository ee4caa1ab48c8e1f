import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { stoppedEngine } from './testing/stopped-engine';
import { ManualClock } from './clock';
import type { Engine } from './index';
import { LogInspector } from './store/inspect';
import type { DeliveryQueryFilter } from './store/delivery-views';
import type { InboundMessage } from '../../src-shared/events';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const NO_FILTER: DeliveryQueryFilter = { statuses: null, type: null, url: null, text: null, replayed: null, violations: null };

test('messages owed by many commits are found exactly as reading the log finds them, and then they are in the index', async (t) => {
  const { engine } = openEngine(t);
  for (let i = 0; i < 300; i++) commitOne(engine, `m-${i}`, `user_${i % 7}@example.com`, T0 + i, i % 3 === 0 ? 'Order Completed' : 'Product Viewed');
  const page = (text: string, textIndex: boolean): number[] =>
    engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 1000 }, textIndex).map((r) => r.id);
  const needles = ['user_3@', 'Completed', 'viewed', 'nothing like it'];
  const fromLog = needles.map((n) => page(n, false));
  assert.deepEqual(needles.map((n) => page(n, true)), fromLog, 'the first search took in the 300 owed messages');
  assert.equal(fromLog[0]?.length, 43);
  assert.equal(engine.stores.searchIndex.indexOwed(1), true, 'nothing is owed any more');
});

/** An engine on a fresh data folder with one source and one destination, stopped and removed after the test. */
const openEngine = (t: TestContext): { engine: Engine; dir: string } => stoppedEngine(t, new ManualClock(T0), 'hookbench-search-owed-');

function commitOne(engine: Engine, id: string, userId: string, at: number, event = 'Signed Up'): void {
  const message = {
    type: 'track', messageId: id, userId, anonymousId: null, event,
    properties: {}, context: {}, integrations: {}, timestamp: new Date(at).toISOString(), receivedAt: new Date(at).toISOString(),
  } as InboundMessage;
  engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/track', receivedAt: at, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, [{ message, json: JSON.stringify(message), destinationIds: [1] }], [], 86_400_000);
}

test('a commit leaves its messages owed to the index; a search takes them in first, also ids given again after the newest messages went', async (t) => {
  const { engine, dir } = openEngine(t);
  const indexed = (needle: string): number[] => {
    const inspect = LogInspector.of(dir, { readonly: true });
    try {
      return inspect.all<{ rowid: number }>(`SELECT rowid FROM message_text WHERE message_text MATCH '"${needle}"' ORDER BY rowid`).map((r) => r.rowid);
    } finally {
      inspect.close();
    }
  };
  const search = (text: string): string[] =>
    engine.stores.deliveryViews.page({ ...NO_FILTER, text, beforeId: null, afterId: null, limit: 100 }).map((r) => r.message_uid ?? '');

  commitOne(engine, 'a-1', 'alice@example.com', T0);
  commitOne(engine, 'a-2', 'alice@example.com', T0 + 1);
  assert.deepEqual(indexed('alice'), [], 'the commits wrote no trigrams');
  assert.deepEqual(search('alice'), ['a-2', 'a-1'], 'the search took them in first');
  assert.deepEqual(indexed('alice'), [1, 2]);

  // The newest message goes (a purge), and the next commit is given its id again.
  const db = new Database(join(dir, 'hookbench.sqlite'));
  db.exec('DELETE FROM attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE message_id = 2); DELETE FROM deliveries WHERE message_id = 2; DELETE FROM messages WHERE id = 2;');
  db.close();
  commitOne(engine, 'b-1', 'bob@example.com', T0 + 2);
  assert.deepEqual(search('bob'), ['b-1'], 'a message on an id given again is indexed');
  assert.deepEqual(search('alice'), ['a-1']);
  assert.deepEqual(indexed('bob'), [2]);
});
