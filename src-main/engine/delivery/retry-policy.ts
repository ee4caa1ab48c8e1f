/**
 * The retry decision. Pure: time and randomness come in
 * as arguments so every outcome can be pinned in a table test.
 */
import type { RetrySchedule } from '../../../src-shared/settings';
import {
  decisionText,
  describeOutcome,
  formatDuration,
  type AttemptFailure,
  type AttemptOutcome,
  type DeliveryDecision,
} from '../../../src-shared/delivery-outcomes';
import type { AttemptResult, AttemptVerdict, ErrorKind, RetryDecision } from './types';

/** Failures that no amount of waiting fixes: a certificate problem or a redirect we will not follow. */
const PERMANENT_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['tls', 'redirect']);

/** 408 and 429 are 4xx but say "try again later"; every other 4xx says the request itself is wrong. */
const RETRYABLE_4XX: ReadonlySet<number> = new Set([408, 429]);

export function classifyAttempt(r: AttemptResult): AttemptVerdict {
  // The status alone is not enough: a 200 whose body never finished arriving is a timeout.
  if (r.errorKind === null && r.status !== null && r.status >= 200 && r.status < 300) return 'success';
  if (r.errorKind !== null && r.errorKind !== 'http') {
    return PERMANENT_KINDS.has(r.errorKind) ? 'permanent' : 'retryable';
  }
  const status = r.status;
  if (status === null) return 'retryable';
  if (status >= 500 || RETRYABLE_4XX.has(status)) return 'retryable';
  return 'permanent';
}

/**
 * Delay before the retry that follows round `round` (1 = the first round): baseDelayMs doubling per
 * round, capped at maxDelayMs, then shortened by up to `jitter` of itself so that many deliveries
 * failing together do not return together.
 */
export function backoffDelayMs(round: number, schedule: RetrySchedule, random: () => number): number {
  const exponent = Math.max(0, Math.floor(round) - 1);
  // 2 ** exponent overflows to Infinity for huge rounds, which the cap absorbs.
  const capped = Math.min(schedule.baseDelayMs * 2 ** exponent, schedule.maxDelayMs);
  const jitter = Math.min(1, Math.max(0, schedule.jitter));
  const r = Math.min(1, Math.max(0, random()));
  return Math.round(capped * (1 - jitter * r));
}

/** Kept here too for the policy's readers; the words live with the decisions. */
export { formatDuration };

/** The attempt's failure as data; a result built without one (by hand, in a test) is known by its words. */
export function failureOf(r: AttemptResult): AttemptFailure | null {
  if (r.failure !== undefined) return r.failure;
  if (r.errorKind === null && r.errorText === null) return null;
  return { kind: 'recorded', errorKind: r.errorKind, status: r.status, text: r.errorText };
}

function outcomeOf(r: AttemptResult): AttemptOutcome {
  return { url: r.url, status: r.status, failure: failureOf(r) };
}

/** One attempt's outcome in plain words, e.g. "503", "timeout: no complete response within 5000 ms". */
export function describeAttempt(r: AttemptResult): string {
  return describeOutcome(outcomeOf(r));
}

export interface RoundInput {
  /** Every attempt of the round just finished, one per URL. */
  results: AttemptResult[];
  /** Clock time of the delivery's very first attempt: the retry window starts there. */
  firstAttemptAt: number;
  now: number;
  /** The round just finished, 1 for the first. */
  round: number;
  schedule: RetrySchedule;
  random: () => number;
}

export function decideAfterRound(input: RoundInput): RetryDecision {
  const decision = decide(input);
  if (decision === null) return { outcome: 'succeeded' };
  const reason = decisionText(decision);
  if (decision.code !== 'retry') return { outcome: 'failed', reason, decision };
  return { outcome: 'retry', at: input.now + decision.delayMs, urls: decision.failed.map((a) => a.url), reason, decision };
}

/** The decision after a round as data; null when the round succeeded. */
function decide(input: RoundInput): DeliveryDecision | null {
  const { results, firstAttemptAt, now, round, schedule, random } = input;
  if (results.some((r) => classifyAttempt(r) === 'success')) return null;
  if (results.length === 0) return { code: 'no_urls_tried' };

  const retryable = results.filter((r) => classifyAttempt(r) === 'retryable');
  if (retryable.length === 0) return { code: 'permanent', round, attempts: results.map(outcomeOf) };

  const backoff = backoffDelayMs(round, schedule, random);
  // A receiver asking for a pause is obeyed, but only up to the bound, so it cannot park a delivery.
  const askedFor = Math.max(0, ...retryable.map((r) => r.retryAfterMs ?? 0));
  const honoured = Math.min(askedFor, schedule.maxRetryAfterMs);
  const delay = Math.max(backoff, honoured);
  const windowEnd = firstAttemptAt + schedule.retryWindowMs;
  if (now + delay > windowEnd) {
    return { code: 'window_exhausted', round, retryWindowMs: schedule.retryWindowMs, attempts: results.map(outcomeOf) };
  }
  return {
    code: 'retry',
    round,
    delayMs: delay,
    retryAfterMs: honoured > backoff ? honoured : null,
    failed: retryable.map(outcomeOf),
    notRetried: results.filter((r) => classifyAttempt(r) === 'permanent').map(outcomeOf),
  };
}
