import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../src-main/engine/clock';
import { Analytics, AnalyticsClosedError, type AnalyticsDeliveryError, type DroppedMessage } from './index';
import { settle, startServer, until } from './test-server';

const writeKey = 'wk_test';
const repoRoot = fileURLToPath(new URL('..', import.meta.url));

test('retries a 500 with backoff on the injected clock, then succeeds with the same messages', async () => {
  const server = await startServer((_req, i) => (i === 0 ? { status: 500, body: 'boom' } : { status: 200, body: '{"success":true}' }));
  const clock = new ManualClock();
  const errors: AnalyticsDeliveryError[] = [];
  const client = new Analytics({ writeKey, endpoint: server.url, flushAt: 1, clock, retryBaseMs: 1000, onError: (e) => errors.push(e) });
  try {
    client.track({ userId: 'u', event: 'Retry me' });
    await server.waitForRequests(1);
    await until(() => clock.pendingTimers().length === 1, 'a backoff timer');
    const [delay] = clock.pendingTimers();
    assert.ok(delay !== undefined && delay >= 500 && delay <= 1000, `first backoff ${String(delay)} ms in [500, 1000]`);
    assert.equal(server.requests.length, 1);
    clock.advance(1000);
    await client.flush();
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1]?.batch[0]?.messageId, server.requests[0]?.batch[0]?.messageId);
    assert.deepEqual(errors, []);
    assert.equal(client.stats().sent, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test('429 Retry-After is honoured', async () => {
  const server = await startServer((_req, i) =>
    i === 0 ? { status: 429, headers: { 'retry-after': '2' }, body: '{"success":false}' } : { status: 200, body: '{"success":true}' },
  );
  const clock = new ManualClock();
  const client = new Analytics({ writeKey, endpoint: server.url, flushAt: 1, clock, retryBaseMs: 1 });
  try {
    client.track({ userId: 'u', event: 'Limited' });
    await server.waitForRequests(1);
    await until(() => clock.pendingTimers().length === 1, 'the Retry-After timer');
    assert.deepEqual(clock.pendingTimers(), [2000]);
    clock.advance(1999);
    await settle();
    assert.equal(server.requests.length, 1);
    clock.advance(1);
    await server.waitForRequests(2);
    await client.flush();
    assert.equal(client.stats().sent, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test('gives up after maxRetries and reports the batch and the reason through the error callback', async () => {
  const server = await startServer(() => ({ status: 503, body: '{"success":false,"message":"down"}' }));
  const errors: AnalyticsDeliveryError[] = [];
  const client = new Analytics({ writeKey, endpoint: server.url, maxRetries: 2, retryBaseMs: 1 });
  client.on('error', (e) => errors.push(e));
  try {
    client.track({ userId: 'u', event: 'A' });
    client.track({ userId: 'u', event: 'B' });
    await client.flush();
    assert.equal(server.requests.length, 3);
    assert.equal(errors.length, 1);
    const [err] = errors;
    assert.ok(err);
    assert.equal(err.code, 'http_status');
    assert.equal(err.status, 503);
    assert.equal(err.attempts, 3);
    assert.equal(err.retryable, true);
    assert.match(err.reason, /HTTP 503.*down/);
    assert.deepEqual(err.batch.messages.map((m) => m.event), ['A', 'B']);
    assert.deepEqual(client.stats(), { queued: 0, pending: 0, sent: 0, failed: 2, dropped: 0, requests: 3 });
  } finally {
    await client.close();
    await server.close();
  }
});

test('400 is not retried: exactly one request, reported with the server message', async () => {
  const server = await startServer(() => ({ status: 400, body: '{"success":false,"code":"invalid_json"}' }));
  const errors: AnalyticsDeliveryError[] = [];
  const client = new Analytics({ writeKey, endpoint: server.url, retryBaseMs: 1, onError: (e) => errors.push(e) });
  try {
    client.track({ userId: 'u', event: 'Bad' });
    await client.flush();
    await settle(50);
    assert.equal(server.requests.length, 1);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.status, 400);
    assert.equal(errors[0]?.retryable, false);
    assert.equal(errors[0]?.attempts, 1);
    assert.match(errors[0]?.reason ?? '', /invalid_json/);
    assert.equal(errors[0]?.batch.messages[0]?.event, 'Bad');
  } finally {
    await client.close();
    await server.close();
  }
});

test('network errors and timeouts are retried, then reported; nothing is thrown to the caller', async () => {
  const hang = await startServer(() => ({ status: 200, hang: true }));
  const dead = await startServer();
  const deadUrl = dead.url;
  await dead.close();
  const errors: AnalyticsDeliveryError[] = [];
  const onError = (e: AnalyticsDeliveryError): void => {
    errors.push(e);
  };
  const slow = new Analytics({ writeKey, endpoint: hang.url, timeoutMs: 100, maxRetries: 1, retryBaseMs: 1, onError });
  const refused = new Analytics({ writeKey, endpoint: deadUrl, maxRetries: 1, retryBaseMs: 1, onError });
  try {
    slow.track({ userId: 'u', event: 'Slow' });
    refused.track({ userId: 'u', event: 'Refused' });
    await Promise.all([slow.flush(), refused.flush()]);
    assert.equal(hang.requests.length, 2);
    const byEvent = new Map(errors.map((e) => [e.batch.messages[0]?.event, e]));
    assert.equal(byEvent.get('Slow')?.code, 'timeout');
    assert.equal(byEvent.get('Slow')?.attempts, 2);
    assert.equal(byEvent.get('Refused')?.code, 'network_error');
    assert.match(byEvent.get('Refused')?.reason ?? '', /ECONNREFUSED/);
  } finally {
    await Promise.all([slow.close(), refused.close()]);
    await hang.close();
  }
});

test('a full queue drops the new message and reports it', async () => {
  const server = await startServer();
  const drops: DroppedMessage[] = [];
  const client = new Analytics({ writeKey, endpoint: server.url, maxQueueSize: 5, flushAt: 100, clock: new ManualClock() });
  client.on('drop', (d) => drops.push(d));
  try {
    for (let i = 0; i < 8; i++) client.track({ userId: 'u', event: `E${i}` });
    assert.equal(drops.length, 3);
    assert.deepEqual(drops.map((d) => d.message.event), ['E5', 'E6', 'E7']);
    assert.equal(drops[0]?.reason, 'queue_full');
    assert.match(drops[0]?.detail ?? '', /maxQueueSize/);
    assert.equal(client.stats().dropped, 3);
    await client.flush();
    assert.deepEqual(server.items().map((m) => m.event), ['E0', 'E1', 'E2', 'E3', 'E4']);
    client.track({ userId: 'u', event: 'After' });
    assert.equal(drops.length, 3);
  } finally {
    await client.close();
    await server.close();
  }
});

test('a throwing listener does not reach the caller', async () => {
  const server = await startServer(() => ({ status: 400 }));
  const client = new Analytics({ writeKey, endpoint: server.url, flushAt: 1 });
  client.on('error', () => {
    throw new Error('listener bug');
  });
  try {
    client.track({ userId: 'u', event: 'E' });
    await client.flush();
    assert.equal(server.requests.length, 1);
  } finally {
    await client.close();
    await server.close();
  }
});

test('close() flushes; calls after close throw; flush after close is a no-op', async () => {
  const server = await startServer();
  const client = new Analytics({ writeKey, endpoint: server.url, clock: new ManualClock() });
  client.track({ userId: 'u', event: 'Before close' });
  await client.close();
  assert.deepEqual(server.items().map((m) => m.event), ['Before close']);
  assert.throws(() => client.track({ userId: 'u', event: 'Late' }), (err: unknown) => {
    assert.ok(err instanceof AnalyticsClosedError);
    assert.equal(err.code, 'client_closed');
    assert.match(err.message, /after close\(\)/);
    return true;
  });
  await client.flush();
  await client.close();
  assert.equal(server.requests.length, 1);
  await server.close();
});

function runChild(code: string, env: Record<string, string> = {}): Promise<{ status: number | null; ms: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('exit', (status) => {
      clearTimeout(killer);
      resolve({ status, ms: Date.now() - started, stderr });
    });
  });
}

test('in a real process (importing hookbench/client): close() delivers everything and the process exits; DEBUG=analytics logs', async () => {
  const server = await startServer();
  try {
    const result = await runChild(
      `import { Analytics } from 'hookbench/client';
       const client = new Analytics({ writeKey: 'wk_child', endpoint: ${JSON.stringify(server.url)} });
       for (let i = 0; i < 3; i++) client.track({ userId: 'u', event: 'Child ' + i });
       await client.close();`,
      { DEBUG: 'analytics' },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(server.items().map((m) => m.event), ['Child 0', 'Child 1', 'Child 2']);
    assert.match(result.stderr, /queued track/);
    assert.match(result.stderr, /flushing batch #1: 3 messages/);
    assert.match(result.stderr, /sent batch #1/);
    assert.match(result.stderr, /closed/);
  } finally {
    await server.close();
  }
});

test('pending timers never keep a process alive (no close, flushAfter 60 s)', async () => {
  const result = await runChild(
    `import { Analytics } from 'hookbench/client';
     const client = new Analytics({ writeKey: 'wk_child', endpoint: 'http://127.0.0.1:9', flushAfter: 60000 });
     client.track({ userId: 'u', event: 'Abandoned' });`,
  );
  assert.equal(result.status, 0, result.stderr);
  assert.ok(result.ms < 10_000, `exited after ${result.ms} ms`);
});
