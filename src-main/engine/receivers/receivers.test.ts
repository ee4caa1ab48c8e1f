import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { ManualClock } from '../clock';
import { startHarness, configWith, type Harness } from '../testing/harness';
import { fewestSlices, turnsDuring, waitUntil } from '../testing/wait';
import { scriptPositionOf, stepIndexFor, statusOfStep, stepInWords, validateReceiverInput } from '../../../src-shared/receivers';
import { messageKeyOf } from './message-key';
import { createEngineApi } from '../api';
import { answerOf, REMOVAL_SLICES } from './service';
import { pointsAt, receiverNameOf, signatureVerdicts } from './verdict';
import { RETRY_PRESETS, type Destination } from '../../../src-shared/settings';
import type { DeliveryRow } from '../store/log-store';
import { LogInspector } from '../store/inspect';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../store/database';
import { MIGRATIONS } from '../store/schema';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const hmac = (secret: string, body: Buffer | string): string => createHmac('sha1', secret).update(body).digest('hex');

describe('receiver scripts (pure)', () => {
  test('request n gets step n, and the last step answers every request after it', () => {
    const table: [number, number, number][] = [
      // steps, n, index
      [3, 0, 0],
      [3, 1, 1],
      [3, 2, 2],
      [3, 3, 2],
      [3, 1000, 2],
      [1, 0, 0],
      [1, 7, 0],
    ];
    for (const [steps, n, index] of table) assert.equal(stepIndexFor(steps, n), index, `${steps} steps, request ${n}`);
    assert.throws(() => stepIndexFor(0, 0), /at least one step/);
  });

  test('a step answers its status, 200 by default, 429 with only retryAfter, nothing when it hangs or resets', () => {
    assert.equal(statusOfStep({}), 200);
    assert.equal(statusOfStep({ status: 503 }), 503);
    assert.equal(statusOfStep({ retryAfter: 5 }), 429);
    assert.equal(statusOfStep({ status: 503, retryAfter: 5 }), 503);
    assert.equal(statusOfStep({ hang: true }), null);
    assert.equal(statusOfStep({ reset: true, status: 500 }), null);
    assert.equal(stepInWords({ status: 429, retryAfter: 5 }), '429, Retry-After 5 s');
    assert.equal(stepInWords({ status: 200, delayMs: 2000 }), '200 after 2 s');
    assert.equal(stepInWords({ reset: true, delayMs: 150 }), 'reset after 150 ms');
    const answer = answerOf({ retryAfter: 7, body: 'slow down', headers: { 'X-Why': 'test' } });
    assert.deepEqual(answer.headers, { 'X-Why': 'test', 'Retry-After': '7', 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '9' });
    assert.equal(answer.status, 429);
  });

  test('a script is refused by field and limit', () => {
    const fields = (input: unknown): string[] => validateReceiverInput(input).map((e) => `${e.field}: ${e.message}`);
    assert.deepEqual(fields({ name: 'flaky', responses: [{ status: 500 }, {}] }), []);
    assert.match(fields({ name: 'has space', responses: [{}] })[0] ?? '', /^receiver\.name: must be 1 to 64 letters/);
    assert.match(fields({ name: 'x', responses: [] })[0] ?? '', /^receiver\.responses: must have at least one step/);
    assert.match(fields({ name: 'x', responses: [{ status: 700 }] })[0] ?? '', /^receiver\.responses\[0\]\.status: must be an HTTP status from 100 to 599/);
    assert.match(fields({ name: 'x', responses: [{ delayMs: 61_000 }] })[0] ?? '', /^receiver\.responses\[0\]\.delayMs: must be a whole number of milliseconds from 0 to 60000/);
    assert.match(fields({ name: 'x', responses: [{ hang: true, reset: true }] })[0] ?? '', /^receiver\.responses\[0\]\.reset: cannot be combined with hang/);
    assert.match(fields({ name: 'x', responses: [{ stauts: 200 }] })[0] ?? '', /^receiver\.responses\[0\]\.stauts: is not a step field/);
    assert.match(fields({ name: 'x', responses: [{ headers: { 'Bad Name': 'v' } }] })[0] ?? '', /^receiver\.responses\[0\]\.headers\.Bad Name: header name must be a token/);
  });

  test('a request\'s message key: the webhook-id header, else the JSON body\'s top-level messageId string, else none', () => {
    const body = (text: string): Buffer => Buffer.from(text, 'utf8');
    assert.equal(messageKeyOf([['Webhook-Id', 'msg_hookbench_7']], body('{"messageId":"m-1"}')), 'msg_hookbench_7', 'the header first, in any case');
    assert.equal(messageKeyOf([['webhook-id', '  ']], body(' {"messageId":"m-1","a":{"messageId":"inner"}}')), 'm-1', 'a blank header is none');
    assert.equal(messageKeyOf([], body('{"a":{"messageId":"inner"}}')), null, 'only the top level counts');
    assert.equal(messageKeyOf([], body('{"messageId":42}')), null, 'not a string');
    assert.equal(messageKeyOf([], body('{"messageId":""}')), null, 'empty');
    assert.equal(messageKeyOf([], body('[{"messageId":"m-1"}]')), null, 'not an object');
    assert.equal(messageKeyOf([], body('{"messageId":"m-1"')), null, 'not JSON (a body cut at the size limit, say)');
    assert.equal(messageKeyOf([['X-Message-Id', 'm-9']], body('messageId=m-1')), null);
    assert.equal(messageKeyOf([], Buffer.alloc(0)), null);
  });

  test('the script position: per message with a key, the key\'s earlier requests; otherwise the receiver-wide count', () => {
    assert.equal(scriptPositionOf('message', 7, 2), 2);
    assert.equal(scriptPositionOf('message', 7, null), 7, 'a request without a key uses the receiver-wide count');
    assert.equal(scriptPositionOf('receiver', 7, 2), 7);
    assert.equal(scriptPositionOf('receiver', 7, null), 7);
    const fields = (input: unknown): string[] => validateReceiverInput(input).map((e) => `${e.field}: ${e.message}`);
    assert.deepEqual(fields({ name: 'x', responses: [{}], per: 'message' }), []);
    assert.deepEqual(fields({ name: 'x', responses: [{}], per: 'receiver' }), []);
    assert.deepEqual(fields({ name: 'x', responses: [{}], per: 'delivery' }), ["receiver.per: must be 'receiver' or 'message'"]);
  });

  test('a destination URL points at a receiver by its path and one of the ports it is served on', () => {
    assert.equal(receiverNameOf('/receivers/flaky'), 'flaky');
    assert.equal(receiverNameOf('/receivers/flaky/sub/path'), 'flaky');
    assert.equal(receiverNameOf('/receivers/'), null);
    assert.equal(receiverNameOf('/hooks/flaky'), null);
    assert.equal(pointsAt('http://127.0.0.1:4545/receivers/flaky?x=1', 'flaky', [4545, 8443]), true);
    assert.equal(pointsAt('https://localhost:8443/receivers/flaky/a', 'flaky', [4545, 8443]), true);
    assert.equal(pointsAt('http://127.0.0.1:9999/receivers/flaky', 'flaky', [4545, 8443]), false);
    assert.equal(pointsAt('http://127.0.0.1:4545/receivers/flakier', 'flaky', [4545]), false);
    const destination = (name: string, url: string, secret: string | null): Destination => ({
      id: 1,
      name,
      enabled: true,
      sources: [],
      sharedSecret: secret,
      signing: 'x-signature',
      warp: 1,
      createdAt: '',
      webhooks: [{ url, headers: {} }],
    });
    const body = Buffer.from('{"a":1}');
    const verdicts = signatureVerdicts({
      receiver: 'flaky',
      ports: [4545],
      body,
      headers: [['X-Signature', hmac('right', body)]],
      destinations: [
        destination('Right', 'http://127.0.0.1:4545/receivers/flaky', 'right'),
        destination('Wrong', 'http://127.0.0.1:4545/receivers/flaky', 'wrong'),
        destination('Elsewhere', 'http://127.0.0.1:4545/hooks', 'right'),
      ],
    });
    assert.deepEqual(
      verdicts.map((v) => [v.destination, v.check.state]),
      [
        ['Right', 'valid'],
        ['Wrong', 'mismatch'],
      ],
    );
  });
});

/** The message's latest delivery as the engine reads it (its body as sent, even when stored packed). */
function deliveryOf(h: Harness, messageId: string): DeliveryRow | undefined {
  const row = h.inspect.get<{ id: number }>('SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = ? ORDER BY d.id DESC', messageId);
  return row === undefined ? undefined : h.engine.stores.log.getDelivery(row.id);
}
async function settled(h: Harness, messageId: string, statuses: string[], rounds?: number): Promise<DeliveryRow> {
  return waitUntil(() => {
    const d = deliveryOf(h, messageId);
    return d && statuses.includes(d.status) && (rounds === undefined || d.rounds === rounds) ? d : undefined;
  }, `delivery of ${messageId} to be ${statuses.join(' or ')}${rounds === undefined ? '' : ` after round ${rounds}`}`);
}
async function requestsAt(h: Harness, name: string, count: number) {
  const api = h.engine.receivers;
  const receiver = api.get(name);
  assert.ok(receiver, `receiver ${name}`);
  return waitUntil(() => {
    const rows = h.engine.stores.receivers.page(receiver.id, Number.MAX_SAFE_INTEGER, 100);
    return rows.length >= count && rows.every((r) => r.outcome !== 'pending') ? rows.reverse() : undefined;
  }, `${count} finished requests at receiver ${name}`);
}

/** Sends a request with exactly these header lines and body, and resolves with status, headers and body. */
function rawRequest(url: string, method: string, headers: [string, string][], body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: headers.flat() as unknown as Record<string, string> }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('test receivers in the engine', () => {
  test('a flaky receiver scripted 500, 500, 200 behind a destination on the short preset: the delivery succeeds on its third attempt, and the receiver lists the three requests, each signed', async () => {
    const clock = new ManualClock(T0);
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'flaky', responses: [{ status: 500 }, { status: 500 }, { status: 200 }] }] }, { clock });
    try {
      const url = `${h.server.url}/receivers/flaky`;
      h.engine.applyConfig({ ...configWith(url), delivery: { preset: 'short' } });
      assert.equal((await h.post('/v1/track', { userId: 'u1', event: 'Order Completed', messageId: 'flaky-1' })).status, 200);
      for (let round = 1; round <= 2; round++) {
        const d = await settled(h, 'flaky-1', ['retrying'], round);
        assert.ok(d.next_attempt_at! - clock.now() <= RETRY_PRESETS.short.maxDelayMs);
        clock.advance(d.next_attempt_at! - clock.now());
      }
      const d = await settled(h, 'flaky-1', ['succeeded']);
      assert.equal(d.rounds, 3);
      const rows = await requestsAt(h, 'flaky', 3);
      assert.deepEqual(
        rows.map((r) => [r.step, r.status, r.outcome, r.method, r.path]),
        [
          [0, 500, 'answered', 'POST', '/receivers/flaky'],
          [1, 500, 'answered', 'POST', '/receivers/flaky'],
          [2, 200, 'answered', 'POST', '/receivers/flaky'],
        ],
      );
      const attempts = h.inspect.all<{ http_status: number }>('SELECT http_status FROM attempts WHERE delivery_id = ? ORDER BY id', d.id);
      assert.deepEqual(attempts.map((a) => a.http_status), [500, 500, 200]);
      for (const r of rows) {
        const full = h.engine.stores.receivers.request(r.id)!;
        assert.deepEqual(full.body, Buffer.from(d.body!), 'the receiver kept the exact bytes the delivery sent');
        assert.deepEqual(r.signatures.map((v) => [v.destination, v.scheme, v.check.state]), [['Local receiver', 'x-signature', 'valid']]);
        assert.equal(full.headers.find(([n]) => n.toLowerCase() === 'x-signature')?.[1], hmac('s3cret', full.body));
      }
      assert.equal(h.engine.receivers.get('flaky')?.nextIndex, 3);
    } finally {
      await h.close();
    }
  });

  test('each request is kept byte for byte: method, path and query, header lines in order and case, body; the scripted answer carries its headers, body and Retry-After', async () => {
    const h = await startHarness({
      sources: [],
      destinations: [],
      receivers: [{ name: 'slow', responses: [{ status: 429, retryAfter: 30, headers: { 'X-Scripted': 'yes' }, body: '{"error":"slow down"}' }] }],
    });
    try {
      const body = '{"b":2,"a":"é"}  ';
      const res = await rawRequest(`${h.server.url}/receivers/slow/deep/path?x=1&y=%20`, 'PUT', [
        ['Host', new URL(h.server.url).host],
        ['Content-Length', String(Buffer.byteLength(body))],
        ['X-First', 'one'],
        ['content-type', 'application/json'],
        ['X-Dup', 'a'],
        ['X-Dup', 'b'],
      ], body);
      assert.equal(res.status, 429);
      assert.equal(res.headers['retry-after'], '30');
      assert.equal(res.headers['x-scripted'], 'yes');
      assert.equal(res.body, '{"error":"slow down"}');
      const [row] = await requestsAt(h, 'slow', 1);
      const full = h.engine.stores.receivers.request(row!.id)!;
      assert.equal(full.method, 'PUT');
      assert.equal(full.path, '/receivers/slow/deep/path?x=1&y=%20');
      assert.deepEqual(full.body, Buffer.from(body, 'utf8'));
      const mine = full.headers.filter(([n]) => /^(x-first|content-type|x-dup)$/i.test(n));
      assert.deepEqual(mine, [
        ['X-First', 'one'],
        ['content-type', 'application/json'],
        ['X-Dup', 'a'],
        ['X-Dup', 'b'],
      ]);
      assert.deepEqual(full.signatures, [], 'no destination points at this receiver');
      const unknown = await fetch(`${h.server.url}/receivers/nobody`, { method: 'POST', body: 'x' });
      assert.equal(unknown.status, 404);
      assert.match(((await unknown.json()) as { message: string }).message, /no test receiver named "nobody"/);
    } finally {
      await h.close();
    }
  });

  test('a hanging step runs into the sender timeout and a reset step into a connection reset, each recorded at both ends', async () => {
    const clock = new ManualClock(T0);
    const h = await startHarness(
      { sources: [], destinations: [], receivers: [{ name: 'broken', responses: [{ hang: true }, { reset: true }, { status: 204 }] }] },
      { clock },
    );
    try {
      h.engine.applyConfig({ ...configWith(`${h.server.url}/receivers/broken`), delivery: { preset: 'short' } });
      await h.post('/v1/track', { userId: 'u1', event: 'E', messageId: 'br-1' });
      await waitUntil(() => h.inspect.count('receiver_requests') === 1, 'the hanging request to arrive');
      // The sender's 5 s timeout runs on the injected clock.
      clock.advance(h.engine.deliverySettings().timeoutMs);
      let d = await settled(h, 'br-1', ['retrying'], 1);
      clock.advance(d.next_attempt_at! - clock.now());
      d = await settled(h, 'br-1', ['retrying'], 2);
      clock.advance(d.next_attempt_at! - clock.now());
      d = await settled(h, 'br-1', ['succeeded']);
      const attempts = h.inspect.all<{ error_kind: string | null; http_status: number | null }>('SELECT error_kind, http_status FROM attempts WHERE delivery_id = ? ORDER BY id', d.id);
      assert.deepEqual(attempts.map((a) => a.error_kind ?? a.http_status), ['timeout', 'reset', 204]);
      const rows = await requestsAt(h, 'broken', 3);
      assert.deepEqual(rows.map((r) => [r.step, r.outcome, r.status]), [
        [0, 'hung', null],
        [1, 'reset', null],
        [2, 'answered', 204],
      ]);
    } finally {
      await h.close();
    }
  });

  test('Reset starts the script over, a changed script starts over, the same script saved again does not; removing a receiver removes its requests', async () => {
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'seq', responses: [{ status: 201 }, { status: 202 }] }] });
    try {
      const hit = async (): Promise<number> => (await fetch(`${h.server.url}/receivers/seq`, { method: 'POST', body: '{}' })).status;
      assert.deepEqual([await hit(), await hit(), await hit()], [201, 202, 202]);
      assert.equal(h.engine.receivers.reset('seq'), true);
      assert.deepEqual([await hit(), await hit()], [201, 202]);
      h.engine.applyConfig({ sources: [], destinations: [], receivers: [{ name: 'seq', responses: [{ status: 201 }, { status: 202 }] }] });
      assert.equal(await hit(), 202, 'saving the same script again keeps its place');
      h.engine.receivers.save({ name: 'seq', responses: [{ status: 203 }, { status: 202 }] });
      assert.equal(await hit(), 203, 'a changed script starts over');
      await requestsAt(h, 'seq', 7);
      assert.equal(await h.engine.receivers.remove('seq'), true);
      assert.equal(h.inspect.count('receiver_requests'), 0);
    } finally {
      await h.close();
    }
  });

  test('removing a receiver with many requests removes them in slices, the event loop turning between them, and leaves the other receivers\' alone', async () => {
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'big', responses: [{}] }, { name: 'small', responses: [{}] }] });
    const other = LogInspector.of(h.dataDir);
    try {
      for (const name of ['big', 'small']) await (await fetch(`${h.server.url}/receivers/${name}`, { method: 'POST', body: name })).arrayBuffer();
      await requestsAt(h, 'small', 1);
      // Written beside the engine, as a load test pointed at the receiver would have left them.
      const big = h.engine.receivers.get('big')!;
      other.exec('BEGIN');
      for (let i = 0; i < 20_000; i++) {
        other.run(
          `INSERT INTO receiver_requests (receiver_id, received_at, tls, method, path, headers, body, body_bytes, body_ms, step, signatures, outcome, status)
           VALUES (?, ?, 0, 'POST', '/receivers/big', '[]', x'7b7d', 2, 0, 0, '[]', 'answered', 200)`,
          big.id,
          T0 + i,
        );
      }
      other.exec('COMMIT');
      assert.equal(h.engine.receivers.get('big')?.requests, 20_001, 'the count follows requests however they are written');
      const { value: removed, turns } = await turnsDuring(() => h.engine.receivers.remove('big'));
      assert.equal(removed, true);
      // A turn between each two slices (500, 2,000, 8,000 and the rest at the fastest).
      assert.ok(turns >= fewestSlices(REMOVAL_SLICES, 20_001) - 1, `removed a slice at a time, the loop turning ${turns} times`);
      assert.equal(h.engine.receivers.get('big'), null);
      assert.equal(other.count('receiver_requests'), 1, "the other receiver's request stays");
      assert.equal(h.engine.receivers.get('small')?.requests, 1);
      assert.equal(await h.engine.receivers.remove('big'), false, 'a receiver that is gone: nothing to remove');
    } finally {
      other.close();
      await h.close();
    }
  });

  test("a log from before receivers kept their count (schema 21) is counted once when it is opened", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookbench-receiver-count-'));
    try {
      const path = join(dir, 'hookbench.sqlite');
      const db = new Database(path);
      const target = MIGRATIONS.findIndex((m) => m.includes('receiver_requests_count_insert'));
      assert.ok(target > 0, 'a migration adds the count');
      for (let version = 0; version < target; version++) {
        db.exec(MIGRATIONS[version] as string);
        db.pragma(`user_version = ${version + 1}`);
      }
      db.exec("INSERT INTO receivers (name, script, created_at, updated_at) VALUES ('a', '[{}]', 0, 0), ('b', '[{}]', 0, 0), ('c', '[{}]', 0, 0)");
      const insert = db.prepare(
        `INSERT INTO receiver_requests (receiver_id, received_at, tls, method, path, headers, body, body_bytes, body_ms, step, signatures, outcome, status)
         VALUES (?, 0, 0, 'POST', '/', '[]', x'', 0, 0, 0, '[]', 'answered', 200)`,
      );
      for (let i = 0; i < 7; i++) insert.run(1);
      for (let i = 0; i < 3; i++) insert.run(2);
      db.close();
      const opened = openDatabase(path);
      try {
        assert.deepEqual(opened.prepare('SELECT name, requests FROM receivers ORDER BY name').all(), [
          { name: 'a', requests: 7 },
          { name: 'b', requests: 3 },
          { name: 'c', requests: 0 },
        ]);
      } finally {
        opened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('receiver requests are covered by retention and by Clear log', async () => {
    const clock = new ManualClock(T0);
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'r', responses: [{}] }], retention: { days: 1 } }, { clock });
    try {
      await (await fetch(`${h.server.url}/receivers/r`, { method: 'POST', body: 'old' })).arrayBuffer();
      await requestsAt(h, 'r', 1);
      assert.equal(h.engine.receivers.get('r')?.requests, 1);
      // Retention's own timer, on the injected clock, finds the request past the 1-day limit.
      clock.advance(2 * 24 * 60 * 60 * 1000);
      assert.equal(h.inspect.count('receiver_requests'), 0);
      assert.equal(h.engine.receivers.get('r')?.requests, 0, 'the count follows what retention removed');
      await (await fetch(`${h.server.url}/receivers/r`, { method: 'POST', body: 'new' })).arrayBuffer();
      await requestsAt(h, 'r', 1);
      assert.equal(h.engine.retention.runSlice().removed.receiverRequests, 0, 'a new request stays');
      assert.deepEqual(h.inspect.all<{ body: Buffer }>('SELECT body FROM receiver_requests').map((r) => r.body.toString()), ['new']);
      const cleared = await h.engine.retention.clear();
      assert.equal(cleared.receiverRequests, 1);
      assert.equal(h.inspect.count('receiver_requests'), 0);
      assert.equal(h.engine.receivers.get('r')?.requests, 0, 'and what Clear log removed');
    } finally {
      await h.close();
    }
  });

  test('while another program holds the write lock, a receiver answers 503 naming the fault and records nothing; once released it goes on with its first step', async () => {
    const clock = new ManualClock(T0);
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'r', responses: [{ status: 202 }] }] }, { clock, log: () => {} });
    const other = LogInspector.of(h.dataDir);
    try {
      other.exec('BEGIN EXCLUSIVE');
      other.run("INSERT INTO settings (key, value) VALUES ('other.program', 'x')");
      const refused = await fetch(`${h.server.url}/receivers/r`, { method: 'POST', body: 'x' });
      assert.equal(refused.status, 503);
      const body = (await refused.json()) as { code: string; message: string };
      assert.equal(body.code, 'database_locked');
      assert.match(body.message, /^the test receiver could not record this request: /);
      assert.equal(h.engine.health.current().status, 'degraded');
      other.exec('COMMIT');
      clock.advance(1000);
      assert.equal(h.engine.health.current().status, 'ok');
      assert.equal((await fetch(`${h.server.url}/receivers/r`, { method: 'POST', body: 'y' })).status, 202);
      const [row] = await requestsAt(h, 'r', 1);
      assert.equal(row?.step, 0);
      assert.equal(h.inspect.count('receiver_requests'), 1);
    } finally {
      other.close();
      await h.close();
    }
  });
  test('per message: every message key goes through the script on its own, a keyless request uses the receiver-wide count, and requests together never share a try', async () => {
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'pm', per: 'message', responses: [{ status: 500 }, { status: 501 }, { status: 200 }] }] });
    try {
      const url = `${h.server.url}/receivers/pm`;
      const send = async (key: { header?: string; body?: string }): Promise<number> => {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (key.header) headers['webhook-id'] = key.header;
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(key.body ? { messageId: key.body } : { other: 1 }) });
        await res.arrayBuffer();
        return res.status;
      };
      // Interleaved: a, b, a, (none), b, a, a.
      const statuses = [
        await send({ body: 'a' }),
        await send({ header: 'wh_b', body: 'ignored' }),
        await send({ body: 'a' }),
        await send({}),
        await send({ header: 'wh_b' }),
        await send({ body: 'a' }),
        await send({ body: 'a' }),
      ];
      assert.deepEqual(statuses, [500, 500, 501, 200, 501, 200, 200], 'the keyless 4th request is the receiver\'s 4th: the last step');
      const rows = await requestsAt(h, 'pm', 7);
      assert.deepEqual(
        rows.map((r) => [r.messageKey, r.messageTry, r.step]),
        [
          ['a', 1, 0],
          ['wh_b', 1, 0],
          ['a', 2, 1],
          [null, null, 2],
          ['wh_b', 2, 1],
          ['a', 3, 2],
          ['a', 4, 2],
        ],
      );
      const summary = (await createEngineApi(h.engine).listReceiverRequests({ receiver: 'pm', limit: 1 })).items[0];
      assert.deepEqual([summary?.messageKey, summary?.messageTry], ['a', 4], 'the contract carries the key and the try');
      assert.equal(h.engine.receivers.get('pm')?.nextIndex, 7, 'the receiver-wide count moves for every request');

      // Sent together, the same message's requests each take their own try.
      const together = await Promise.all([0, 1, 2, 3].map(() => send({ body: 'c' })));
      assert.deepEqual([...together].sort(), [200, 200, 500, 501]);
      const tries = (await requestsAt(h, 'pm', 11)).slice(7).map((r) => r.messageTry);
      assert.deepEqual([...tries].sort(), [1, 2, 3, 4]);
    } finally {
      await h.close();
    }
  });

  test('per message: Reset and a changed script (what it counts alone included) start every message over; saving the same script keeps each message\'s place', async () => {
    const script = [{ status: 500 }, { status: 200 }];
    const h = await startHarness({ sources: [], destinations: [], receivers: [{ name: 'pm', per: 'message', responses: script }] });
    try {
      const hit = async (messageId: string): Promise<number> => {
        const res = await fetch(`${h.server.url}/receivers/pm`, { method: 'POST', body: JSON.stringify({ messageId }) });
        await res.arrayBuffer();
        return res.status;
      };
      assert.deepEqual([await hit('a'), await hit('b'), await hit('a')], [500, 500, 200]);
      assert.equal(h.engine.receivers.reset('pm'), true);
      assert.deepEqual([await hit('a'), await hit('b')], [500, 500], 'reset: both start over');
      h.engine.applyConfig({ sources: [], destinations: [], receivers: [{ name: 'pm', per: 'message', responses: script }] });
      assert.deepEqual([await hit('a'), await hit('b')], [200, 200], 'the same script saved again keeps every message\'s place');
      h.engine.receivers.save({ name: 'pm', responses: script, per: 'receiver' });
      assert.equal(h.engine.receivers.get('pm')?.nextIndex, 0, 'changing only per is a changed script');
      assert.deepEqual([await hit('a'), await hit('a'), await hit('b')], [500, 200, 200], 'per receiver: one count whatever the message');
      h.engine.receivers.save({ name: 'pm', responses: script, per: 'message' });
      assert.deepEqual([await hit('a'), await hit('b')], [500, 500], 'back to per message: every message starts over');
      h.engine.receivers.save({ name: 'pm', responses: [{ status: 503 }, { status: 200 }], per: 'message' });
      assert.deepEqual([await hit('a'), await hit('a')], [503, 200], 'a changed step list starts every message over');
      const rows = await requestsAt(h, 'pm', 14);
      assert.deepEqual(
        rows.slice(7, 10).map((r) => [r.messageKey, r.messageTry]),
        [
          ['a', 1],
          ['a', 2],
          ['b', 1],
        ],
        'per receiver still names each request\'s message and its try',
      );
    } finally {
      await h.close();
    }
  });

  for (const per of ['message', 'receiver'] as const) {
    test(`two messages sent together to a receiver scripted 500, 500, 200 per ${per} through real deliveries on the short preset: ${per === 'message' ? 'each gets 500, 500, 200 and succeeds on round 3' : 'they share one count and both succeed on round 2'}`, async () => {
      const clock = new ManualClock(T0);
      const h = await startHarness(
        { sources: [], destinations: [], receivers: [{ name: 'flaky', per, responses: [{ status: 500 }, { status: 500 }, { status: 200 }] }] },
        { clock },
      );
      try {
        h.engine.applyConfig({ ...configWith(`${h.server.url}/receivers/flaky`), delivery: { preset: 'short' } });
        const ids = ['pk-a', 'pk-b'];
        const accepted = await Promise.all(ids.map((messageId) => h.post('/v1/track', { userId: 'u1', event: 'Order Completed', messageId })));
        assert.deepEqual(accepted.map((r) => r.status), [200, 200]);
        const rounds = per === 'message' ? 3 : 2;
        for (let round = 1; round < rounds; round++) {
          const due = await Promise.all(ids.map((id) => settled(h, id, ['retrying'], round)));
          clock.advance(Math.max(...due.map((d) => d.next_attempt_at!)) - clock.now());
        }
        for (const id of ids) {
          const d = await settled(h, id, ['succeeded']);
          assert.equal(d.rounds, rounds, `${id} succeeded on round ${rounds}`);
          const attempts = h.inspect.all<{ http_status: number }>('SELECT http_status FROM attempts WHERE delivery_id = ? ORDER BY id', d.id);
          assert.deepEqual(attempts.map((a) => a.http_status), per === 'message' ? [500, 500, 200] : [500, 200]);
        }
        const rows = await requestsAt(h, 'flaky', rounds * 2);
        for (const id of ids) {
          const mine = rows.filter((r) => r.messageKey === id);
          assert.deepEqual(
            mine.map((r) => r.messageTry),
            Array.from({ length: rounds }, (_, k) => k + 1),
            `${id}'s tries`,
          );
        }
        if (per === 'receiver') assert.deepEqual(rows.map((r) => r.step), [0, 1, 2, 2], 'one count across both messages');
      } finally {
        await h.close();
      }
    });
  }
});
