import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../clock';
import type { Stores } from '../store/stores';
import { realisticMessage } from '../../../bench/support/seed';
import { webhookBodyOf } from './payloads';
import { loneScheduler } from '../testing/lone-scheduler';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';

/** Lets every queued microtask run, and nothing queued with setImmediate or a timer. */
const microtasks = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function commitOne(stores: Stores, i: number, now: number, mapped: boolean): number {
  const source = stores.config.listSources()[0]!;
  const destination = stores.config.listDestinations()[0]!;
  const message = realisticMessage(i, 10, now);
  const record = { sourceId: source.id, path: '/v1/batch', receivedAt: now, httpStatus: 200, bytes: 0, userAgent: 'test' };
  stores.log.commitRequest(record, source.id, [{ message, json: JSON.stringify(message), destinationIds: [destination.id], body: mapped ? webhookBodyOf(message) : null }], [], 24 * 3600 * 1000);
  return stores.log.listDeliveries({ limit: 1 })[0]!.id;
}

test('a commit claims the deliveries it made due in the same turn of the event loop with the body mapped at commit; other wakes wait for the next turn', async () => {
  const t0 = Date.UTC(2026, 10, 23, 12);
  const clock = new ManualClock(t0);
  const receiver = await new Receiver().start();
  const { scheduler, stores, close } = await loneScheduler({ clock, receiverUrl: receiver.url });
  try {
    scheduler.start();
    await new Promise((resolve) => setImmediate(resolve));

    const first = commitOne(stores, 0, clock.now(), true);
    const mappedAtCommit = stores.log.getDelivery(first)?.body;
    assert.ok(mappedAtCommit && mappedAtCommit.length > 0, 'the body mapped at commit is stored with the pending delivery');
    scheduler.committed();
    scheduler.committed();
    await microtasks();
    assert.equal(stores.log.getDelivery(first)?.status, 'in_flight', 'claimed before the event loop turned');
    assert.equal(stores.log.attemptsOf(first).length, 1, 'one attempt, however many times it was told');

    const second = commitOne(stores, 1, clock.now(), false);
    assert.equal(stores.log.getDelivery(second)?.body, null);
    scheduler.wake();
    await microtasks();
    assert.equal(stores.log.getDelivery(second)?.status, 'pending', 'a plain wake claims on the next turn');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stores.log.getDelivery(second)?.status, 'in_flight');

    await waitUntil(() => receiver.received.length === 2, 'both sent');
    // The bytes mapped at commit are the bytes sent; one mapped by the scheduler is the same mapping.
    assert.deepEqual(Buffer.from(receiver.received[0]!.body), mappedAtCommit);
    const secondMessage = realisticMessage(1, 10, clock.now());
    assert.deepEqual(Buffer.from(receiver.received[1]!.body), webhookBodyOf(secondMessage));
    assert.deepEqual(stores.log.getDelivery(second)?.body, webhookBodyOf(secondMessage));
    await waitUntil(() => stores.log.getDelivery(second)?.status === 'succeeded', 'the second round written');
  } finally {
    await close();
    await receiver.close();
  }
});
