/**
 * The Configure view's engine calls on a real engine and temp SQLite: where the ingest listens,
 * removing sources and destinations (refusals with reasons, queued deliveries discarded, ids never
 * reused), through the same API the transports carry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import type { ApiResponse, EngineApi, EngineEnvironment, LiveEvent } from '../../src-shared/api';
import { ValidationError } from '../../src-shared/settings';
import { createEngineApi, type ConfigWhat } from './api';
import { ManualClock } from './clock';
import { configWith, startHarness, WRITE_KEY, type Harness } from './testing/harness';
import { Receiver, status } from './testing/receiver';
import { waitUntil } from './testing/wait';

async function refusal(call: Promise<unknown>): Promise<string[]> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.errors.map((e) => `${e.field}: ${e.message}`);
  }
  assert.fail('the call was not refused');
}

function apiOf(h: Harness): { api: EngineApi; told: ConfigWhat[] } {
  const told: ConfigWhat[] = [];
  return { api: createEngineApi(h.engine, { onConfig: (what) => told.push(what) }), told };
}

const deliveryOf = (h: Harness, messageId: string) =>
  h.inspect.get('SELECT d.* FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = ?', messageId) as { id: number; status: string; last_error: string | null; next_attempt_at: number | null } | undefined;

test('getEnvironment names the ingest address, the data folder and how secrets are kept, over the real control API', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  try {
    const res = await fetch(`${h.server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'getEnvironment' }),
    });
    const answer = (await res.json()) as ApiResponse<EngineEnvironment>;
    // Headless mode has no keychain: the secrets are plain, and the user is told where.
    const secrets = {
      sealed: false,
      reason: 'Shared secrets are stored as plain text in hookbench.sqlite, a file only your user account can read.',
    };
    assert.deepEqual(answer, { ok: true, result: { ingestUrl: h.server.url, dataDir: h.dataDir, secrets } });
    // Without a listening server (an engine alone) there is no ingest address yet.
    assert.deepEqual(await createEngineApi(h.engine).getEnvironment(), { ingestUrl: null, dataDir: h.dataDir, secrets });
  } finally {
    await h.close();
  }
});

test('deleteSource is refused, with the reason, while a destination is attached; then removes it and its write key stops working', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const { api, told } = apiOf(h);
  try {
    assert.deepEqual(await refusal(api.deleteSource('backend')), [
      'source.name: cannot be removed while destination "Local receiver" is attached to it; detach it there first',
    ]);
    await api.saveDestination({ name: 'Second', enabled: false, sources: ['backend'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/b', headers: {} }] });
    assert.deepEqual(await refusal(api.deleteSource('backend')), [
      'source.name: cannot be removed while destinations "Local receiver", "Second" are attached to it; detach it there first',
    ]);
    assert.deepEqual(await refusal(api.deleteSource('nope')), ['source.name: no source named "nope"']);
    assert.deepEqual(await refusal(api.deleteSource('')), ['source.name: is required: the name to remove']);
    assert.deepEqual((await api.listSources()).map((s) => s.name), ['backend'], 'nothing was removed');
    assert.deepEqual(told, ['destinations'], 'only the successful save was told');

    // Detached (the destination saved whole without it), the source goes.
    const [local] = await api.listDestinations();
    await api.saveDestination({ ...local!, sources: [] });
    await api.deleteDestination('Second');
    told.length = 0;
    await api.deleteSource('backend');
    assert.deepEqual(told, ['sources']);
    assert.deepEqual(await api.listSources(), []);
    const refused = await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: WRITE_KEY });
    assert.equal(refused.status, 200, 'answered as Segment answers an unknown key');
    assert.equal(refused.body.code, 'unknown_write_key', 'the removed source\'s write key is refused');
  } finally {
    await h.close();
  }
});

test('saveSource never changes an existing source\'s key; rotateWriteKey does, and the old key is refused from then on', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const { api, told } = apiOf(h);
  try {
    assert.deepEqual(await refusal(api.saveSource({ name: 'backend', writeKey: 'wk_other' })), [
      'source.name: is already the name of a source; rotate its write key with rotateWriteKey instead',
    ]);
    assert.equal((await api.saveSource({ name: 'backend', writeKey: WRITE_KEY })).writeKey, WRITE_KEY, 'saving it unchanged is harmless');
    assert.equal((await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: WRITE_KEY })).body.success, true, 'the key still works');

    assert.deepEqual(await refusal(api.rotateWriteKey({ name: 'nope', writeKey: 'wk_new' })), ['rotation.name: no source named "nope"']);
    assert.deepEqual(await refusal(api.rotateWriteKey({ name: 'backend', writeKey: WRITE_KEY })), ['rotation.writeKey: is the current write key; a rotation needs a new one']);
    told.length = 0;
    const rotated = await api.rotateWriteKey({ name: 'backend', writeKey: 'wk_rotated' });
    assert.equal(rotated.writeKey, 'wk_rotated');
    assert.deepEqual(told, ['sources']);
    const old = await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: WRITE_KEY });
    assert.equal(old.body.code, 'unknown_write_key', 'the old key is refused');
    const fresh = await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: 'wk_rotated' });
    assert.equal(fresh.body.success, true, 'the new key is taken');
  } finally {
    await h.close();
  }
});

test('deleteSource is refused while an audience lives in it, since its identify calls go to that source\'s destinations', async () => {
  const h = await startHarness({ sources: [{ name: 'engage', writeKey: 'wk_engage' }], destinations: [] });
  const { api } = apiOf(h);
  try {
    await api.saveAudience({ name: 'Buyers', space: 'engage', syncEveryMinutes: null, condition: { kind: 'event', event: 'Order Completed' } });
    assert.deepEqual(await refusal(api.deleteSource('engage')), [
      'source.name: cannot be removed while "Buyers" lives in it (their identify calls go to its destinations); delete it in Audiences first',
    ]);
    const [buyers] = await api.listComputations();
    await api.deleteComputation(buyers!.id);
    await api.deleteSource('engage');
    assert.deepEqual(await api.listSources(), []);
  } finally {
    await h.close();
  }
});

test('removed ids are never given out again: the log keeps naming them', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const { api } = apiOf(h);
  try {
    const extra = await api.saveSource({ name: 'extra', writeKey: 'wk_extra' });
    await api.deleteSource('extra');
    const next = await api.saveSource({ name: 'newer', writeKey: 'wk_newer' });
    assert.ok(next.id > extra.id, `source id ${next.id} must be above the removed ${extra.id}`);

    const d = await api.saveDestination({ name: 'Temp', enabled: true, sources: [], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/t', headers: {} }] });
    await api.deleteDestination('Temp');
    const again = await api.saveDestination({ name: 'Temp', enabled: true, sources: [], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/t', headers: {} }] });
    assert.ok(again.id > d.id, `destination id ${again.id} must be above the removed ${d.id}`);
    // Saving an existing one by name keeps its id.
    const same = await api.saveDestination({ ...again, enabled: false });
    assert.equal(same.id, again.id);
  } finally {
    await h.close();
  }
});

test('deleteDestination discards its queued deliveries at once, with the reason, keeps them in the log, and tells the live view', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const receiver = await new Receiver().start();
  receiver.respond(status(500));
  const h = await startHarness(configWith(receiver.url), { clock });
  const { api, told } = apiOf(h);
  const live: LiveEvent[] = [];
  h.engine.onLive((e) => live.push(e));
  try {
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'del-1' });
    await waitUntil(() => deliveryOf(h, 'del-1')?.status === 'retrying', 'the first failure');
    const queued = deliveryOf(h, 'del-1')!;
    assert.ok(queued.next_attempt_at! > clock.now(), 'the retry is due later');

    await api.deleteDestination('Local receiver');
    assert.deepEqual(told, ['destinations']);
    assert.deepEqual(await api.listDestinations(), []);
    // No clock advance: it does not wait hours for its retry time to be discarded.
    const discarded = await waitUntil(() => (deliveryOf(h, 'del-1')?.status === 'discarded' ? deliveryOf(h, 'del-1') : undefined), 'the discard');
    assert.equal(discarded.last_error, 'not sent: its destination was removed');
    await waitUntil(() => live.some((e) => e.type === 'deliveries' && e.ids.includes(queued.id)), 'a live event for the discarded delivery');
    assert.equal(receiver.received.length, 1, 'nothing more was sent');
    const detail = await api.getDelivery(queued.id);
    assert.equal(detail?.status, 'discarded', 'the delivery stays in the log');
    assert.equal(detail?.attempts.length, 1);

    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'del-2' });
    assert.equal(deliveryOf(h, 'del-2'), undefined, 'new messages get no delivery');
    assert.deepEqual(await refusal(api.deleteDestination('Local receiver')), ['destination.name: no destination named "Local receiver"']);
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a delivery in flight when its destination is removed ends discarded instead of retrying', async () => {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const receiver = await new Receiver().start();
  const held: ServerResponse[] = [];
  receiver.respond((_req, res) => held.push(res));
  const h = await startHarness(configWith(receiver.url), { clock });
  const { api } = apiOf(h);
  try {
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'fly-1' });
    await receiver.waitFor(1);
    assert.equal(deliveryOf(h, 'fly-1')?.status, 'in_flight');
    await api.deleteDestination('Local receiver');
    held[0]!.writeHead(503).end('busy');
    const ended = await waitUntil(() => (deliveryOf(h, 'fly-1')?.status === 'discarded' ? deliveryOf(h, 'fly-1') : undefined), 'the discard');
    assert.equal(ended.last_error, 'not sent: its destination was removed');
    assert.equal(ended.next_attempt_at, null);
    const [attempt] = (await api.getDelivery(ended.id))!.attempts;
    assert.equal(attempt?.httpStatus, 503, 'the attempt that was out is recorded as it ended');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('a webhook URL switched off keeps its place and headers but is not sent to; switched on again it is', async () => {
  const on = await new Receiver().start('/on');
  const off = await new Receiver().start('/off');
  const h = await startHarness(configWith([on.url, off.url]));
  const { api } = apiOf(h);
  try {
    const [d] = await api.listDestinations();
    assert.ok(d);
    assert.deepEqual(d.webhooks.map((w) => w.enabled), [true, true], 'entries are on unless said otherwise');
    const saved = await api.saveDestination({ ...d, webhooks: [d.webhooks[0]!, { ...d.webhooks[1]!, headers: { 'X-Kept': '1' }, enabled: false }] });
    assert.deepEqual(saved.webhooks.map((w) => [w.url, w.enabled, w.headers]), [
      [on.url, true, {}],
      [off.url, false, { 'X-Kept': '1' }],
    ]);
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'sw-1' });
    await waitUntil(() => deliveryOf(h, 'sw-1')?.status === 'succeeded', 'delivered to the URL that is on');
    assert.equal(on.received.length, 1);
    assert.equal(off.received.length, 0, 'nothing reaches the URL switched off');

    await api.saveDestination({ ...saved, webhooks: saved.webhooks.map((w) => ({ ...w, enabled: false })) });
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'sw-2' });
    const none = await waitUntil(() => (deliveryOf(h, 'sw-2')?.status === 'discarded' ? deliveryOf(h, 'sw-2') : undefined), 'discarded');
    assert.equal(none.last_error, 'not sent: every webhook URL of its destination is switched off');

    await api.saveDestination({ ...saved, webhooks: saved.webhooks.map((w) => ({ ...w, enabled: true })) });
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'sw-3' });
    await waitUntil(() => deliveryOf(h, 'sw-3')?.status === 'succeeded', 'delivered to both');
    assert.equal(off.received.length, 1);
    assert.equal(off.received[0]?.headers['x-kept'], '1', 'the kept header goes with it');
  } finally {
    await h.close();
    await on.close();
    await off.close();
  }
});

test('renameDestination keeps the id, so its deliveries show the new name; refusals name the field', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  const { api, told } = apiOf(h);
  try {
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'rn-1' });
    await waitUntil(() => deliveryOf(h, 'rn-1')?.status === 'succeeded', 'delivered');
    const [before] = await api.listDestinations();
    await api.saveDestination({ name: 'Other', enabled: false, sources: [], sharedSecret: null, webhooks: [] });
    assert.deepEqual(await refusal(api.renameDestination({ from: 'Local receiver', to: 'Other' })), ['rename.to: is already the name of another destination']);
    assert.deepEqual(await refusal(api.renameDestination({ from: 'nope', to: 'x' })), ['rename.from: no destination named "nope"']);
    told.length = 0;
    const renamed = await api.renameDestination({ from: 'Local receiver', to: 'Staging receiver' });
    assert.equal(renamed.id, before?.id);
    assert.deepEqual(told, ['destinations']);
    const detail = await api.getDelivery(deliveryOf(h, 'rn-1')!.id);
    assert.equal(detail?.destinationName, 'Staging receiver', 'the delivery names the destination as it is called now');
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'rn-2' });
    await waitUntil(() => deliveryOf(h, 'rn-2')?.status === 'succeeded', 'still routed after the rename');
  } finally {
    await h.close();
    await receiver.close();
  }
});
