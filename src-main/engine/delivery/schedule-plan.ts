/**
 * A delivery's whole retry life as a plan: the rounds already sent, the one due next, the rounds the
 * retry policy would send after it if every one failed, and where the retry window ends. Pure: it
 * reads the delivery and the policy's own backoff, so the plan and the scheduler cannot disagree.
 */
import type { RetrySchedule } from '../../../src-shared/settings';
import { parseRecord, type DeliveryDecision } from '../../../src-shared/delivery-outcomes';
import { backoffDelayMs, realDelayMs, scheduleElapsedMs, warpFactor } from './retry-policy';

export type PlanRoundState = 'sent' | 'in_flight' | 'next' | 'planned';

export interface PlanRound {
  round: number;
  /** Real clock time (ms): when it started, or when it is due. */
  at: number;
  state: PlanRoundState;
  /** What came back, for a sent round: "200", "500", "timeout", several URLs joined by " / ". */
  outcome: string | null;
  succeeded: boolean;
}

export interface SchedulePlan {
  warp: number;
  /** The retry window on the schedule's own clock (4 h with the standard preset). */
  windowMs: number;
  /**
   * Where the window starts and ends in real time (compressed under a warp); null before anything is
   * due, and once the delivery ended some other way than by the window (delivered, refused for good).
   */
  windowStartsAt: number | null;
  windowEndsAt: number | null;
  rounds: PlanRound[];
  /** Planned rounds are shown at their latest: jitter only ever brings a retry earlier. */
  plannedAreLatest: boolean;
  /** More planned rounds exist than were listed. */
  truncated: boolean;
}

export interface PlanAttempt {
  round: number;
  started_at: number;
  state: 'in_flight' | 'done' | 'interrupted';
  verdict: string | null;
  http_status: number | null;
  error_kind: string | null;
}

export interface PlanDelivery {
  status: 'pending' | 'in_flight' | 'succeeded' | 'retrying' | 'failed' | 'discarded';
  warp: number;
  rounds: number;
  first_attempt_at: number | null;
  next_attempt_at: number | null;
  /** The stored decision (JSON), to tell a delivery the window ended from one that ended otherwise. */
  decision?: string | null;
}

/** The window matters while the delivery may still retry, and for one the window ended. */
function windowMatters(d: PlanDelivery): boolean {
  if (d.status === 'pending' || d.status === 'retrying' || d.status === 'in_flight') return true;
  return d.status === 'failed' && parseRecord<DeliveryDecision>(d.decision, 'code')?.code === 'window_exhausted';
}

/** Enough rows for the standard preset's whole window without jitter (about 33 rounds). */
export const MAX_PLANNED_ROUNDS = 60;

function outcomeOf(attempts: PlanAttempt[]): { outcome: string | null; succeeded: boolean } {
  const done = attempts.filter((a) => a.state !== 'in_flight');
  if (done.length === 0) return { outcome: null, succeeded: false };
  const words = done.map((a) => (a.state === 'interrupted' ? 'interrupted' : a.http_status !== null && a.error_kind !== 'timeout' ? String(a.http_status) : (a.error_kind ?? 'no response')));
  return { outcome: [...new Set(words)].join(' / '), succeeded: done.some((a) => a.verdict === 'success') };
}

/**
 * The plan. Planned rounds assume each round fails in a way worth retrying and takes no time, and
 * use the longest backoff (no jitter); a receiver's Retry-After or a slow answer moves them later.
 */
export function planSchedule(d: PlanDelivery, attempts: PlanAttempt[], schedule: RetrySchedule, maxPlanned = MAX_PLANNED_ROUNDS): SchedulePlan {
  const warp = warpFactor(d.warp);
  const byRound = new Map<number, PlanAttempt[]>();
  for (const a of attempts) byRound.set(a.round, [...(byRound.get(a.round) ?? []), a]);
  const rounds: PlanRound[] = [...byRound.entries()]
    .sort(([a], [b]) => a - b)
    .map(([round, list]) => ({
      round,
      at: Math.min(...list.map((a) => a.started_at)),
      state: list.some((a) => a.state === 'in_flight') ? 'in_flight' : 'sent',
      ...outcomeOf(list),
    }));

  // Where the schedule goes on from: the round due next, or the round on the wire now.
  let from: { round: number; at: number } | null = null;
  if ((d.status === 'pending' || d.status === 'retrying') && d.next_attempt_at !== null) {
    from = { round: d.rounds + 1, at: d.next_attempt_at };
    rounds.push({ round: from.round, at: from.at, state: 'next', outcome: null, succeeded: false });
  } else if (d.status === 'in_flight') {
    const flying = rounds.find((r) => r.state === 'in_flight');
    if (flying) from = { round: flying.round, at: flying.at };
  }

  const first = d.first_attempt_at ?? (from && from.round === 1 ? from.at : null);
  const windowEndsAt = first === null || !windowMatters(d) ? null : first + realDelayMs(schedule.retryWindowMs, warp);
  let truncated = false;
  if (from && first !== null) {
    let { round, at } = from;
    for (let n = 0; ; n++) {
      const delay = backoffDelayMs(round, schedule, () => 0);
      // The same test the policy makes after a failed round, in the schedule's own time.
      if (scheduleElapsedMs(at - first, warp) + delay > schedule.retryWindowMs) break;
      if (n >= maxPlanned) {
        truncated = true;
        break;
      }
      round += 1;
      at += realDelayMs(delay, warp);
      rounds.push({ round, at, state: 'planned', outcome: null, succeeded: false });
    }
  }
  return {
    warp,
    windowMs: schedule.retryWindowMs,
    windowStartsAt: windowEndsAt === null ? null : first,
    windowEndsAt,
    rounds,
    plannedAreLatest: schedule.jitter > 0,
    truncated,
  };
}
