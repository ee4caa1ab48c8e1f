/**
 * The retry decision (wire-facts 19; DESIGN.md "Delivery rules"). Pure: time and randomness come in
 * as arguments so every outcome can be pinned in a table test.
 */
import type { RetrySchedule } from '../../../src-shared/settings';
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

/** "4 h", "1 min 30 s", "500 ms": windows and delays in the words a person reads them in. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  if (h > 0) parts.push(`${h} h`);
  if (m > 0) parts.push(`${m} min`);
  if (s > 0) parts.push(`${s} s`);
  return parts.join(' ');
}

/** One attempt's outcome in plain words, e.g. "503", "timeout: no complete response within 5000 ms". */
export function describeAttempt(r: AttemptResult): string {
  // The sender's texts for statuses already say what happened ("HTTP 503 …", "redirect (302 Found) …").
  if (r.errorKind === 'http' || r.errorKind === 'redirect' || (r.errorKind === null && r.status !== null)) {
    return r.errorText ?? `HTTP ${r.status}`;
  }
  const what = r.errorText ?? 'no details';
  return r.errorKind === null ? what : `${r.errorKind}: ${what}`;
}

function listAttempts(results: AttemptResult[]): string {
  return results.map((r) => `${r.url} (${describeAttempt(r)})`).join('; ');
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
  const { results, firstAttemptAt, now, round, schedule, random } = input;
  if (results.some((r) => classifyAttempt(r) === 'success')) return { outcome: 'succeeded' };
  if (results.length === 0) return { outcome: 'failed', reason: 'no webhook URL was tried' };

  const retryable = results.filter((r) => classifyAttempt(r) === 'retryable');
  if (retryable.length === 0) {
    return { outcome: 'failed', reason: `not retried, the failure is permanent: ${listAttempts(results)}` };
  }

  const backoff = backoffDelayMs(round, schedule, random);
  // A receiver asking for a pause is obeyed, but only up to the bound, so it cannot park a delivery.
  const askedFor = Math.max(0, ...retryable.map((r) => r.retryAfterMs ?? 0));
  const honoured = Math.min(askedFor, schedule.maxRetryAfterMs);
  const delay = Math.max(backoff, honoured);
  const at = now + delay;
  const windowEnd = firstAttemptAt + schedule.retryWindowMs;
  if (at > windowEnd) {
    return {
      outcome: 'failed',
      reason:
        `gave up: the retry window of ${formatDuration(schedule.retryWindowMs)} (${schedule.retryWindowMs} ms) ` +
        `after the first attempt is exhausted; last round: ${listAttempts(results)}`,
    };
  }
  const because = honoured > backoff ? ` as the receiver asked (Retry-After ${formatDuration(honoured)})` : '';
  const permanent = results.filter((r) => classifyAttempt(r) === 'permanent');
  const dropped = permanent.length > 0 ? `; not retrying ${listAttempts(permanent)}` : '';
  return {
    outcome: 'retry',
    at,
    urls: retryable.map((r) => r.url),
    reason: `round ${round} failed: ${listAttempts(retryable)}; retrying in ${formatDuration(delay)}${because}${dropped}`,
  };
}
