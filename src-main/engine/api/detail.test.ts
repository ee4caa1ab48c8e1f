import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';
import { DEFAULT_DELIVERY_SETTINGS, RETRY_PRESETS, type DeliverySettings } from '../../../src-shared/settings';
import type { SignatureCheck } from '../../../src-shared/api';
import { ManualClock } from '../clock';
import { decideAfterRound } from '../delivery/retry-policy';
import { classifyError } from '../delivery/sender';
import { failureText } from '../../../src-shared/delivery-outcomes';
import type { AttemptResult } from '../delivery/types';
import { startHarness, configWith, type Harness } from '../testing/harness';
import { Receiver, status } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { createEngineApi } from './index';
import { checkSignature, headerValue, nextStepOf, type NextStepAttempt, type NextStepRow } from './detail';

const T0 = Date.parse('2026-11-22T12:00:00.000Z');
const hmac = (secret: string, body: string | Buffer): string => createHmac('sha1', secret).update(body).digest('hex');
const BODY = Buffer.from('{"version":1,"type":"track","event":"Order Completed"}');

describe('checkSignature', () => {
  const table: [string, Parameters<typeof checkSignature>[0], SignatureCheck['state'], RegExp][] = [
    ['signed with the current secret', { body: BODY, secret: 's', sentHeaders: { 'X-Signature': hmac('s', BODY) } }, 'valid', /^the HMAC-SHA1 of the stored body .*matches/],
    [
      'header name and hex in other cases (the spec allows plain hex)',
      { body: BODY, secret: 's', sentHeaders: { 'x-signature': hmac('s', BODY).toUpperCase() } },
      'valid',
      /matches the X-Signature sent$/,
    ],
    ['the secret changed after sending', { body: BODY, secret: 'new', sentHeaders: { 'X-Signature': hmac('old', BODY) } }, 'mismatch', /secret was changed after sending/],
    ['the body differs from what was signed', { body: Buffer.from('{}'), secret: 's', sentHeaders: { 'X-Signature': hmac('s', BODY) } }, 'mismatch', /body differs/],
    ['a signature that is not hex at all', { body: BODY, secret: 's', sentHeaders: { 'X-Signature': 'forged' } }, 'mismatch', /^the X-Signature sent is not/],
    ['no secret, nothing signed', { body: BODY, secret: null, sentHeaders: { 'Content-Type': 'application/json' } }, 'no_secret', /^the destination has no shared secret, so no X-Signature was sent$/],
    ['an empty secret counts as none', { body: BODY, secret: '', sentHeaders: {} }, 'no_secret', /no X-Signature was sent/],
    ['signed, but the secret was removed since', { body: BODY, secret: null, sentHeaders: { 'X-Signature': hmac('s', BODY) } }, 'no_secret', /cannot be checked: .*removed/],
    ['sent unsigned, a secret was set since', { body: BODY, secret: 's', sentHeaders: {} }, 'mismatch', /sent without X-Signature/],
    ['no attempt yet, with a secret', { body: BODY, secret: 's', sentHeaders: null }, 'not_sent', /^nothing sent yet; the first attempt will carry/],
    ['no attempt yet, without a secret', { body: null, secret: null, sentHeaders: null }, 'not_sent', /will go out unsigned/],
  ];
  for (const [name, input, state, explanation] of table) {
    test(name, () => {
      const check = checkSignature(input);
      assert.equal(check.state, state);
      assert.match(check.explanation, explanation);
      assert.equal(check.sent, input.sentHeaders === null ? null : headerValue(input.sentHeaders, 'X-SIGNATURE'));
      assert.equal(check.expected, input.secret && input.body ? hmac(input.secret, Buffer.from(input.body)) : null);
    });
  }
});

describe('nextStepOf', () => {
  const row = (over: Partial<NextStepRow> = {}): NextStepRow => ({
    status: 'pending',
    next_attempt_at: T0,
    rounds: 0,
    first_attempt_at: null,
    last_error: null,
    last_http_status: null,
    pending_urls: null,
    decision: null,
    ...over,
  });
  const attempt = (over: Partial<NextStepAttempt> = {}): NextStepAttempt => ({
    round: 1,
    url: 'http://127.0.0.1:9000/hook',
    started_at: T0,
    state: 'done',
    verdict: 'retryable',
    http_status: 500,
    error_kind: 'http',
    error_text: 'HTTP 500 Internal Server Error',
    failure: null,
    ...over,
  });
  const result = (over: Partial<AttemptResult>): AttemptResult => ({
    url: 'http://127.0.0.1:9000/hook',
    startedAt: T0,
    timings: { totalMs: 1 },
    status: 500,
    responseHeaders: {},
    responseBody: new Uint8Array(),
    responseBytes: 0,
    responseTruncated: false,
    errorKind: 'http',
    errorText: 'HTTP 500 Internal Server Error',
    retryAfterMs: null,
    ...over,
  });
  // The reason exactly as the retry policy writes it when the window runs out (not a hand-copied string).
  const windowDecision = decideAfterRound({
    results: [result({})],
    firstAttemptAt: T0,
    now: T0 + 60_000 - 100,
    round: 7,
    schedule: RETRY_PRESETS.short,
    random: () => 0.5,
  });
  assert.equal(windowDecision.outcome, 'failed');
  const windowReason = windowDecision.outcome === 'failed' ? windowDecision.reason : '';
  const windowRecord = windowDecision.outcome === 'failed' ? JSON.stringify(windowDecision.decision) : null;
  const tlsFailure = classifyError(Object.assign(new Error('self-signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), 'https://127.0.0.1:9000/hook');
  const second = 'http://127.0.0.1:9001/other';

  const table: [string, NextStepRow, NextStepAttempt[], string, Partial<DeliverySettings>?][] = [
    ['pending, due later', row({ next_attempt_at: T0 + 12_000 }), [], 'next attempt at 12:00:12 (in 12 s), round 1'],
    ['pending, due now', row({ next_attempt_at: T0 - 1 }), [], 'next attempt now (due since 11:59:59), round 1'],
    [
      'retrying after a 500',
      row({ status: 'retrying', rounds: 2, first_attempt_at: T0 - 3_000, next_attempt_at: T0 + 12_000 }),
      [attempt(), attempt({ round: 2 })],
      'next attempt at 12:00:12 (in 12 s), round 3; no retry after 15:59:57 (4 h after the first attempt)',
    ],
    [
      'retrying under the short preset, with sub-second backoff',
      row({ status: 'retrying', rounds: 1, first_attempt_at: T0, next_attempt_at: T0 + 375 }),
      [attempt()],
      'next attempt at 12:00:00 (in 375 ms), round 2; no retry after 12:01:00 (1 min after the first attempt)',
      RETRY_PRESETS.short,
    ],
    [
      'retrying only the URLs whose failure is retryable',
      row({ status: 'retrying', rounds: 1, first_attempt_at: T0, next_attempt_at: T0 + 750, pending_urls: JSON.stringify([second]) }),
      [attempt({ verdict: 'permanent', http_status: 404, error_text: 'HTTP 404 Not Found' }), attempt({ url: second })],
      `next attempt at 12:00:00 (in 750 ms), round 2, only to ${second} (the other URLs failed permanently); no retry after 16:00:00 (4 h after the first attempt)`,
    ],
    [
      'a window crossing midnight names the day',
      row({ status: 'retrying', rounds: 1, first_attempt_at: T0 + 10 * 3_600_000 - 1_000, next_attempt_at: T0 + 10 * 3_600_000 }),
      [attempt()],
      'next attempt at 22:00:00 (in 10 h), round 2; no retry after 2026-11-23 01:59:59 (4 h after the first attempt)',
    ],
    [
      'in flight',
      row({ status: 'in_flight', rounds: 1, first_attempt_at: T0 - 2_000 }),
      [attempt({ state: 'in_flight', started_at: T0 - 2_000, verdict: null, http_status: null, error_kind: null, error_text: null })],
      'round 1 in flight since 11:59:58, waiting up to 5 s for the receiver',
    ],
    [
      'delivered at once',
      row({ status: 'succeeded', rounds: 1, last_http_status: 200 }),
      [attempt({ verdict: 'success', http_status: 200, error_kind: null, error_text: null })],
      'delivered: 200 from http://127.0.0.1:9000/hook',
    ],
    [
      'delivered in a later round, one URL of two',
      row({ status: 'succeeded', rounds: 2, last_http_status: 204 }),
      [attempt(), attempt({ url: second }), attempt({ round: 2 }), attempt({ round: 2, url: second, verdict: 'success', http_status: 204, error_kind: null, error_text: null })],
      `delivered: 204 from ${second} in round 2; the other URLs are not retried once one succeeds`,
    ],
    [
      'a 404 is not retried',
      row({ status: 'failed', rounds: 1, last_http_status: 404 }),
      [attempt({ verdict: 'permanent', http_status: 404, error_text: 'HTTP 404 Not Found' })],
      'not retried: 404 is a client error (of the 4xx statuses only 408 and 429 are retried)',
    ],
    [
      'a self-signed certificate is refused before sending',
      row({ status: 'failed', rounds: 1 }),
      [attempt({ verdict: 'permanent', http_status: null, error_kind: 'tls', error_text: failureText(tlsFailure), failure: JSON.stringify(tlsFailure) })],
      'not retried: TLS certificate error (self-signed certificate refused), so no request was sent',
    ],
    [
      'a certificate refused, on a row written before failures were kept',
      row({ status: 'failed', rounds: 1 }),
      [attempt({ verdict: 'permanent', http_status: null, error_kind: 'tls', error_text: 'self-signed certificate refused; request not sent (DEPTH_ZERO_SELF_SIGNED_CERT)' })],
      'not retried: TLS certificate error, so no request was sent',
    ],
    [
      'a redirect is not followed',
      row({ status: 'failed', rounds: 1, last_http_status: 302 }),
      [attempt({ verdict: 'permanent', http_status: 302, error_kind: 'redirect', error_text: 'redirect (302 Found) to /x not followed' })],
      'not retried: 302 is a redirect, and redirects are not followed (a webhook must answer at its configured URL)',
    ],
    [
      'every URL failed permanently',
      row({ status: 'failed', rounds: 1 }),
      [attempt({ verdict: 'permanent', http_status: 401 }), attempt({ url: second, verdict: 'permanent', http_status: 410 })],
      `not retried: http://127.0.0.1:9000/hook: 401 is a client error (of the 4xx statuses only 408 and 429 are retried); ${second}: 410 is a client error (of the 4xx statuses only 408 and 429 are retried)`,
    ],
    [
      'the retry window ran out (read from the recorded decision, not today’s settings)',
      row({ status: 'failed', rounds: 7, first_attempt_at: T0, last_error: windowReason, decision: windowRecord }),
      [attempt({ round: 6 }), attempt({ round: 7, error_kind: 'timeout', http_status: null, error_text: 'no complete response within 300 ms' })],
      'retries stopped: the 1 min retry window since the first attempt (12:00:00) ends at 12:01:00, before the next retry would have been due; round 7 ended with timeout: no complete response within 300 ms',
      DEFAULT_DELIVERY_SETTINGS,
    ],
    [
      'the retry window ran out, reworded: the sentence comes from the record, not the words',
      row({ status: 'failed', rounds: 7, first_attempt_at: T0, last_error: 'the retries are over', decision: windowRecord }),
      [attempt({ round: 7 })],
      'retries stopped: the 1 min retry window since the first attempt (12:00:00) ends at 12:01:00, before the next retry would have been due; round 7 ended with HTTP 500 Internal Server Error',
    ],
    [
      'the retry window ran out, on a row written before decisions were kept: its last error says it',
      row({ status: 'failed', rounds: 7, first_attempt_at: T0, last_error: windowReason }),
      [attempt({ round: 7 })],
      `failed: ${windowReason}`,
    ],
    ['failed without any attempt', row({ status: 'failed', last_error: 'no webhook URL was tried' }), [], 'failed: no webhook URL was tried'],
    [
      'discarded',
      row({
        status: 'discarded',
        last_error: 'not sent: its destination is switched off',
        decision: JSON.stringify({ code: 'not_sent', reason: 'destination_off', detail: null }),
      }),
      [],
      'discarded without sending: its destination is switched off',
    ],
    [
      'discarded, on a row written before decisions were kept',
      row({ status: 'discarded', last_error: 'not sent: its destination is switched off' }),
      [],
      'discarded without sending (not sent: its destination is switched off)',
    ],
  ];
  for (const [name, r, attempts, expected, settings] of table) {
    test(name, () => {
      const s: DeliverySettings = { ...DEFAULT_DELIVERY_SETTINGS, ...settings };
      assert.equal(nextStepOf(r, attempts, { now: T0, settings: s, timeZone: 'UTC' }), expected);
    });
  }
});

// The real engine words clock times in the process's zone; pinning it keeps "no retry after 16:00:00"
// on the same day wherever the test runs (Node re-reads TZ when it is assigned).
process.env.TZ = 'UTC';
/** A clock time as the engine words it in its local zone, for sentences made by the real engine. */
const local = (ms: number): string => {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
};

async function deliveryOf(h: Harness, messageId: string, statuses: string[]): Promise<number> {
  const row = await waitUntil(
    () =>
      h.inspect.get(`SELECT d.id, d.status FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = ? AND d.replay_of IS NULL`, messageId) as { id: number; status: string } | undefined,
    `delivery of ${messageId}`,
  );
  await waitUntil(() => statuses.includes(h.engine.stores.log.getDelivery(row.id)?.status ?? ''), `delivery of ${messageId} to be ${statuses.join(' or ')}`);
  return row.id;
}

describe('getDelivery: the detail of a real engine', () => {
  test('a signed success, then a changed secret, a 500 with its retry time, and a 404 that is not retried', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    const h = await startHarness(configWith(receiver.url), { clock });
    const api = createEngineApi(h.engine);
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-ok' });
      const ok = await deliveryOf(h, 'd-ok', ['succeeded']);
      let detail = await api.getDelivery(ok);
      assert.ok(detail);
      const sent = receiver.received[0]!;
      assert.equal(detail.destinationName, 'Local receiver');
      assert.deepEqual(detail.signature, {
        state: 'valid',
        expected: hmac('s3cret', sent.body),
        sent: sent.headers['x-signature'],
        explanation: 'the HMAC-SHA1 of the stored body with the current shared secret matches the X-Signature sent',
      });
      assert.equal(detail.nextStep, `delivered: 200 from ${receiver.url}`);
      assert.equal(detail.originalBody, null);

      h.engine.applyConfig(configWith(receiver.url, { sharedSecret: 'rotated' }));
      detail = await api.getDelivery(ok);
      assert.equal(detail?.signature.state, 'mismatch');
      assert.equal(detail?.signature.expected, hmac('rotated', sent.body));
      assert.equal(detail?.signature.sent, hmac('s3cret', sent.body));

      receiver.respond(status(500, {}, 'down'));
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-500' });
      const failing = await deliveryOf(h, 'd-500', ['retrying']);
      detail = await api.getDelivery(failing);
      // standard preset, random 0.5: 1 s base with half the jitter → 750 ms
      assert.equal(detail?.nextStep, `next attempt at ${local(T0 + 750)} (in 750 ms), round 2; no retry after ${local(T0 + 4 * 3_600_000)} (4 h after the first attempt)`);
      clock.advance(500);
      assert.match((await api.getDelivery(failing))?.nextStep ?? '', /\(in 250 ms\), round 2/, 'measured on the engine clock');

      receiver.respond(status(404));
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-404' });
      const gone = await deliveryOf(h, 'd-404', ['failed']);
      detail = await api.getDelivery(gone);
      assert.equal(detail?.nextStep, 'not retried: 404 is a client error (of the 4xx statuses only 408 and 429 are retried)');
      assert.equal(await api.getDelivery(999_999), null);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('retries stop at the end of the retry window, and the sentence says when it ended', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(status(503));
    const h = await startHarness(
      { ...configWith(receiver.url), delivery: { retryWindowMs: 1_000, baseDelayMs: 1_000, maxDelayMs: 10_000, jitter: 0.5 } },
      { clock },
    );
    const api = createEngineApi(h.engine);
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-window' });
      const id = await deliveryOf(h, 'd-window', ['retrying']);
      clock.advance(750);
      await deliveryOf(h, 'd-window', ['failed']);
      // Settings changed afterwards do not rewrite history: the sentence uses the window the decision used.
      h.engine.applyConfig({ sources: [], destinations: [], delivery: { preset: 'standard' } });
      const detail = await api.getDelivery(id);
      assert.equal(
        detail?.nextStep,
        `retries stopped: the 1 s retry window since the first attempt (${local(T0)}) ends at ${local(T0 + 1_000)}, before the next retry would have been due; round 2 ended with HTTP 503 Service Unavailable`,
      );
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('an edited replay carries its original body; a replay to a switched-off destination is discarded, saying why', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    const h = await startHarness(configWith(receiver.url), { clock });
    const api = createEngineApi(h.engine);
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-edit' });
      const original = await deliveryOf(h, 'd-edit', ['succeeded']);
      const originalBody = receiver.received[0]!.body.toString('utf8');
      const edited = '{"version":1,"type":"track","event":"Edited"}';
      const replay = await api.replayDelivery({ id: original, body: edited });
      await waitUntil(() => h.engine.stores.log.getDelivery(replay.id)?.status === 'succeeded', 'the edited replay');
      const detail = await api.getDelivery(replay.id);
      assert.equal(detail?.body, edited);
      assert.equal(detail?.originalBody, originalBody);
      assert.equal(detail?.signature.state, 'valid');
      assert.equal(detail?.signature.sent, hmac('s3cret', edited));
      assert.notEqual(detail?.signature.sent, hmac('s3cret', originalBody));

      const same = await api.replayDelivery({ id: original });
      assert.equal((await api.getDelivery(same.id))?.originalBody, null, 'an unedited replay has no separate original');

      h.engine.applyConfig(configWith(receiver.url, { enabled: false }));
      const off = await api.replayDelivery({ id: original });
      await waitUntil(() => h.engine.stores.log.getDelivery(off.id)?.status === 'discarded', 'the replay to be discarded');
      const discarded = await api.getDelivery(off.id);
      assert.equal(discarded?.nextStep, 'discarded without sending: its destination is switched off');
      assert.equal(discarded?.signature.state, 'not_sent');
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a receiver that hangs: the attempt times out on the engine clock and the next attempt is named', async () => {
    const clock = new ManualClock(T0);
    const receiver = await new Receiver().start();
    receiver.respond(() => undefined);
    const h = await startHarness({ ...configWith(receiver.url), delivery: { timeoutMs: 300, preset: 'short' } }, { clock });
    const api = createEngineApi(h.engine);
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-hang' });
      const id = await deliveryOf(h, 'd-hang', ['in_flight']);
      await receiver.waitFor(1);
      assert.equal((await api.getDelivery(id))?.nextStep, `round 1 in flight since ${local(T0)}, waiting up to 300 ms for the receiver`);
      clock.advance(300);
      await deliveryOf(h, 'd-hang', ['retrying']);
      const detail = await api.getDelivery(id);
      assert.equal(detail?.attempts[0]?.errorKind, 'timeout');
      assert.equal(detail?.attempts[0]?.errorText, 'no complete response within 300 ms');
      // short preset: 500 ms base, random 0.5 → 375 ms after the attempt ended at T0 + 300
      assert.equal(detail?.nextStep, `next attempt at ${local(T0 + 675)} (in 375 ms), round 2; no retry after ${local(T0 + 60_000)} (1 min after the first attempt)`);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  test('a self-signed https receiver: failed, and the sentence says the certificate was refused', async () => {
    const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
      notAfterDate: new Date(Date.now() + 86_400_000),
      keySize: 2048,
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const server = createHttpsServer({ key: pems.private, cert: pems.cert }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const h = await startHarness(configWith(url, { sharedSecret: null }));
    const api = createEngineApi(h.engine);
    try {
      await h.post('/v1/track', { userId: 'u', event: 'E', messageId: 'd-tls' });
      const id = await deliveryOf(h, 'd-tls', ['failed']);
      const detail = await api.getDelivery(id);
      assert.equal(detail?.nextStep, 'not retried: TLS certificate error (self-signed certificate refused), so no request was sent');
      assert.equal(detail?.signature.state, 'no_secret');
    } finally {
      await h.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
