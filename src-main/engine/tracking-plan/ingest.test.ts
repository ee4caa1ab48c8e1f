import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, configWith } from '../testing/harness';
import { createEngineApi } from '../api';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { ValidationError } from '../../../src-shared/settings';
import { EMPTY_TRACKING_PLAN, type TrackingPlan } from '../../../src-shared/tracking-plan';
import type { AssertedMessage } from '../../../src-shared/assertions';
import { COUNT_WINDOWS, createAssertions } from '../assertions/service';

const plan: TrackingPlan = {
  ...EMPTY_TRACKING_PLAN,
  events: { 'Order Completed': { type: 'object', required: ['total'], properties: { total: { type: 'number' } } } },
};

test('violations are stored with the message, filterable and counted per event; hold keeps violating messages from delivery', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness({ ...configWith(receiver.url), trackingPlan: plan });
  const get = async <T>(path: string): Promise<T> =>
    (await (await fetch(`${h.server.url}${path}`, { headers: { authorization: `Bearer ${h.server.token}` } })).json()) as T;
  try {
    assert.deepEqual(h.engine.trackingPlan(), plan);
    const order = (total: unknown) => ({ type: 'track', event: 'Order Completed', userId: 'u', properties: { total } });
    assert.equal((await h.post('/v1/batch', { batch: [order(10), order('ten'), order('eleven'), { type: 'track', event: 'Other', userId: 'u' }] })).status, 200);
    await receiver.waitFor(4);

    const bad = await get<{ messages: AssertedMessage[] }>('/api/messages?violations=any');
    assert.equal(bad.messages.length, 2);
    assert.deepEqual(bad.messages[0]?.violations, [{ path: '/properties/total', rule: 'type', message: 'must be number', value: 'ten' }]);
    assert.equal((await get<{ messages: AssertedMessage[] }>('/api/messages?violations=none')).messages.length, 2);
    assert.deepEqual(await get('/api/violations'), { counts: [{ type: 'track', event: 'Order Completed', messages: 2, violations: 2 }] });

    // The Deliveries view filters on them and shows how many each message has.
    const api = createEngineApi(h.engine);
    const violating = await api.listDeliveries({ violations: 'any' });
    assert.deepEqual(violating.items.map((d) => d.violations), [1, 1]);
    assert.deepEqual(await api.countDeliveries({ violations: 'none' }), { total: 4, matching: 2 });
    await assert.rejects(api.countDeliveries({ violations: 'some' } as never), (err: unknown) => err instanceof ValidationError && err.errors[0]?.field === 'filter.violations');

    // A plan that does not compile is refused by name, and the one in force stays.
    assert.throws(() => h.engine.setTrackingPlan({ ...plan, identify: { type: 12 } }), (err: unknown) => err instanceof ValidationError && err.errors[0]?.field === 'identify');
    assert.deepEqual(h.engine.trackingPlan(), plan);

    h.engine.setTrackingPlan({ ...plan, violatingEvents: 'hold' });
    await h.post('/v1/batch', { batch: [order('held'), order(12)] });
    await receiver.waitFor(5);
    const after = await get<{ messages: AssertedMessage[] }>('/api/messages?event=Order%20Completed');
    const held = after.messages.find((m) => (m.message as { properties: { total: unknown } }).properties.total === 'held');
    assert.deepEqual(held?.deliveries, [], 'held: logged with its violations, sent nowhere');
    assert.equal(held?.violations.length, 1);
    await waitUntil(() => h.engine.stores.log.countDeliveriesByStatus().pending === undefined, 'the queue to drain');
    assert.equal(receiver.received.length, 5);

    h.engine.setTrackingPlan(null);
    assert.equal(h.engine.trackingPlan(), null);
    await h.post('/v1/batch', { batch: [order('free again')] });
    const last = (await get<{ messages: AssertedMessage[] }>('/api/messages?event=Order%20Completed')).messages.at(-1);
    assert.deepEqual(last?.violations, []);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('the view\'s violation counts are counted newest first in windows within a budget: the whole log\'s when they end in it, else the newest part with the time it starts', async () => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: 'wk_plan' }], destinations: [], trackingPlan: plan });
  try {
    const total = COUNT_WINDOWS.first + 500;
    for (let i = 0; i < total; i += 500) {
      const batch = Array.from({ length: 500 }, (_, k) => ({ type: 'track', event: (i + k) % 2 === 0 ? 'Order Completed' : 'Other', userId: 'u', properties: { total: (i + k) % 5 === 0 ? 'bad' : 1 } }));
      assert.equal((await h.post('/v1/batch', { batch }, { writeKey: 'wk_plan' })).status, 200);
    }
    const assertions = createAssertions(h.engine);
    const whole = await assertions.violationCountsWithin(10_000);
    assert.deepEqual(whole, { counts: h.engine.stores.assertions.violationCounts(0), from: null }, 'over more than one window, the exact counts (one statement)');
    assert.deepEqual(whole.counts, [{ type: 'track', event: 'Order Completed', messages: total / 10, violations: total / 10 }]);
    const newest = await assertions.violationCountsWithin(0);
    assert.ok(newest.from !== null, 'the budget spent before the oldest message: the time the counts start');
    assert.ok((newest.counts[0]?.messages ?? 0) < total / 10 && (newest.counts[0]?.messages ?? 0) > 0, JSON.stringify(newest.counts));
    const view = await createEngineApi(h.engine).getTrackingPlan();
    assert.deepEqual([view.counts, view.countedFrom], [whole.counts, undefined], 'the view counts a small log whole');
  } finally {
    await h.close();
  }
});

test("the Deliveries view's violations filter reads only the deliveries whose messages the tallies have not ruled out", async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  try {
    const api = createEngineApi(h.engine);
    const views = h.engine.stores.deliveryViews;
    const order = (total: unknown) => ({ type: 'track', event: 'Order Completed', userId: 'u', properties: { total } });
    assert.equal((await h.post('/v1/batch', { batch: [order(1), order(2), order(3)] })).status, 200);
    await receiver.waitFor(3);
    // Before the follow-up tallies them, the newest messages may carry violations: their deliveries are read.
    const first = (await api.listDeliveries({})).items.at(-1)!.id;
    assert.equal(views.violationsFrom(), first);
    // What the engine's follow-up does a moment after a commit (its timer is on the harness's manual clock).
    while (!h.engine.stores.takeInOwed(1_000));
    // No plan, so no message has violations: nothing to read, the answer exact.
    assert.equal(views.violationsFrom(), null);
    assert.deepEqual(await api.listDeliveries({ violations: 'any' }), { items: [], nextBeforeId: null });
    assert.deepEqual(await api.countDeliveries({ violations: 'any' }), { total: 3, matching: 0 });
    // Once a tallied message has one, the tallies rule nothing out, and the row is found.
    h.engine.setTrackingPlan(plan);
    assert.equal((await h.post('/v1/batch', { batch: [order('ten')] })).status, 200);
    await receiver.waitFor(4);
    while (!h.engine.stores.takeInOwed(1_000));
    assert.equal(views.violationsFrom(), 1);
    assert.deepEqual((await api.listDeliveries({ violations: 'any' })).items.map((d) => d.violations), [1]);
    assert.deepEqual(await api.countDeliveries({ violations: 'any' }), { total: 4, matching: 1 });
  } finally {
    await h.close();
    await receiver.close();
  }
});
