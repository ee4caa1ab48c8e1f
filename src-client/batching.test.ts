import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../src-main/engine/clock';
import {
  Analytics,
  AnalyticsValidationError,
  MAX_BATCH_BYTES,
  MAX_BATCH_MESSAGES,
  type AliasParams,
  type GroupParams,
  type TrackParams,
} from './index';
import { settle, startServer } from './test-server';

const writeKey = 'wk_test';

test('flushAt 20 (default): 19 calls send nothing, the 20th sends exactly one request of 20', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, clock: new ManualClock() });
  try {
    for (let i = 0; i < 19; i++) client.track({ userId: 'u1', event: 'Clicked', properties: { i } });
    await settle();
    assert.equal(server.requests.length, 0);
    client.track({ userId: 'u1', event: 'Clicked', properties: { i: 19 } });
    await server.waitForRequests(1);
    await settle();
    assert.equal(server.requests.length, 1);
    assert.deepEqual(
      server.requests[0]?.batch.map((m) => (m.properties as { i: number }).i),
      Array.from({ length: 20 }, (_, i) => i),
    );
  } finally {
    await client.close();
    await server.close();
  }
});

test('19 calls are sent by flush(), which resolves after the server answered', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, clock: new ManualClock() });
  try {
    for (let i = 0; i < 19; i++) client.identify({ anonymousId: 'a1', traits: { i } });
    await settle();
    assert.equal(server.requests.length, 0);
    await client.flush();
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]?.batch.length, 19);
    assert.deepEqual(client.stats(), { queued: 0, pending: 0, sent: 19, failed: 0, dropped: 0, requests: 1 });
  } finally {
    await client.close();
    await server.close();
  }
});

test('size is an alias of flushAt', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, size: 3, clock: new ManualClock() });
  try {
    assert.equal(client.flushAt, 3);
    for (let i = 0; i < 3; i++) client.track({ userId: 'u', event: 'E' });
    await server.waitForRequests(1);
    await settle();
    assert.equal(server.requests.length, 1);
    assert.equal(server.requests[0]?.batch.length, 3);
  } finally {
    await client.close();
    await server.close();
  }
});

test('flushAt 1 sends every call on its own', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, flushAt: 1, clock: new ManualClock() });
  try {
    client.track({ userId: 'u', event: 'A' });
    client.page({ userId: 'u', name: 'Home', properties: { url: 'https://x.test/' } });
    client.screen({ anonymousId: 'a', name: 'Main' });
    await server.waitForRequests(3);
    await client.flush();
    assert.equal(server.requests.length, 3);
    assert.ok(server.requests.every((r) => r.batch.length === 1));
    assert.deepEqual(server.items().map((m) => m.type).sort(), ['page', 'screen', 'track']);
  } finally {
    await client.close();
    await server.close();
  }
});

test('flushAfter timer flushes on the injected clock, with no real sleeping', async () => {
  const server = await startServer();
  const clock = new ManualClock();
  const client = new Analytics({ writeKey, endpoint: server.url, clock });
  try {
    client.track({ userId: 'u', event: 'Timed' });
    clock.advance(4999);
    await settle();
    assert.equal(server.requests.length, 0);
    clock.advance(1);
    await server.waitForRequests(1);
    assert.equal(server.requests[0]?.batch[0]?.event, 'Timed');
    // a flush by count cancels the timer; the next message starts a new one
    client.track({ userId: 'u', event: 'Second' });
    assert.deepEqual(clock.pendingTimers(), [5000]);
  } finally {
    await client.close();
    await server.close();
  }
  assert.deepEqual(clock.pendingTimers(), []);
});

test('large queues are split so that no request body exceeds 500 KB', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, flushAt: 1000, clock: new ManualClock() });
  try {
    const filler = 'x'.repeat(30_000);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      const messageId = `big-${i}`;
      ids.push(messageId);
      client.track({ userId: 'u', event: 'Big', properties: { filler }, messageId });
    }
    await client.flush();
    assert.ok(server.requests.length >= 6, `expected ≥ 6 requests, got ${server.requests.length}`);
    for (const r of server.requests) {
      assert.ok(r.bytes <= MAX_BATCH_BYTES, `request of ${r.bytes} bytes`);
      assert.ok(r.batch.length <= MAX_BATCH_MESSAGES);
    }
    // batches are packed: all but the last are close to the limit (requests may arrive out of order)
    const sizes = server.requests.map((r) => r.bytes).sort((a, b) => b - a);
    assert.ok(sizes.slice(0, -1).every((b) => b > MAX_BATCH_BYTES - 31_000), `sizes ${sizes.join(', ')}`);
    assert.deepEqual(server.items().map((m) => m.messageId).sort(), [...ids].sort());
  } finally {
    await client.close();
    await server.close();
  }
});

test('large queues are split at 2500 messages per request', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, flushAt: 10_000, clock: new ManualClock() });
  try {
    for (let i = 0; i < 6000; i++) client.track({ userId: `u${i}`, event: 'Small', messageId: `m-${i}` });
    await client.flush();
    assert.deepEqual(
      server.requests.map((r) => r.batch.length).sort((a, b) => b - a),
      [2500, 2500, 1000],
    );
    for (const r of server.requests) assert.ok(r.bytes <= MAX_BATCH_BYTES);
    const seen = server.items().map((m) => m.messageId);
    assert.equal(new Set(seen).size, 6000);
    assert.equal(seen.length, 6000);
  } finally {
    await client.close();
    await server.close();
  }
});

test('wire format: POST /v1/batch, Basic auth with the write key, envelope and per-message fields', async () => {
  const server = await startServer();
  const clock = new ManualClock('2026-03-04T05:06:07.089Z');
  const client = new Analytics({ writeKey: 'wk_secret', endpoint: `${server.url}/`, clock });
  try {
    client.identify({ userId: 'u1', traits: { plan: 'pro' }, context: { ip: '10.0.0.1' } });
    client.track({ anonymousId: 'a1', event: 'Bought', timestamp: '2020-01-02T03:04:05.678Z', integrations: { All: false, Mixpanel: true } });
    client.group({ userId: 'u1', groupId: 'g1', traits: { name: 'Acme' }, timestamp: new Date(Date.UTC(2021, 5, 6)) });
    client.alias({ userId: 'u1', previousId: 'a1' });
    await client.flush();
    assert.equal(server.requests.length, 1);
    const r = server.requests[0];
    assert.ok(r);
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/v1/batch');
    assert.equal(r.headers.authorization, `Basic ${Buffer.from('wk_secret:').toString('base64')}`);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.json.sentAt, '2026-03-04T05:06:07.089Z');
    assert.deepEqual(r.json.context, { library: { name: 'hookbench-client', version: '0.1.0' } });
    const [identify, track, group, alias] = r.batch;
    assert.deepEqual(
      { ...identify, messageId: undefined },
      {
        type: 'identify',
        userId: 'u1',
        traits: { plan: 'pro' },
        context: { ip: '10.0.0.1' },
        timestamp: '2026-03-04T05:06:07.089Z',
        messageId: undefined,
      },
    );
    assert.match(String(identify?.messageId), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(track?.anonymousId, 'a1');
    assert.equal(track?.event, 'Bought');
    assert.equal(track?.timestamp, '2020-01-02T03:04:05.678Z');
    assert.deepEqual(track?.integrations, { All: false, Mixpanel: true });
    assert.equal(group?.groupId, 'g1');
    assert.equal(group?.timestamp, '2021-06-06T00:00:00.000Z');
    assert.deepEqual({ ...alias, messageId: undefined }, {
      type: 'alias',
      previousId: 'a1',
      userId: 'u1',
      timestamp: '2026-03-04T05:06:07.089Z',
      messageId: undefined,
    });
    assert.equal(new Set(r.batch.map((m) => m.messageId)).size, 4);
  } finally {
    await client.close();
    await server.close();
  }
});

test('a call over 32 KB is rejected at once, naming the limit, and is not queued', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, clock: new ManualClock() });
  try {
    assert.throws(
      () => client.track({ userId: 'u', event: 'Huge', properties: { blob: 'x'.repeat(33_000) } }),
      (err: unknown) => {
        assert.ok(err instanceof AnalyticsValidationError);
        assert.equal(err.code, 'message_too_large');
        assert.equal(err.field, 'message');
        assert.equal(err.limit, 32768);
        assert.match(err.message, /32 KB/);
        assert.match(err.message, /32768 bytes/);
        return true;
      },
    );
    // just under the limit is fine
    client.track({ userId: 'u', event: 'Big', properties: { blob: 'x'.repeat(32_000) } });
    assert.equal(client.stats().queued, 1);
    await client.flush();
    assert.deepEqual(server.items().map((m) => m.event), ['Big']);
  } finally {
    await client.close();
    await server.close();
  }
});

test('missing required fields are rejected at once, naming the field', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, clock: new ManualClock() });
  const cases: [string, () => void, string][] = [
    ['track without ids', () => client.track({ event: 'E' } as unknown as TrackParams), 'userId'],
    ['track without event', () => client.track({ userId: 'u' } as unknown as TrackParams), 'event'],
    ['track with empty event', () => client.track({ userId: 'u', event: '' }), 'event'],
    ['identify with only empty ids', () => client.identify({ userId: '', anonymousId: '' }), 'userId'],
    ['group without groupId', () => client.group({ userId: 'u' } as unknown as GroupParams), 'groupId'],
    ['alias without previousId', () => client.alias({ userId: 'u' } as unknown as AliasParams), 'previousId'],
    ['alias without userId', () => client.alias({ previousId: 'p' } as unknown as AliasParams), 'userId'],
    ['track with properties not an object', () => client.track({ userId: 'u', event: 'E', properties: [1] as unknown as TrackParams['properties'] }), 'properties'],
    ['track with bad timestamp', () => client.track({ userId: 'u', event: 'E', timestamp: 'yesterday' }), 'timestamp'],
    ['track with long messageId', () => client.track({ userId: 'u', event: 'E', messageId: 'm'.repeat(101) }), 'messageId'],
  ];
  try {
    for (const [name, call, field] of cases) {
      assert.throws(call, (err: unknown) => {
        assert.ok(err instanceof AnalyticsValidationError, name);
        assert.equal(err.field, field, name);
        assert.ok(err.message.includes(field), `${name}: ${err.message}`);
        return true;
      });
    }
    assert.throws(() => new Analytics({ writeKey: '' }), /writeKey is required/);
    assert.throws(() => new Analytics({ writeKey, flushAt: 0 }), /flushAt/);
    assert.equal(client.stats().queued, 0);
    await client.flush();
    assert.equal(server.requests.length, 0);
  } finally {
    await client.close();
    await server.close();
  }
});

test('the types make required fields visible to the compiler', () => {
  // Compile-time only: each line below must be a type error (tsc --noEmit checks this file).
  const check = (client: Analytics): void => {
    // @ts-expect-error userId or anonymousId is required
    client.track({ event: 'E' });
    // @ts-expect-error track requires event
    client.track({ userId: 'u' });
    // @ts-expect-error group requires groupId
    client.group({ userId: 'u' });
    // @ts-expect-error alias requires previousId
    client.alias({ userId: 'u' });
  };
  assert.equal(typeof check, 'function');
});
