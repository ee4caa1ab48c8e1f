import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedDeliveries } from '../../../bench/support/seed';
import { startHarness, type Harness } from '../testing/harness';
import { turnsDuring } from '../testing/wait';
import { ANY_MESSAGE } from '../store/assertions';
import { createAssertions, type Assertions } from './service';

const SEEDED = 40_000;
const NO_FILTER = ANY_MESSAGE;

describe('the assertions read a big log in windows of ids: the same answers as one statement, the engine turning between them', () => {
  let h: Harness;
  let assertions: Assertions;
  before(async () => {
    h = await startHarness({
      sources: [{ name: 'backend', writeKey: 'wk_windows' }],
      destinations: [{ name: 'd', enabled: true, sources: ['backend'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
    },
    // These windows are what runs on the engine's thread when no read worker answers; with one, its replies are turns
    // too, and whether it answers yet depends on how fast it started.
    { readWorkerEntry: null });
    const source = h.engine.stores.config.listSources()[0]!;
    const destination = h.engine.stores.config.listDestinations()[0]!;
    seedDeliveries(h.engine.stores.log, SEEDED, { sourceId: source.id, destinationId: destination.id, url: 'http://127.0.0.1:9/hook', now: h.clock.now() });
    assertions = createAssertions(h.engine);
  });
  after(async () => {
    await h.close();
  });

  test('a filter that matches nothing: an empty page, a zero count, and the event loop turned while they read', async () => {
    const page = await turnsDuring(() => assertions.messages({ event: 'Never Sent' }));
    assert.deepEqual(page.value, { messages: [], next: null });
    assert.ok(page.turns >= 2, `the page was read in windows, the loop turning ${page.turns} times`);
    const count = await turnsDuring(() => assertions.count({ event: 'Never Sent' }));
    assert.equal(count.value, 0);
    assert.ok(count.turns >= 2, `the count was read in windows, the loop turning ${count.turns} times`);
    const deliveries = await turnsDuring(() => assertions.deliveries({ event: 'Never Sent' }));
    assert.deepEqual(deliveries.value, { deliveries: [], next: null });
    assert.ok(deliveries.turns >= 2, `the deliveries were read in windows, the loop turning ${deliveries.turns} times`);
    const wait = await turnsDuring(() => assertions.wait({ event: 'Never Sent', timeout: 0 }));
    assert.equal(wait.value.met, false);
    assert.equal(wait.value.matched, 0);
    assert.ok(wait.turns >= 2, `the wait counted in windows, the loop turning ${wait.turns} times`);
  });

  const assertSameAsOneStatement = async (): Promise<void> => {
    const store = h.engine.stores.assertions;
    for (const [input, filter] of [
      [{ type: 'track' }, { ...NO_FILTER, type: 'track' }],
      [{ userId: 'user_7' }, { ...NO_FILTER, userId: 'user_7' }],
      [{ type: 'identify', deliveryStatus: 'failed' }, { ...NO_FILTER, type: 'identify', deliveryStatus: 'failed' }],
      [{}, NO_FILTER],
    ] as const) {
      const label = JSON.stringify(input);
      assert.equal(await assertions.count(input), store.countMessages(filter), label);
      for (const after of [0, 12_345]) {
        const page = await assertions.messages({ ...input, after, limit: 40 });
        const expected = store.messages(filter, after, 40).map((m) => m.id);
        assert.deepEqual(
          page.messages.map((m) => m.id),
          expected,
          `${label} after ${after}`,
        );
        assert.equal(page.next, expected.length === 40 ? expected[39] : null, `${label} after ${after}: next`);
      }
      const extra = { status: null, destination: null, afterDeliveryId: null };
      const deliveries = await assertions.deliveries({ ...input, limit: 40 });
      assert.deepEqual(
        deliveries.deliveries.map((d) => d.id),
        store.deliveries(filter, extra, 0, 40).map((d) => d.id),
        `${label}: deliveries`,
      );
      const attempts = await assertions.attempts({ ...input, limit: 40 });
      assert.deepEqual(
        attempts.attempts.map((a) => a.id),
        store.attempts(filter, extra, 0, 40).map((a) => a.id),
        `${label}: attempts`,
      );
    }
    assert.deepEqual(await assertions.violationCounts(), store.violationCounts(0));
  };

  test('counts and pages equal those of one statement, for filters that match often, rarely, or by index', assertSameAsOneStatement);

  test('the same once the message tallies hold the log; an event nobody sent then reads no delivery or attempt either', async () => {
    while (!h.engine.stores.tallies.tallyOwed(5_000)) {
      // the rest
    }
    await assertSameAsOneStatement();
    const calls: (() => Promise<object>)[] = [() => assertions.deliveries({ event: 'Never Sent' }), () => assertions.attempts({ event: 'Never Sent' })];
    for (const call of calls) {
      const { value, turns } = await turnsDuring(call);
      assert.deepEqual(Object.values(value), [[], null]);
      assert.equal(turns, 0, 'answered from the tallies');
    }
  });

  test('after a marker: a replay of an older message counts among the deliveries, and an old message does not among the messages', async () => {
    const marker = (await assertions.reset({ mark: 'before-replay' })) as { marker: { name: string } };
    const replayId = h.engine.replay(5);
    const deliveries = await assertions.deliveries({ marker: marker.marker.name });
    assert.deepEqual(
      deliveries.deliveries.map((d) => [d.id, d.replayOf, d.messageRowId]),
      [[replayId, 5, h.engine.stores.log.getDelivery(5)?.message_id ?? null]],
      'the marker bounds the delivery, not its message',
    );
    assert.equal((await assertions.attempts({ marker: marker.marker.name })).attempts.every((a) => a.delivery_id === replayId), true);
    assert.deepEqual((await assertions.messages({ marker: marker.marker.name })).messages, [], 'no message arrived after it');
  });

  test('a wait on a big log counts what arrives after it started, and ends as soon as enough matched', async () => {
    const before = await assertions.count({ event: 'Order Completed' });
    const waiting = assertions.wait({ event: 'Order Completed', count: before + 2, timeout: 60 });
    const track = (event: string) => ({ type: 'track', event, userId: 'u-wait', properties: {} });
    assert.equal((await h.post('/v1/batch', { batch: [track('Order Completed'), track('Browse')] }, { writeKey: 'wk_windows' })).status, 200);
    assert.equal((await h.post('/v1/batch', { batch: [track('Order Completed')] }, { writeKey: 'wk_windows' })).status, 200);
    const result = await waiting;
    assert.equal(result.met, true);
    assert.equal(result.matched, before + 2);
    assert.equal(result.matched, h.engine.stores.assertions.countMessages({ ...NO_FILTER, event: 'Order Completed' }));
    assert.equal(result.waitedMs, 0, 'the manual clock never moved: the arrivals ended the wait');
  });
});
