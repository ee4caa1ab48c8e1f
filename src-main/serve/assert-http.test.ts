import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, configWith, type Harness } from '../engine/testing/harness';
import { Receiver } from '../engine/testing/receiver';
import { waitUntil } from '../engine/testing/wait';
import type { ManualClock } from '../engine/clock';
import type { AssertedDeliveryRow, AssertedMessage, MarkerView, WaitResult } from '../../src-shared/assertions';

async function api<T = Record<string, unknown>>(
  h: Harness,
  path: string,
  init: { method?: string; body?: unknown; token?: string | null } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = {};
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? h.server.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${h.server.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Every delivery finished: what the assertions read is settled. */
const drained = (h: Harness): Promise<boolean> =>
  waitUntil(() => {
    const c = h.engine.stores.log.countDeliveriesByStatus();
    return (c.pending ?? 0) + (c.in_flight ?? 0) + (c.retrying ?? 0) === 0;
  }, 'the delivery queue to drain');

const track = (event: string, userId: string, properties: Record<string, unknown> = {}) => ({ type: 'track', event, userId, properties });

describe('assertions over HTTP', () => {
  let h: Harness;
  let receiver: Receiver;
  before(async () => {
    receiver = await new Receiver().start();
    // Deliveries for user "refused" fail with a 400 (not retried); every other one succeeds.
    receiver.respond((req, res) => {
      const body = JSON.parse(req.body.toString('utf8')) as { userId?: string };
      res.statusCode = body.userId === 'refused' ? 400 : 200;
      res.end();
    });
    h = await startHarness(configWith(receiver.url));
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });

  test('refuses a call without the token, and bad filters with a 400 naming the field', async () => {
    assert.equal((await api(h, '/api/messages', { token: null })).status, 401);
    const unknown = await api<{ error: { code: string; fields: { field: string; message: string }[] } }>(h, '/api/messages?evnt=x');
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, 'validation_failed');
    assert.deepEqual(unknown.body.error.fields.map((f) => f.field), ['evnt']);
    const count = await api<{ error: { fields: { field: string; message: string }[] } }>(h, '/api/messages/wait?count=0');
    assert.equal(count.status, 400);
    assert.equal(count.body.error.fields[0]?.field, 'count');
    assert.match(count.body.error.fields[0]?.message ?? '', /from 1 to/);
    const timeout = await api<{ error: { fields: { field: string }[] } }>(h, '/api/messages/wait?timeout=301');
    assert.equal(timeout.body.error.fields[0]?.field, 'timeout');
    const twice = await api<{ error: { fields: { field: string }[] } }>(h, '/api/messages?event=a&event=b');
    assert.equal(twice.body.error.fields[0]?.field, 'event');
    const marker = await api<{ error: { fields: { field: string; message: string }[] } }>(h, '/api/messages?marker=nope');
    assert.equal(marker.status, 400);
    assert.match(marker.body.error.fields[0]?.message ?? '', /no marker named "nope"/);
    const reset = await api<{ error: { fields: { field: string }[] } }>(h, '/api/reset', { body: { mark: 'has space' } });
    assert.equal(reset.status, 400);
    assert.equal(reset.body.error.fields[0]?.field, 'mark');
    assert.equal((await api(h, '/api/reset')).status, 405);
  });

  test('lists messages by exact fields after a marker; the deliveries carry their outcome', async () => {
    const mark = await api<{ marker: MarkerView }>(h, '/api/reset', { body: { mark: 'list-run' } });
    assert.equal(mark.status, 200);
    assert.equal(mark.body.marker.name, 'list-run');
    const posted = await h.post('/v1/batch', {
      batch: [track('Order Completed', 'u-1', { total: 10 }), track('Order Completed', 'u-2'), track('Signed Up', 'u-1'), { type: 'identify', userId: 'u-1', traits: { plan: 'pro' } }],
    });
    assert.equal(posted.status, 200);
    const orders = await api<{ messages: AssertedMessage[]; next: number | null }>(h, '/api/messages?marker=list-run&event=Order%20Completed');
    assert.deepEqual(orders.body.messages.map((m) => m.userId), ['u-1', 'u-2']);
    assert.equal(orders.body.next, null);
    const first = orders.body.messages[0];
    assert.equal(first?.source, 'backend');
    assert.deepEqual((first?.message as { properties: unknown }).properties, { total: 10 });
    assert.deepEqual(first?.violations, []);
    const byUser = await api<{ messages: AssertedMessage[] }>(h, '/api/messages?marker=list-run&userId=u-1&type=identify');
    assert.equal(byUser.body.messages.length, 1);
    const otherSource = await api<{ messages: AssertedMessage[] }>(h, '/api/messages?marker=list-run&source=elsewhere');
    assert.deepEqual(otherSource.body.messages, []);
    const paged = await api<{ messages: AssertedMessage[]; next: number | null }>(h, '/api/messages?marker=list-run&limit=3');
    assert.equal(paged.body.messages.length, 3);
    const rest = await api<{ messages: AssertedMessage[]; next: number | null }>(h, `/api/messages?marker=list-run&limit=3&after=${paged.body.next ?? 0}`);
    assert.deepEqual(rest.body.messages.map((m) => m.type), ['identify']);

    await waitUntil(() => receiver.received.length >= 4, 'the four deliveries');
    const delivered = await api<WaitResult>(h, '/api/messages/wait?marker=list-run&delivered=true&count=4&timeout=10');
    assert.equal(delivered.body.met, true);
    const deliveries = await api<{ deliveries: AssertedDeliveryRow[] }>(h, '/api/deliveries?marker=list-run&status=succeeded&event=Signed%20Up');
    assert.equal(deliveries.body.deliveries.length, 1);
    assert.equal(deliveries.body.deliveries[0]?.destination, 'Local receiver');
    assert.equal(deliveries.body.deliveries[0]?.httpStatus, 200);
  });

  test('a wait returns as soon as enough messages match, woken by the ingest, not by time', async () => {
    await api(h, '/api/reset', { body: { mark: 'wait-run' } });
    // The harness's clock is manual and never moved here: only a new message can end this wait.
    const waiting = api<WaitResult>(h, '/api/messages/wait?marker=wait-run&event=Checkout&count=2&timeout=60');
    await h.post('/v1/batch', { batch: [track('Checkout', 'u-3')] });
    await h.post('/v1/batch', { batch: [track('Browse', 'u-3'), track('Checkout', 'u-4')] });
    const result = await waiting;
    assert.equal(result.status, 200);
    assert.equal(result.body.met, true);
    assert.equal(result.body.matched, 2);
    assert.deepEqual(result.body.messages.map((m) => m.userId), ['u-3', 'u-4']);
    assert.equal(result.body.waitedMs, 0, 'the manual clock did not move');
  });

  test('an unmet wait ends at its timeout and names the closest messages and why each missed', async () => {
    await api(h, '/api/reset', { body: { mark: 'miss-run' } });
    await h.post('/v1/batch', { batch: [track('Order Placed', 'u-5'), track('Order Completed', 'refused'), { type: 'page', name: 'Home', anonymousId: 'a-1' }] });
    await drained(h);
    const waiting = api<WaitResult>(h, '/api/messages/wait?marker=miss-run&event=Order%20Completed&delivered=true&timeout=30');
    // Let the wait subscribe, then move the engine's clock past its timeout.
    await waitUntil(() => (h.clock as ManualClock).pendingTimers().includes(30_000), 'the wait to arm its timeout');
    (h.clock as ManualClock).advance(30_000);
    const result = (await waiting).body;
    assert.equal(result.met, false);
    assert.equal(result.matched, 0);
    assert.equal(result.waitedMs, 30_000);
    const [nearest, second, third] = result.closest;
    // The right event with a failed delivery is nearer than another event, delivered or not.
    assert.equal(nearest?.message.userId, 'refused');
    assert.deepEqual(nearest?.mismatches.map((m) => m.field), ['deliveryStatus']);
    assert.match(nearest?.mismatches[0]?.actual ?? '', /failed \(HTTP 400\) at Local receiver/);
    assert.equal(second?.message.type, 'page', 'newest first among equals');
    assert.deepEqual(second?.mismatches, [{ field: 'event', expected: '"Order Completed"', actual: '(none)' }]);
    assert.deepEqual(third?.mismatches, [{ field: 'event', expected: '"Order Completed"', actual: '"Order Placed"' }]);
    assert.equal(result.closest.length, 3);
  });

  test('markers keep runs apart; clear empties the log and drops the markers', async () => {
    await api(h, '/api/reset', { body: { mark: 'run-a' } });
    await h.post('/v1/batch', { batch: [track('From A', 'a')] });
    const b = await api<{ marker: MarkerView }>(h, '/api/reset', { body: { mark: true } });
    assert.match(b.body.marker.name, /^run-[0-9a-z]+-[0-9a-z]+$/);
    await h.post('/v1/batch', { batch: [track('From B', 'b')] });
    const seenByA = await api<{ messages: AssertedMessage[] }>(h, '/api/messages?marker=run-a');
    const seenByB = await api<{ messages: AssertedMessage[] }>(h, `/api/messages?marker=${b.body.marker.name}`);
    assert.deepEqual(seenByA.body.messages.map((m) => m.event), ['From A', 'From B']);
    assert.deepEqual(seenByB.body.messages.map((m) => m.event), ['From B']);

    await drained(h);
    const cleared = await api<{ cleared: { messages: number }; markers: number }>(h, '/api/reset', { body: { clear: true } });
    assert.equal(cleared.status, 200);
    assert.ok(cleared.body.cleared.messages >= 2);
    assert.ok(cleared.body.markers >= 2);
    assert.deepEqual((await api<{ messages: AssertedMessage[] }>(h, '/api/messages')).body.messages, []);
    assert.equal((await api(h, '/api/messages?marker=run-a')).status, 400);
  });
});
