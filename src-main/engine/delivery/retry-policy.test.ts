import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RETRY_PRESETS, type RetrySchedule } from '../../../src-shared/settings';
import { backoffDelayMs, classifyAttempt, decideAfterRound, formatDuration } from './retry-policy';
import type { AttemptResult, AttemptVerdict, ErrorKind } from './types';

function result(url: string, over: Partial<AttemptResult> = {}): AttemptResult {
  return {
    url,
    startedAt: 0,
    timings: { totalMs: 1 },
    status: null,
    responseHeaders: {},
    responseBody: new Uint8Array(),
    responseBytes: 0,
    responseTruncated: false,
    errorKind: null,
    errorText: null,
    retryAfterMs: null,
    ...over,
  };
}

const http = (url: string, status: number, over: Partial<AttemptResult> = {}): AttemptResult =>
  result(url, {
    status,
    errorKind: status >= 200 && status < 300 ? null : status < 400 ? 'redirect' : 'http',
    errorText: status >= 200 && status < 300 ? null : `HTTP ${status}`,
    ...over,
  });
const failed = (url: string, errorKind: ErrorKind, errorText = `${errorKind} happened`): AttemptResult =>
  result(url, { errorKind, errorText });

test('classifyAttempt', () => {
  const table: [string, AttemptResult, AttemptVerdict][] = [
    ['200', http('u', 200), 'success'],
    ['204', http('u', 204), 'success'],
    ['299', http('u', 299), 'success'],
    ['500', http('u', 500), 'retryable'],
    ['503', http('u', 503), 'retryable'],
    ['599', http('u', 599), 'retryable'],
    ['408', http('u', 408), 'retryable'],
    ['429', http('u', 429), 'retryable'],
    ['400', http('u', 400), 'permanent'],
    ['401', http('u', 401), 'permanent'],
    ['404', http('u', 404), 'permanent'],
    ['410', http('u', 410), 'permanent'],
    ['413', http('u', 413), 'permanent'],
    ['301', http('u', 301), 'permanent'],
    ['302', http('u', 302), 'permanent'],
    ['304', http('u', 304), 'permanent'],
    ['timeout before any response', failed('u', 'timeout'), 'retryable'],
    ['timeout after a 200 status (body never finished)', result('u', { status: 200, errorKind: 'timeout', errorText: 'x' }), 'retryable'],
    ['connect', failed('u', 'connect'), 'retryable'],
    ['dns', failed('u', 'dns'), 'retryable'],
    ['reset', failed('u', 'reset'), 'retryable'],
    ['protocol', failed('u', 'protocol'), 'retryable'],
    ['other', failed('u', 'other'), 'retryable'],
    ['interrupted', failed('u', 'interrupted'), 'retryable'],
    ['tls', failed('u', 'tls'), 'permanent'],
    ['redirect kind', failed('u', 'redirect'), 'permanent'],
  ];
  for (const [name, r, verdict] of table) assert.equal(classifyAttempt(r), verdict, name);
});

const schedule: RetrySchedule = { baseDelayMs: 1_000, maxDelayMs: 60_000, jitter: 0.5, retryWindowMs: 4 * 60 * 60 * 1000, maxRetryAfterMs: 30_000 };

test('backoffDelayMs doubles per round, is capped, and jitter only shortens', () => {
  const none = (): number => 0;
  const table: [number, number][] = [
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
    [6, 32_000],
    [7, 60_000],
    [50, 60_000],
    [5000, 60_000],
  ];
  for (const [round, ms] of table) assert.equal(backoffDelayMs(round, schedule, none), ms, `round ${round}`);
  assert.equal(backoffDelayMs(3, schedule, () => 1), 2_000, 'jitter 0.5 at random 1 halves');
  assert.equal(backoffDelayMs(3, schedule, () => 0.5), 3_000);
  assert.equal(backoffDelayMs(3, { ...schedule, jitter: 1 }, () => 1), 0, 'full jitter reaches 0');
  assert.equal(backoffDelayMs(3, { ...schedule, jitter: 0 }, () => 0.9), 4_000, 'no jitter ignores random');
  assert.equal(backoffDelayMs(0, schedule, none), 1_000, 'round 0 is treated as the first');
  for (let i = 0; i < 200; i++) {
    const d = backoffDelayMs(4, schedule, Math.random);
    assert.ok(d >= 4_000 && d <= 8_000, `${d} within [d/2, d]`);
  }
});

test('formatDuration', () => {
  assert.equal(formatDuration(14_400_000), '4 h');
  assert.equal(formatDuration(60_000), '1 min');
  assert.equal(formatDuration(90_000), '1 min 30 s');
  assert.equal(formatDuration(3_723_000), '1 h 2 min 3 s');
  assert.equal(formatDuration(500), '500 ms');
});

const T0 = 1_000_000;
const base = { firstAttemptAt: T0, now: T0, round: 1, schedule, random: (): number => 0 };

test('any success ends the delivery, even when other URLs failed', () => {
  assert.deepEqual(decideAfterRound({ ...base, results: [http('a', 500), http('b', 200), failed('c', 'tls')] }), { outcome: 'succeeded' });
});

test('only permanent failures: failed, naming each URL and why', () => {
  const d = decideAfterRound({ ...base, results: [http('https://a/hook', 404, { errorText: 'HTTP 404 Not Found' }), failed('https://b/hook', 'tls', 'self-signed certificate refused; request not sent')] });
  assert.equal(d.outcome, 'failed');
  assert.ok(d.outcome === 'failed');
  assert.match(d.reason, /permanent/);
  assert.match(d.reason, /https:\/\/a\/hook \(HTTP 404 Not Found\)/);
  assert.match(d.reason, /https:\/\/b\/hook \(tls: self-signed certificate refused; request not sent\)/);
});

test('mixed permanent and retryable: retry only the retryable URLs, say which were dropped', () => {
  const d = decideAfterRound({ ...base, round: 2, results: [http('a', 400), http('b', 503), failed('c', 'timeout', 'no complete response within 5000 ms'), http('d', 302)] });
  assert.equal(d.outcome, 'retry');
  assert.ok(d.outcome === 'retry');
  assert.deepEqual(d.urls, ['b', 'c']);
  assert.equal(d.at, T0 + 2_000);
  assert.match(d.reason, /round 2 failed: b \(HTTP 503\); c \(timeout: no complete response within 5000 ms\); retrying in 2 s/);
  assert.match(d.reason, /not retrying a \(HTTP 400\); d \(HTTP 302\)/);
});

test('Retry-After is honoured when longer than the backoff and bounded by maxRetryAfterMs', () => {
  const asked = decideAfterRound({ ...base, results: [http('a', 429, { retryAfterMs: 7_000 })] });
  assert.ok(asked.outcome === 'retry');
  assert.equal(asked.at, T0 + 7_000);
  assert.match(asked.reason, /Retry-After 7 s/);

  const bounded = decideAfterRound({ ...base, results: [http('a', 503, { retryAfterMs: 3_600_000 })] });
  assert.ok(bounded.outcome === 'retry');
  assert.equal(bounded.at, T0 + 30_000);

  const shorter = decideAfterRound({ ...base, round: 4, results: [http('a', 429, { retryAfterMs: 1_000 })] });
  assert.ok(shorter.outcome === 'retry');
  assert.equal(shorter.at, T0 + 8_000, 'the backoff wins when it is longer');

  const fromPermanent = decideAfterRound({ ...base, results: [http('a', 500), http('b', 404, { retryAfterMs: 20_000 })] });
  assert.ok(fromPermanent.outcome === 'retry');
  assert.equal(fromPermanent.at, T0 + 1_000, 'a permanent failure does not delay the others');
});

test('the retry window: a retry landing exactly on its end is allowed, one ms later is not', () => {
  const window = 4 * 60 * 60 * 1000;
  const exact = decideAfterRound({ ...base, now: T0 + window - 1_000, results: [http('a', 500)] });
  assert.ok(exact.outcome === 'retry');
  assert.equal(exact.at, T0 + window);

  const past = decideAfterRound({ ...base, now: T0 + window - 999, results: [http('a', 500)] });
  assert.ok(past.outcome === 'failed');
  assert.match(past.reason, /retry window of 4 h \(14400000 ms\)/);
  assert.match(past.reason, /exhausted/);
  assert.match(past.reason, /a \(HTTP 500\)/);
});

test('the short preset gives up after its one-minute window', () => {
  const d = decideAfterRound({ ...base, schedule: RETRY_PRESETS.short, now: T0 + 59_800, results: [failed('a', 'connect', 'connection refused')] });
  assert.ok(d.outcome === 'failed');
  assert.match(d.reason, /retry window of 1 min \(60000 ms\)/);
});

test('a whole retry life under the standard preset stays inside 4 hours and keeps retrying until then', () => {
  let now = T0;
  let round = 1;
  let last = decideAfterRound({ ...base, schedule: RETRY_PRESETS.standard, random: Math.random, results: [http('a', 500)] });
  while (last.outcome === 'retry') {
    assert.ok(last.at > now && last.at <= T0 + RETRY_PRESETS.standard.retryWindowMs);
    now = last.at;
    round++;
    last = decideAfterRound({ ...base, schedule: RETRY_PRESETS.standard, random: Math.random, now, round, results: [http('a', 500)] });
  }
  assert.equal(last.outcome, 'failed');
  assert.ok(round > 20, `${round} rounds`);
  assert.ok(now > T0 + RETRY_PRESETS.standard.retryWindowMs - RETRY_PRESETS.standard.maxDelayMs);
});

/** Every round fails with a 500 at the moment its retry was due; returns the rounds and the last decision. */
function wholeLife(s: RetrySchedule, warp: number, random: () => number): { rounds: number; lastAt: number; last: ReturnType<typeof decideAfterRound> } {
  let now = T0;
  let round = 1;
  let last = decideAfterRound({ ...base, schedule: s, random, warp, results: [http('a', 500)] });
  while (last.outcome === 'retry') {
    now = last.at;
    round++;
    last = decideAfterRound({ ...base, schedule: s, random, warp, now, round, results: [http('a', 500)] });
  }
  return { rounds: round, lastAt: now, last };
}

test('time-warp: the same rounds as the real schedule, in a fraction of the time', () => {
  for (const warp of [60, 240, 1440, 3600]) {
    for (const random of [() => 0, () => 0.5]) {
      const real = wholeLife(RETRY_PRESETS.standard, 1, random);
      const warped = wholeLife(RETRY_PRESETS.standard, warp, random);
      assert.equal(warped.rounds, real.rounds, `×${warp}: as many rounds as in real time`);
      assert.ok(warped.lastAt - T0 <= RETRY_PRESETS.standard.retryWindowMs / warp, `×${warp}: the last round inside the compressed window`);
      assert.ok(warped.lastAt - T0 > (real.lastAt - T0) / warp - real.rounds, `×${warp}: each wait is the real one divided, give or take a rounded ms`);
    }
  }
  const oneMinute = wholeLife(RETRY_PRESETS.standard, 240, () => 0);
  assert.ok(oneMinute.lastAt - T0 <= 60_000 && oneMinute.lastAt - T0 > 55_000, `×240 runs the 4-hour window in about a minute (${oneMinute.lastAt - T0} ms)`);
});

test('time-warp: the wait is divided, the decision says so, and Retry-After is compressed too', () => {
  const d = decideAfterRound({ ...base, round: 3, warp: 240, results: [http('a', 500)] });
  assert.ok(d.outcome === 'retry');
  assert.equal(d.at, T0 + Math.round(4_000 / 240));
  assert.deepEqual(d.decision.code === 'retry' && [d.decision.delayMs, d.decision.warp], [17, 240]);
  assert.match(d.reason, /retrying in 17 ms \(warped ×240: 4 s on the real schedule\)/);

  const asked = decideAfterRound({ ...base, warp: 240, results: [http('a', 429, { retryAfterMs: 24_000 })] });
  assert.ok(asked.outcome === 'retry');
  assert.equal(asked.at, T0 + 100, "the receiver's 24 s becomes 100 ms");

  // The window is counted in the schedule's time: 4 h is 60 s of real time at ×240, and the 1 s
  // backoff of round 1 is 4.17 ms of it.
  const end = decideAfterRound({ ...base, warp: 240, now: T0 + 60_000 - 5, results: [http('a', 500)] });
  assert.ok(end.outcome === 'retry', 'a retry landing inside the compressed end is allowed');
  const past = decideAfterRound({ ...base, warp: 240, now: T0 + 60_000 - 4, results: [http('a', 500)] });
  assert.ok(past.outcome === 'failed');
  assert.match(past.reason, /retry window of 4 h \(14400000 ms\) \(warped ×240: 1 min of real time\)/);

  const real = decideAfterRound({ ...base, round: 3, results: [http('a', 500)] });
  assert.ok(real.outcome === 'retry' && real.decision.code === 'retry');
  assert.equal(real.decision.warp, undefined, 'a real-time decision carries no warp');
  assert.equal(decideAfterRound({ ...base, round: 3, warp: 0, results: [http('a', 500)] }).outcome === 'retry' && real.at, T0 + 4_000, 'a factor below 1 is real time');
});
