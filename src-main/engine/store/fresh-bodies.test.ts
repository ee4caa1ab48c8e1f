/**
 * The bodies a commit keeps in memory for the claim that follows: on a real SQLite file, through
 * the engine's own stores, a claim reads exactly the bytes stored, and never the body of a row that
 * is gone when another row takes its id.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Engine } from '../index';
import { stoppedEngine } from '../testing/stopped-engine';
import { ManualClock } from '../clock';
import { webhookBodyOf } from '../delivery/payloads';
import type { InboundMessage } from '../../../src-shared/events';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');

const engineWithDestination = (t: TestContext): Engine => stoppedEngine(t, new ManualClock(T0), 'hookbench-fresh-bodies-').engine;

function commit(engine: Engine, ids: string[]): void {
  const items = ids.map((id) => {
    const message = { type: 'track', messageId: id, userId: `user-${id}`, anonymousId: null, event: `Event ${id}`, properties: { id }, context: {}, integrations: {}, timestamp: new Date(T0).toISOString(), receivedAt: new Date(T0).toISOString() } as InboundMessage;
    return { message, json: JSON.stringify(message), body: webhookBodyOf(message) ?? undefined, destinationIds: [1] };
  });
  engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: T0, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 86_400_000);
}

const stored = (engine: Engine, id: number): string => engine.stores.log.getDelivery(id)?.body?.toString() ?? 'none';

test('a claim gets exactly the bytes each commit stored', (t) => {
  const engine = engineWithDestination(t);
  commit(engine, ['a', 'b']);
  commit(engine, ['c']);
  const due = engine.stores.log.dueDeliveries(T0, 10);
  assert.deepEqual(due.map((d) => d.id), [1, 2, 3]);
  for (const d of due) {
    assert.ok(d.body !== null);
    assert.equal(d.body.toString(), stored(engine, d.id));
  }
  assert.match(due[2]?.body?.toString() ?? '', /"messageId":"c"/);
  // Taken once: a second claim of the same rows reads them from the file, with the same bytes.
  const again = engine.stores.log.dueDeliveries(T0, 10);
  assert.deepEqual(again.map((d) => d.body?.toString()), due.map((d) => d.body?.toString()));
});

test('a delivery removed before its claim, its id then taken by a test event: the claim reads the test event, not the kept body', (t) => {
  const engine = engineWithDestination(t);
  commit(engine, ['gone']);
  const removed = engine.stores.transaction(() => engine.stores.retention.removeMessages([1]));
  assert.deepEqual(removed.deliveryIds, [1]);
  const testId = engine.stores.log.createTest({ destinationId: 1, payloadType: 'track', body: Buffer.from('{"test":true}'), targetUrl: null, now: T0 });
  assert.equal(testId, 1, 'the id is given again');
  const [claimed] = engine.stores.log.dueDeliveries(T0, 10);
  assert.equal(claimed?.id, 1);
  assert.equal(claimed?.body?.toString(), '{"test":true}');
});

test('a commit rolled back: the id its delivery had goes to the next commit, whose body the claim reads', (t) => {
  const engine = engineWithDestination(t);
  assert.throws(() =>
    engine.stores.transaction(() => {
      commit(engine, ['rolled-back']);
      throw new Error('the disk is full');
    }),
  );
  commit(engine, ['kept']);
  const due = engine.stores.log.dueDeliveries(T0, 10);
  assert.deepEqual(due.map((d) => d.id), [1]);
  assert.match(due[0]?.body?.toString() ?? '', /"messageId":"kept"/);
});
