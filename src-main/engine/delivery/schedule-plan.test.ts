import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RETRY_PRESETS, type RetrySchedule } from '../../../src-shared/settings';
import { decideAfterRound } from './retry-policy';
import { planSchedule, type PlanAttempt, type PlanDelivery } from './schedule-plan';
import type { AttemptResult } from './types';

const T0 = Date.UTC(2026, 10, 23, 12);
const fail500: AttemptResult = {
  url: 'http://r/hook',
  startedAt: 0,
  timings: { totalMs: 1 },
  status: 500,
  responseHeaders: {},
  responseBody: new Uint8Array(),
  responseBytes: 0,
  responseTruncated: false,
  errorKind: 'http',
  errorText: 'HTTP 500',
  retryAfterMs: null,
};

/** What the policy does when every round fails at once and jitter takes nothing off: the times of rounds 2, 3, … */
function policyTimes(schedule: RetrySchedule, warp: number, first: number, fromRound: number, fromAt: number): number[] {
  const times: number[] = [];
  let now = fromAt;
  for (let round = fromRound; ; round++) {
    const d = decideAfterRound({ results: [fail500], firstAttemptAt: first, now, round, schedule, random: () => 0, warp });
    if (d.outcome !== 'retry') return times;
    times.push(d.at);
    now = d.at;
  }
}

const attempt = (round: number, at: number, over: Partial<PlanAttempt> = {}): PlanAttempt => ({
  round,
  started_at: at,
  state: 'done',
  verdict: 'retryable',
  http_status: 500,
  error_kind: 'http',
  ...over,
});

test('a new delivery: its first round next, then every retry the policy would make, and where the window ends', () => {
  for (const [name, schedule] of Object.entries(RETRY_PRESETS)) {
    for (const warp of [1, 240]) {
      const d: PlanDelivery = { status: 'pending', warp, rounds: 0, first_attempt_at: null, next_attempt_at: T0 };
      const plan = planSchedule(d, [], schedule);
      assert.deepEqual(plan.rounds[0], { round: 1, at: T0, state: 'next', outcome: null, succeeded: false }, name);
      const planned = plan.rounds.slice(1);
      assert.ok(planned.every((r) => r.state === 'planned'));
      assert.deepEqual(planned.map((r) => r.at), policyTimes(schedule, warp, T0, 1, T0), `${name} ×${warp}: the plan is the policy's`);
      assert.deepEqual(planned.map((r) => r.round), planned.map((_r, i) => i + 2));
      assert.equal(plan.windowStartsAt, T0);
      assert.equal(plan.windowEndsAt, T0 + Math.round(schedule.retryWindowMs / warp));
      assert.ok(planned.every((r) => r.at <= (plan.windowEndsAt ?? 0)), 'nothing is planned past the window');
      assert.equal(plan.windowMs, schedule.retryWindowMs);
      assert.equal(plan.warp, warp);
      assert.equal(plan.plannedAreLatest, true);
    }
  }
  const standard = planSchedule({ status: 'pending', warp: 1, rounds: 0, first_attempt_at: null, next_attempt_at: T0 }, [], RETRY_PRESETS.standard);
  assert.equal(standard.rounds.length, 33, 'the standard preset: 33 rounds in 4 hours without jitter');
  assert.equal(standard.truncated, false);
});

test('a retrying delivery: the rounds sent with what came back, the next one, then the plan from there', () => {
  const schedule = RETRY_PRESETS.standard;
  const attempts = [
    attempt(1, T0, { http_status: 500 }),
    attempt(2, T0 + 1_000, { http_status: null, error_kind: 'timeout' }),
    attempt(2, T0 + 1_000, { url: 'x', http_status: 503 } as Partial<PlanAttempt>),
  ];
  const next = T0 + 3_000 + 4_000;
  const d: PlanDelivery = { status: 'retrying', warp: 1, rounds: 2, first_attempt_at: T0, next_attempt_at: next };
  const plan = planSchedule(d, attempts, schedule);
  assert.deepEqual(plan.rounds.slice(0, 3), [
    { round: 1, at: T0, state: 'sent', outcome: '500', succeeded: false },
    { round: 2, at: T0 + 1_000, state: 'sent', outcome: 'timeout / 503', succeeded: false },
    { round: 3, at: next, state: 'next', outcome: null, succeeded: false },
  ]);
  assert.deepEqual(plan.rounds.slice(3).map((r) => r.at), policyTimes(schedule, 1, T0, 3, next));
  assert.equal(plan.windowEndsAt, T0 + schedule.retryWindowMs);
});

test('a delivery sent now or already over has nothing planned; a round in flight plans from its start', () => {
  const schedule = RETRY_PRESETS.short;
  const flying = planSchedule({ status: 'in_flight', warp: 1, rounds: 2, first_attempt_at: T0, next_attempt_at: null }, [attempt(1, T0), attempt(2, T0 + 500, { state: 'in_flight', verdict: null, http_status: null, error_kind: null })], schedule);
  assert.deepEqual(flying.rounds[1], { round: 2, at: T0 + 500, state: 'in_flight', outcome: null, succeeded: false });
  assert.deepEqual(flying.rounds.slice(2).map((r) => r.at), policyTimes(schedule, 1, T0, 2, T0 + 500));

  const windowEnded = JSON.stringify({ code: 'window_exhausted', round: 2, retryWindowMs: 60_000, attempts: [], warp: 240 });
  const permanent = JSON.stringify({ code: 'permanent', round: 2, attempts: [] });
  for (const [status, decision, windowEnd] of [
    ['succeeded', null, null],
    ['failed', windowEnded, T0 + 250],
    ['failed', permanent, null],
    ['discarded', null, null],
  ] as const) {
    const over = planSchedule(
      { status, warp: 240, rounds: 2, first_attempt_at: T0, next_attempt_at: null, decision },
      [attempt(1, T0), attempt(2, T0 + 2, { verdict: status === 'succeeded' ? 'success' : 'retryable', http_status: status === 'succeeded' ? 200 : 500 })],
      schedule,
    );
    assert.deepEqual(over.rounds.map((r) => r.state), ['sent', 'sent'], status);
    assert.equal(over.rounds[1]?.succeeded, status === 'succeeded');
    // The one-minute window at ×240 ends 250 ms after the first attempt; shown only where it ended the delivery.
    assert.equal(over.windowEndsAt, windowEnd, `${status} ${decision ?? ''}`);
  }
  const never = planSchedule({ status: 'discarded', warp: 1, rounds: 0, first_attempt_at: null, next_attempt_at: null }, [], schedule);
  assert.deepEqual([never.rounds, never.windowStartsAt, never.windowEndsAt], [[], null, null]);
});

test('a long plan is cut, and says so', () => {
  const plan = planSchedule({ status: 'pending', warp: 1, rounds: 0, first_attempt_at: null, next_attempt_at: T0 }, [], RETRY_PRESETS.standard, 5);
  assert.equal(plan.rounds.filter((r) => r.state === 'planned').length, 5);
  assert.equal(plan.truncated, true);
});

test('property: for any schedule, warp and point in the life, the plan is exactly the policy without jitter', () => {
  fc.assert(
    fc.property(
      // Bounded to lives of at most a few hundred rounds, so each run stays quick.
      fc
        .record({
          baseDelayMs: fc.integer({ min: 1, max: 60_000 }),
          maxDelayMs: fc.integer({ min: 1_000, max: 3_600_000 }),
          jitter: fc.double({ min: 0, max: 1, noNaN: true }),
          windowInDelays: fc.integer({ min: 1, max: 200 }),
          maxRetryAfterMs: fc.integer({ min: 1, max: 600_000 }),
        })
        .map(({ windowInDelays, ...s }): RetrySchedule => ({ ...s, retryWindowMs: s.maxDelayMs * windowInDelays })),
      fc.constantFrom(1, 60, 240, 1440, 3600),
      fc.integer({ min: 0, max: 20 }),
      fc.integer({ min: 0, max: 3_600_000 }),
      (schedule, warp, rounds, sinceFirst) => {
        const next = T0 + Math.round(sinceFirst / warp);
        const d: PlanDelivery = { status: rounds === 0 ? 'pending' : 'retrying', warp, rounds, first_attempt_at: rounds === 0 ? null : T0, next_attempt_at: rounds === 0 ? T0 : next };
        const plan = planSchedule(d, [], schedule, 10_000);
        const from = rounds === 0 ? T0 : next;
        const planned = plan.rounds.filter((r) => r.state === 'planned').map((r) => r.at);
        assert.deepEqual(planned, policyTimes(schedule, warp, T0, rounds + 1, from));
      },
    ),
    { numRuns: 300 },
  );
});
