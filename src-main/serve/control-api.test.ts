import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createHmac } from 'node:crypto';
import { startHarness, configWith, type Harness } from '../engine/testing/harness';
import { Receiver } from '../engine/testing/receiver';
import { waitUntil } from '../engine/testing/wait';
import { startServe } from './testing/process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiResponse, DeliveryDetail, DeliverySummary, LiveEvent, PageResult } from '../../src-shared/api';
import type { Destination } from '../../src-shared/settings';

interface Raw {
  status: number;
  body: ApiResponse;
}

/** node:http rather than fetch, because fetch will not let a test forge the Host header. */
function raw(h: Harness, path: string, headers: Record<string, string>, body?: unknown): Promise<Raw> {
  const url = new URL(h.server.url);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: payload === undefined ? 'GET' : 'POST',
        headers: { host: url.host, ...(payload === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ApiResponse }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function call<T>(h: Harness, method: string, params?: unknown): Promise<{ status: number; body: ApiResponse<T> }> {
  const res = await fetch(`${h.server.url}/api/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${h.server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method, params }),
  });
  return { status: res.status, body: (await res.json()) as ApiResponse<T> };
}

async function result<T>(h: Harness, method: string, params?: unknown): Promise<T> {
  const { status, body } = await call<T>(h, method, params);
  assert.equal(status, 200, JSON.stringify(body));
  assert.ok(body.ok);
  return body.result;
}

const track = (n: number): Record<string, unknown> => ({ type: 'track', userId: `u${n}`, event: `Event ${n}`, messageId: `api-${n}` });

describe('control API over HTTP', () => {
  let receiver: Receiver;
  let h: Harness;

  before(async () => {
    receiver = await new Receiver().start();
    h = await startHarness(configWith(receiver.url));
  });
  after(async () => {
    await h.close();
    await receiver.close();
  });

  test('refuses a call without the token (401), from a foreign Host or Origin (403); the Tracking API stays open', async () => {
    const call = { method: 'listSources' };
    const bearer = { authorization: `Bearer ${h.server.token}` };
    const port = new URL(h.server.url).port;
    const cases: [string, Record<string, string>, number, string][] = [
      ['no token', {}, 401, 'unauthorized'],
      ['wrong token', { authorization: 'Bearer wrong' }, 401, 'unauthorized'],
      ['DNS-rebound Host', { ...bearer, host: `attacker.example:${port}` }, 403, 'forbidden_host'],
      ['foreign Origin', { ...bearer, origin: 'https://attacker.example' }, 403, 'forbidden_origin'],
    ];
    for (const [name, headers, status, code] of cases) {
      const res = await raw(h, '/api/call', headers, call);
      assert.equal(res.status, status, name);
      assert.ok(!res.body.ok && res.body.error.code === code, `${name}: ${JSON.stringify(res.body)}`);
    }
    const ok = await raw(h, '/api/call', { ...bearer, host: `localhost:${port}`, origin: `http://localhost:${port}` }, call);
    assert.equal(ok.status, 200);
    assert.equal((await h.post('/v1/track', track(0))).status, 200, 'SDKs carry no token');
  });

  test('lists deliveries newest first, keyset-paged, with the message fields joined', async () => {
    assert.equal((await h.post('/v1/batch', { batch: [track(1), track(2), track(3)] })).status, 200);
    // api-0 from the test above, and these three.
    await waitUntil(() => h.engine.stores.log.countDeliveriesByStatus().succeeded === 4, 'four deliveries to succeed');

    const first = await result<PageResult<DeliverySummary>>(h, 'listDeliveries', { limit: 2 });
    assert.deepEqual(first.items.map((d) => d.messageId), ['api-3', 'api-2']);
    assert.ok((first.items[0]?.id ?? 0) > (first.items[1]?.id ?? 0));
    assert.equal(first.nextBeforeId, first.items[1]?.id);
    const d3 = first.items[0];
    assert.ok(d3);
    assert.equal(d3.userId, 'u3');
    assert.equal(d3.event, 'Event 3');
    assert.equal(d3.type, 'track');
    assert.equal(d3.status, 'succeeded');
    assert.equal(d3.lastHttpStatus, 200);

    const second = await result<PageResult<DeliverySummary>>(h, 'listDeliveries', { limit: 2, beforeId: first.nextBeforeId });
    assert.deepEqual(second.items.map((d) => d.messageId), ['api-1', 'api-0']);
    const rest = await result<PageResult<DeliverySummary>>(h, 'listDeliveries', { limit: 2, beforeId: second.nextBeforeId });
    assert.deepEqual(rest, { items: [], nextBeforeId: null });

    const tooMany = await call(h, 'listDeliveries', { limit: 501 });
    assert.equal(tooMany.status, 400);
    assert.ok(!tooMany.body.ok && tooMany.body.error.fields?.[0]?.field === 'page.limit');
  });

  test('getDelivery shows the exact body sent and each attempt with its signed request headers', async () => {
    const page = await result<PageResult<DeliverySummary>>(h, 'listDeliveries', { limit: 1 });
    const id = page.items[0]?.id;
    const detail = await result<DeliveryDetail>(h, 'getDelivery', id);
    assert.ok(detail.body);
    const sent = receiver.received.find((r) => r.body.toString('utf8') === detail.body);
    assert.ok(sent, 'the receiver got exactly the stored bytes');
    assert.equal(detail.attempts.length, 1);
    const attempt = detail.attempts[0];
    assert.ok(attempt);
    assert.equal(attempt.url, receiver.url);
    assert.equal(attempt.httpStatus, 200);
    assert.equal(attempt.responseBody, 'ok');
    assert.equal(attempt.responseTruncated, false);
    assert.equal(attempt.requestHeaders['X-Signature'], createHmac('sha1', 's3cret').update(detail.body).digest('hex'));
    assert.equal(sent.headers['x-signature'], attempt.requestHeaders['X-Signature']);
    assert.equal(await result<DeliveryDetail | null>(h, 'getDelivery', 999_999), null);
  });

  test('saveDestination refuses a 6th webhook URL by field; a valid one is saved and listed', async () => {
    const six = Array.from({ length: 6 }, (_, i) => ({ url: `http://127.0.0.1:9/${i}` }));
    const refused = await call(h, 'saveDestination', { name: 'Too many', sources: ['backend'], webhooks: six });
    assert.equal(refused.status, 400);
    assert.ok(!refused.body.ok);
    assert.equal(refused.body.error.code, 'validation_failed');
    assert.deepEqual(refused.body.error.fields?.map((f) => f.field), ['destination.webhooks[5]']);

    const unknownSource = await call(h, 'saveDestination', { name: 'Orphan', sources: ['nope'], webhooks: [] });
    assert.equal(unknownSource.status, 400);
    assert.ok(!unknownSource.body.ok && unknownSource.body.error.fields?.[0]?.field === 'destination.sources[0]');

    const saved = await result<Destination>(h, 'saveDestination', { name: 'Second', enabled: false, sources: ['backend'], webhooks: [{ url: 'http://127.0.0.1:9/x' }] });
    assert.deepEqual(saved.webhooks, [{ url: 'http://127.0.0.1:9/x', headers: {}, enabled: true }]);
    const all = await result<Destination[]>(h, 'listDestinations');
    assert.deepEqual(all.map((d) => d.name), ['Local receiver', 'Second']);
  });

  test('an unknown method is 404 and names the known ones; malformed calls are 400', async () => {
    const unknown = await call(h, 'dropAllTables');
    assert.equal(unknown.status, 404);
    assert.ok(!unknown.body.ok && unknown.body.error.code === 'unknown_method');
    assert.match(unknown.body.error.message, /listDeliveries/);
    const inherited = await call(h, 'constructor');
    assert.equal(inherited.status, 404, 'only contract names, not whatever the object happens to carry');
    const res = await fetch(`${h.server.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.server.token}`, 'content-type': 'application/json' },
      body: '{not json',
    });
    assert.equal(res.status, 400);
  });

  test('/api/live streams a deliveries event after an ingest', async () => {
    const abort = new AbortController();
    const bound = setTimeout(() => abort.abort(), 10_000);
    try {
      const res = await fetch(`${h.server.url}/api/live`, { headers: { authorization: `Bearer ${h.server.token}` }, signal: abort.signal });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.ok(res.body);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      assert.equal((await h.post('/v1/track', track(10))).status, 200);
      let buffer = '';
      let event: LiveEvent | undefined;
      while (!event) {
        const { value, done } = await reader.read();
        assert.ok(!done, 'the stream stayed open');
        buffer += value;
        const frames = buffer.split('\n\n');
        buffer = frames.pop() ?? '';
        for (const frame of frames) {
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data) event = JSON.parse(data) as LiveEvent;
        }
      }
      assert.equal(event.type, 'deliveries');
      assert.ok(event.type === 'deliveries' && event.ids.length > 0);
      await reader.cancel();
    } finally {
      clearTimeout(bound);
      abort.abort();
    }
  });
});

test('hookbench serve takes HOOKBENCH_TOKEN, tells it on stderr only, and stops with a live stream open', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-api-'));
  const token = 'ci_token_0123456789abcdef';
  process.env.HOOKBENCH_TOKEN = token;
  try {
    const serve = await startServe(['--data-dir', dir, '--port', '0']);
    delete process.env.HOOKBENCH_TOKEN;
    await waitUntil(() => serve.stderr().includes(`hookbench: open ${serve.url}/?token=${token} in a browser\n`), 'the token line on stderr');
    const live = await fetch(`${serve.url}/api/live?token=${token}`);
    assert.equal(live.status, 200);
    const res = await fetch(`${serve.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'getDeliverySettings' }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as ApiResponse<{ timeoutMs: number }>;
    assert.ok(body.ok && body.result.timeoutMs === 5000);
    serve.child.kill('SIGINT');
    assert.equal((await serve.exited).code, 0, 'an open SSE stream does not hold the server open');
    await live.body?.cancel();
  } finally {
    delete process.env.HOOKBENCH_TOKEN;
    rmSync(dir, { recursive: true, force: true });
  }
});
