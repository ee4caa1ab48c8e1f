/** The Inbound view's detail of a request, on a real engine: its messages and its dropped items. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createEngineApi } from './api';
import { configWith, startHarness } from './testing/harness';
import { Receiver } from './testing/receiver';
import { ValidationError } from '../../src-shared/settings';
import { MESSAGES_OF_LIMIT } from '../../src-shared/api';

test('messagesOf and droppedItemsOf: a batch with a valid item, an invalid one and a duplicate', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  const api = createEngineApi(h.engine);
  try {
    assert.equal((await h.post('/v1/track', { userId: 'u1', event: 'First', messageId: 'in-dup' })).status, 200);
    const batch = await h.post('/v1/batch', {
      batch: [
        { type: 'track', userId: 'u2', event: 'Order Completed', messageId: 'in-ok', properties: { total: 9 } },
        { type: 'track', userId: 'u2', messageId: 'in-bad' },
        { type: 'track', userId: 'u1', event: 'First', messageId: 'in-dup' },
      ],
    });
    assert.equal(batch.status, 200);

    const page = await api.listRequests({ limit: 10 });
    const [request, first] = page.items;
    assert.equal(request?.path, '/v1/batch', 'newest first');
    assert.deepEqual(
      { items: request?.items, accepted: request?.accepted, dropped: request?.dropped, duplicates: request?.duplicates },
      { items: 3, accepted: 1, dropped: 1, duplicates: 1 },
    );

    const messages = await api.messagesOf(request!.id);
    assert.equal(messages.length, 1);
    const [m] = messages;
    assert.equal(m?.messageId, 'in-ok');
    assert.equal(m?.type, 'track');
    assert.equal(m?.userId, 'u2');
    assert.equal(m?.event, 'Order Completed');
    const stored = JSON.parse(m!.json) as Record<string, unknown>;
    assert.deepEqual(stored.properties, { total: 9 });
    assert.equal(stored.messageId, 'in-ok');
    assert.equal(stored.writeKey, undefined, 'the write key is not kept');
    assert.deepEqual(m?.warnings, [], 'a valid message has no warnings');
    // The delivery made from it is linked, and it is the real one.
    await receiver.waitFor(2);
    assert.equal(m?.deliveryIds.length, 1);
    const delivery = await api.getDelivery(m!.deliveryIds[0]!);
    assert.equal(delivery?.messageId, 'in-ok');

    const dropped = await api.droppedItemsOf(request!.id);
    assert.deepEqual(
      dropped.map((d) => ({ index: d.index, kind: d.kind })),
      [
        { index: 1, kind: 'invalid' },
        { index: 2, kind: 'duplicate' },
      ],
    );
    assert.equal(dropped[0]?.reason, 'batch[1].event: is required for track (a non-empty string)');
    assert.deepEqual(JSON.parse(dropped[0]!.raw), { type: 'track', userId: 'u2', messageId: 'in-bad' });
    const firstMessage = (await api.messagesOf(first!.id))[0];
    assert.match(dropped[1]?.reason ?? '', new RegExp(`^duplicate of message ${firstMessage?.id}: messageId "in-dup"`));
    assert.deepEqual(JSON.parse(dropped[1]!.raw), { type: 'track', userId: 'u1', event: 'First', messageId: 'in-dup' }, 'a duplicate shows the item as received');

    // A replay is a delivery made from the same message: it is listed with it.
    const replay = await api.replayDelivery({ id: delivery!.id });
    assert.deepEqual((await api.messagesOf(request!.id))[0]?.deliveryIds, [delivery!.id, replay.id]);

    // A refused request has no messages; an unknown id has none either; a bad id is refused by field.
    const refused = await h.post('/v1/track', { userId: 'u', event: 'E' }, { writeKey: 'wk_unknown' });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.success, false);
    const [refusedRow] = (await api.listRequests({ limit: 1 })).items;
    assert.equal(refusedRow?.errorCode !== null, true);
    assert.deepEqual(await api.messagesOf(refusedRow!.id), []);
    assert.deepEqual(await api.messagesOf(999_999), []);
    await assert.rejects(api.messagesOf(0), (err) => err instanceof ValidationError && err.errors[0]?.field === 'requestId');
  } finally {
    await h.close();
    await receiver.close();
  }
});

test('messagesOf returns the warnings stored with a message: the field, the problem and the value as received', async () => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: 'wk_test' }], destinations: [] });
  const api = createEngineApi(h.engine);
  try {
    assert.equal((await h.post('/v1/track', { userId: 'u1', event: 'E', messageId: 'w-1', properties: ['a'], anonymousId: 5 })).status, 200);
    const [request] = (await api.listRequests({ limit: 1 })).items;
    const [m] = await api.messagesOf(request!.id);
    assert.deepEqual(m?.warnings, [
      { field: 'anonymousId', problem: 'a number; stored as the string "5"', value: '5' },
      { field: 'properties', problem: 'must be an object; got an array; left out', value: '["a"]' },
    ]);
    assert.equal(m?.anonymousId, '5');
    assert.equal((JSON.parse(m!.json) as Record<string, unknown>).properties, undefined);
  } finally {
    await h.close();
  }
});

test('messagesOf answers the first MESSAGES_OF_LIMIT messages of a call, oldest first; the request counts them all', async () => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: 'wk_test' }], destinations: [] });
  const api = createEngineApi(h.engine);
  try {
    const count = MESSAGES_OF_LIMIT + 20;
    const batch = Array.from({ length: count }, (_, i) => ({ type: 'track', userId: 'u', event: 'E', messageId: `m-${i}` }));
    assert.equal((await h.post('/v1/batch', { batch }, { writeKey: 'wk_test' })).status, 200);
    const request = (await api.listRequests({ limit: 1 })).items[0];
    assert.equal(request?.accepted, count);
    const messages = await api.messagesOf(request!.id);
    assert.equal(messages.length, MESSAGES_OF_LIMIT);
    assert.deepEqual([messages[0]?.messageId, messages.at(-1)?.messageId], ['m-0', `m-${MESSAGES_OF_LIMIT - 1}`]);
  } finally {
    await h.close();
  }
});
