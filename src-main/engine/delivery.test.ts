import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';
import { ManualClock, systemClock } from './clock';
import { startHarness, configWith, type Harness } from './testing/harness';
import { Receiver, status } from './testing/receiver';
import { waitUntil } from './testing/wait';
import type { DeliveryRow } from './store/log-store';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const hmac = (secret: string, body: Buffer): string => createHmac('sha1', secret).update(body).digest('hex');

/** The message's latest delivery as the engine reads it (its body as sent, even when stored packed). */
function delivery(h: Harness, messageId: string): DeliveryRow | undefined {
  const row = h.inspect.get<{ id: number }>('SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = ? ORDER BY d.id DESC', messageId);
  return row === undefined ? undefined : h.engine.stores.log.getDelivery(row.id);
}

async function settled(h: Harness, messageId: string, statuses: string[]): Promise<DeliveryRow> {
  return waitUntil(() => {
    const d = delivery(h, messageId);
    return d && statuses.includes(d.status) ? d : undefined;
  }, `delivery of ${messageId} to be ${statuses.join(' or ')}`);
}

describe('delivery: signed webhooks, timeouts and retries', () => {
  test('a track call reaches the receiver signed, with the documented headers and payload, byte for byte as stored', async () => {
    const receiver = await new Receiver().start('/hooks/segment?env=dev');
    const h = await startHarness(
      configWith(receiver.url, { webhooks: [{ url: receiver.url, headers: { 'X-Env': 'dev', Authorization: 'Bearer t' } }] }),
    );
    try {
      const res = await h.post('/v1/batch', {
        batch: [{ type: 'track', userId: 'u1', anonymousId: 'a1', event: 'Order Completed', messageId: 'sig-1', properties: { total: 9.5, name: 'café ☕' }, timestamp: '2026-11-22T11:59:59.123Z' }],
        sentAt: '2026-11-22T11:59:59.123Z',
      });
      assert.equal(res.status, 200);
      await receiver.waitFor(1);
      const got = receiver.received[0]!;
      assert.equal(got.method, 'POST');
      assert.equal(got.url, '/hooks/segment?env=dev');
      assert.equal(got.headers['user-agent'], 'Segment.io/1.0');
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['x-env'], 'dev');
      assert.equal(got.headers.authorization, 'Bearer t');
      assert.equal(got.headers['x-signature'], hmac('s3cret', got.body), 'X-Signature is lowercase hex HMAC-SHA1 of the exact body');
      const payload = JSON.parse(got.body.toString('utf8')) as Record<string, unknown>;
      assert.deepEqual(
        { ...payload, context: undefined },
        {
          version: 1,
          type: 'track',
          userId: 'u1',
          anonymousId: 'a1',
          event: 'Order Completed',
          properties: { total: 9.5, name: 'café ☕' },
          messageId: 'sig-1',
          timestamp: '2026-11-22T12:00:00.000Z',
          context: undefined,
        },
      );
      assert.equal((payload.context as Record<string, unknown>).ip, '127.0.0.1');
      const d = await settled(h, 'sig-1', ['succeeded']);
      assert.deepEqual(Buffer.from(d.body!), got.body, 'the stored bytes are the sent bytes');
      assert.equal(d.last_http_status, 200);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('alias uses "Previous ID" and "User ID"; no secret means no X-Signature', async () => {
    const receiver = await new Receiver().start();
    const h = await startHarness(configWith(receiver.url, { sharedSecret: null }));
    try {
      await h.post('/v1/alias', { userId: 'new-id', previousId: 'old-id', messageId: 'al-1' });
      await receiver.waitFor(1);
      const got = receiver.received[0]!;
      assert.equal(got.headers['x-signature'], undefined);
      const payload = JSON.parse(got.body.toString('utf8')) as Record<string, unknown>;
      assert.equal(payload['Previous ID'], 'old-id');
      assert.equal(payload['User ID'], 'new-id');
      assert.equal('userId' in payload, false);
      assert.equal(payload.version, 1);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a 500 is retried on the backoff schedule and succeeds once the receiver is fixed', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(status(500, {}, 'boom'));
    const h = await startHarness(configWith(receiver.url), { clock });
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'r-1' });
      const first = await settled(h, 'r-1', ['retrying']);
      // standard preset: 1 s base, jitter 0.5 with random() = 0.5 → 750 ms
      assert.equal(first.next_attempt_at! - T0, 750);
      assert.match(first.last_error ?? '', /500/);
      receiver.respond(status(200));
      clock.advance(749);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(receiver.received.length, 1, 'not retried before its time');
      clock.advance(1);
      const done = await settled(h, 'r-1', ['succeeded']);
      assert.equal(done.rounds, 2);
      const attempts = h.engine.stores.log.attemptsOf(done.id);
      assert.deepEqual(attempts.map((a) => [a.http_status, a.verdict, a.error_kind]), [
        [500, 'retryable', 'http'],
        [200, 'success', null],
      ]);
      assert.equal(attempts[0]!.response_body!.toString(), 'boom');
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a receiver that hangs times out after the configured limit, measured on the injected clock', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(() => undefined); // never answers
    const h = await startHarness({ ...configWith(receiver.url), delivery: { timeoutMs: 5000 } }, { clock });
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 't-1' });
      await receiver.waitFor(1);
      clock.advance(4999);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(delivery(h, 't-1')?.status, 'in_flight');
      clock.advance(1);
      const d = await settled(h, 't-1', ['retrying']);
      const [attempt] = h.engine.stores.log.attemptsOf(d.id);
      assert.equal(attempt?.error_kind, 'timeout');
      assert.match(attempt?.error_text ?? '', /5000 ms/);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('retries due one after another go out at their own times while earlier ones are still out', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(() => undefined); // never answers
    let r = 0;
    const spread = [0.1, 0.3, 0.5, 0.7, 0.9];
    const h = await startHarness({ ...configWith(receiver.url), delivery: { timeoutMs: 5000 } }, { clock, random: () => spread[r++ % spread.length] as number });
    try {
      await h.post('/v1/batch', { batch: spread.map((_, i) => ({ type: 'track', userId: 'u', event: 'E', messageId: `rs-${i}` })) });
      await receiver.waitFor(5);
      clock.advance(5000);
      const rows = await Promise.all(spread.map((_, i) => settled(h, `rs-${i}`, ['retrying'])));
      const due = rows.map((d) => d.next_attempt_at as number).sort((a, b) => a - b);
      assert.equal(new Set(due).size, 5, 'five different retry times');
      // Each retry, at its time, while the ones before it hang at the receiver.
      for (const [k, at] of due.entries()) {
        clock.advance(at - clock.now());
        await waitUntil(() => receiver.received.length === 5 + k + 1 || undefined, `retry ${k + 1} of 5 sent at its time`);
      }
    } finally {
      // The retries still hang at the receiver: their deadlines end them, so stop need not wait.
      clock.advance(5000);
      await h.close();
      await receiver.close();
    }
  });

  test('a retry that comes due while other rounds hang at the receiver is sent at its time, not when one of them ends', async () => {
    // The real clock on purpose: the fault was a retry coming due between the scheduler's read of
    // what is due and its re-arming, which a manual clock, still between calls, never shows.
    const arrivals = new Map<string, number[]>();
    const hanging = createHttpServer((req) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = (JSON.parse(Buffer.concat(chunks).toString()) as { messageId: string }).messageId;
        arrivals.set(id, [...(arrivals.get(id) ?? []), Date.now()]);
      });
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`;
    const n = 60;
    const h = await startHarness(
      { ...configWith(url), delivery: { timeoutMs: 1500, baseDelayMs: 100, maxDelayMs: 100, jitter: 1 } },
      { clock: systemClock, random: Math.random },
    );
    try {
      await h.post('/v1/batch', { batch: Array.from({ length: n }, (_, i) => ({ type: 'track', userId: 'u', event: 'E', messageId: `hang-${i}` })) });
      const ids = await waitUntil(() => {
        const all = Array.from({ length: n }, (_, i) => delivery(h, `hang-${i}`));
        return all.every((d) => d !== undefined && h.engine.stores.log.attemptsOf(d.id).length >= 2) ? all.map((d) => d!.id) : undefined;
      }, 'the second round of every delivery to start', 8_000);
      for (const id of ids) {
        const [first, second] = h.engine.stores.log.attemptsOf(id);
        // The first round ends at its 1.5 s timeout; the retry is due 100 ms (jitter 1: up to 200) later.
        const gap = second!.started_at - first!.started_at;
        assert.ok(gap < 1_500 + 200 + 500, `delivery ${id}'s retry started ${gap} ms after its first attempt (before the fix, some waited for another round's timeout: about 3,000)`);
      }
      await waitUntil(() => [...arrivals.values()].filter((x) => x.length >= 2).length === n || undefined, 'every retry to reach the receiver', 2_000);
    } finally {
      await h.close();
      hanging.closeAllConnections();
      hanging.close();
    }
  });

  test('with several URLs, one success ends the delivery; otherwise only retryable URLs are retried', async () => {
    const clock = new ManualClock(T0);
    const failing = await new Receiver().start();
    const ok = await new Receiver().start();
    const gone = await new Receiver().start();
    failing.respond(status(503));
    gone.respond(status(404));
    const h = await startHarness(configWith([failing.url, ok.url]), { clock });
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'mu-1' });
      const d = await settled(h, 'mu-1', ['succeeded']);
      assert.equal(failing.received.length, 1);
      assert.equal(ok.received.length, 1);
      clock.advance(60 * 60 * 1000);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(failing.received.length, 1, 'the failed entry is not retried once another succeeded');
      assert.equal(h.engine.stores.log.attemptsOf(d.id).length, 2);

      h.engine.applyConfig(configWith([gone.url, failing.url]));
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'mu-2' });
      const r = await settled(h, 'mu-2', ['retrying']);
      assert.deepEqual(JSON.parse(r.pending_urls!), [failing.url], 'a 404 is not retried, a 503 is');
      clock.advance(r.next_attempt_at! - clock.now());
      await waitUntil(() => failing.received.length === 3, 'the retry');
      assert.equal(gone.received.length, 1);
    } finally {
      await h.close();
      await Promise.all([failing.close(), ok.close(), gone.close()]);
    }
  });

  test('retries stop 4 hours after the first attempt and the delivery fails, saying why', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(status(500));
    const h = await startHarness(configWith(receiver.url), { clock });
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'w-1' });
      let d = await settled(h, 'w-1', ['retrying']);
      while (d.status === 'retrying') {
        const rounds = d.rounds;
        clock.advance(d.next_attempt_at! - clock.now());
        d = await waitUntil(() => {
          const now = delivery(h, 'w-1');
          return now && now.rounds > rounds && now.status !== 'in_flight' ? now : undefined;
        }, `round ${rounds + 1}`);
      }
      assert.equal(d.status, 'failed');
      assert.match(d.last_error ?? '', /4 h/);
      const attempts = h.engine.stores.log.attemptsOf(d.id);
      assert.ok(attempts.length >= 10, `retried many times (${attempts.length})`);
      const last = attempts[attempts.length - 1]!;
      assert.ok(last.started_at - T0 <= 4 * 60 * 60 * 1000, 'no attempt after the window');
      clock.advance(24 * 60 * 60 * 1000);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(receiver.received.length, attempts.length);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('switching a destination off discards its queued deliveries, with the reason', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(status(500));
    const h = await startHarness(configWith(receiver.url), { clock });
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'off-1' });
      const d = await settled(h, 'off-1', ['retrying']);
      h.engine.applyConfig(configWith(receiver.url, { enabled: false }));
      clock.advance(d.next_attempt_at! - clock.now());
      const off = await settled(h, 'off-1', ['discarded']);
      assert.match(off.last_error ?? '', /switched off/);
      assert.equal(receiver.received.length, 1, 'nothing more is sent once it is off');
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'off-2' });
      assert.equal(delivery(h, 'off-2'), undefined, 'new messages get no delivery while it is off');
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a stored message that cannot be mapped discards its delivery with the reason, and the engine keeps delivering', async () => {
    const receiver = await new Receiver().start();
    const h = await startHarness(configWith(receiver.url));
    try {
      // A group without groupId can only come from a log written by hand or by an older version.
      const db = h.inspect;
      const requestId = h.engine.stores.log.recordRefused({ sourceId: 1, path: '/v1/batch', receivedAt: T0, httpStatus: 200, bytes: 0, userAgent: null });
      const json = JSON.stringify({ type: 'group', userId: 'u', messageId: 'bad-1', timestamp: '2026-11-22T12:00:00.000Z', context: {} });
      const messageRow = db.run(
        `INSERT INTO messages (source_id, request_id, message_id, type, user_id, received_at, json) VALUES (1, ?, 'bad-1', 'group', 'u', ?, ?)`,
        requestId,
        T0,
        json,
      ).lastId;
      const destinationId = h.engine.stores.config.listDestinations()[0]!.id;
      db.run(
        `INSERT INTO deliveries (message_id, destination_id, payload_type, status, created_at, next_attempt_at) VALUES (?, ?, 'group', 'pending', ?, ?)`,
        messageRow,
        destinationId,
        T0,
        T0,
      );
      h.engine.applyConfig(configWith(receiver.url)); // wakes the scheduler
      const bad = await settled(h, 'bad-1', ['discarded']);
      assert.match(bad.last_error ?? '', /cannot be made into a webhook payload.*groupId/);
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'good-1' });
      await settled(h, 'good-1', ['succeeded']);
      assert.equal(receiver.received.length, 1);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('stopping with a round in flight that will need a retry leaves no timer behind', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    let answer: (() => void) | null = null;
    receiver.respond((_r, res) => {
      answer = () => {
        res.writeHead(500);
        res.end();
      };
    });
    const h = await startHarness(configWith(receiver.url), { clock });
    await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'stop-1' });
    await receiver.waitFor(1);
    const stopped = h.close();
    answer!();
    await stopped;
    await receiver.close();
    assert.deepEqual(clock.pendingTimers(), [], 'the retry is in the log for the next start, not on a timer');
  });

  test('429 with Retry-After is honoured; a redirect is not followed and not retried', async () => {
    const clock = new ManualClock(T0);
    const limited = await new Receiver().start();
    const redirecting = await new Receiver().start();
    limited.respond(status(429, { 'retry-after': '7' }));
    redirecting.respond(status(302, { location: 'http://127.0.0.1:1/elsewhere' }));
    const h = await startHarness(configWith(limited.url), { clock });
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'ra-1' });
      const d = await settled(h, 'ra-1', ['retrying']);
      assert.equal(d.next_attempt_at! - T0, 7000);
      h.engine.applyConfig(configWith(redirecting.url));
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'rd-1' });
      const rd = await settled(h, 'rd-1', ['failed']);
      assert.equal(redirecting.received.length, 1);
      assert.equal(h.engine.stores.log.attemptsOf(rd.id)[0]?.error_kind, 'redirect');
    } finally {
      await h.close();
      await Promise.all([limited.close(), redirecting.close()]);
    }
  });

  test('an https receiver with a self-signed certificate is refused before any request is sent', async () => {
    const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
      notAfterDate: new Date(Date.now() + 86_400_000),
      keySize: 2048,
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    let requests = 0;
    const server = createHttpsServer({ key: pems.private, cert: pems.cert }, (_req, res) => {
      requests++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const h = await startHarness(configWith(url));
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'tls-1' });
      const d = await settled(h, 'tls-1', ['failed']);
      const [attempt] = h.engine.stores.log.attemptsOf(d.id);
      assert.equal(attempt?.error_kind, 'tls');
      assert.match(attempt?.error_text ?? '', /self-signed/i);
      assert.equal(requests, 0);
    } finally {
      await h.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
