/**
 * A delivery's detail (Inspect): the stored row and its attempts, plus what a person needs
 * to read them: the signature checked by the destination's signer against the stored bytes, the
 * next step in plain words, and the original body beside an edited replay. nextStepOf is pure; the query at
 * the bottom is the thin shell that reads the rows.
 */
import type { DeliveryDetail, DeliverySchedule } from '../../../src-shared/api';
import type { SchedulePlan } from '../delivery/schedule-plan';
import { toIso } from '../ingest/timestamps';
import type { DeliverySettings } from '../../../src-shared/settings';
import type { Engine } from '../index';
import {
  describeFailure,
  formatDuration,
  notSentText,
  parseRecord,
  permanentReason as permanentWords,
  type DeliveryDecision,
} from '../../../src-shared/delivery-outcomes';
import { signerFor } from '../delivery/signers';
import { realDelayMs, warpFactor } from '../delivery/retry-policy';
import { planSchedule } from '../delivery/schedule-plan';
import type { AttemptRow, DeliveryRow } from '../store/log-store';
import { isoOrNull, parseOr, recordedFailure, toAttempt, toSummary } from './views';

export { checkSignature, headerValue } from '../delivery/signature';

/** The columns of a delivery row the next-step sentence reads. */
export type NextStepRow = Pick<
  DeliveryRow,
  'status' | 'next_attempt_at' | 'rounds' | 'first_attempt_at' | 'last_error' | 'last_http_status' | 'pending_urls' | 'decision'
> &
  Partial<Pick<DeliveryRow, 'warp'>>;
export type NextStepAttempt = Pick<
  AttemptRow,
  'round' | 'url' | 'started_at' | 'state' | 'verdict' | 'http_status' | 'error_kind' | 'error_text' | 'failure'
>;

export interface NextStepContext {
  /** The engine clock's now (time-warp included), for "in 12 s". */
  now: number;
  /** The settings the next round will be decided with: the scheduler reads them anew each round. */
  settings: DeliverySettings;
  /** IANA zone for clock times; the process's local zone when absent (the UI shows local times too). */
  timeZone?: string;
}

function clockTime(ms: number, ctx: NextStepContext): string {
  const parts = (at: number): Record<string, string> =>
    Object.fromEntries(
      new Intl.DateTimeFormat('en-CA', {
        timeZone: ctx.timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      })
        .formatToParts(at)
        .map((p) => [p.type, p.value]),
    );
  const p = parts(ms);
  const today = parts(ctx.now);
  const time = `${p.hour}:${p.minute}:${p.second}`;
  // A time on another day than today would be misread without its date (4 h windows cross midnight).
  return p.year === today.year && p.month === today.month && p.day === today.day ? time : `${p.year}-${p.month}-${p.day} ${time}`;
}

function due(at: number, ctx: NextStepContext): string {
  const wait = at - ctx.now;
  return wait > 0 ? `at ${clockTime(at, ctx)} (in ${formatDuration(wait)})` : `now (due since ${clockTime(at, ctx)})`;
}

/** The attempts of the delivery's last finished round. */
function lastRound(attempts: NextStepAttempt[]): NextStepAttempt[] {
  const done = attempts.filter((a) => a.state !== 'in_flight');
  const round = Math.max(0, ...done.map((a) => a.round));
  return done.filter((a) => a.round === round);
}


/** One failed attempt in a few words, e.g. "HTTP 500 Internal Server Error", "timeout: no complete response within 300 ms". */
function failureOf(a: NextStepAttempt): string {
  const failure = recordedFailure(a);
  if (failure) return describeFailure(failure);
  return a.http_status === null ? 'no response' : `HTTP ${a.http_status}`;
}

function permanentReason(a: NextStepAttempt): string {
  return permanentWords(a.http_status, recordedFailure(a));
}

function withUrls(attempts: NextStepAttempt[], say: (a: NextStepAttempt) => string): string {
  return attempts.map((a) => (attempts.length > 1 ? `${a.url}: ${say(a)}` : say(a))).join('; ');
}


/** When the next round is due, or why there will be none, in one sentence. Pure. */
export function nextStepOf(row: NextStepRow, attempts: NextStepAttempt[], ctx: NextStepContext): string {
  const next = row.rounds + 1;
  switch (row.status) {
    case 'pending':
      if (row.next_attempt_at === null) return `waiting to be scheduled, round ${next}`;
      return `next attempt ${due(row.next_attempt_at, ctx)}, round ${next}`;
    case 'retrying': {
      if (row.next_attempt_at === null) return `waiting to be scheduled, round ${next}`;
      let sentence = `next attempt ${due(row.next_attempt_at, ctx)}, round ${next}`;
      const pending = parseOr<string[] | null>(row.pending_urls, null);
      const tried = new Set(lastRound(attempts).map((a) => a.url));
      if (pending && pending.length < tried.size) sentence += `, only to ${pending.join(', ')} (the other URLs failed permanently)`;
      if (row.first_attempt_at !== null) {
        const warp = warpFactor(row.warp);
        const end = row.first_attempt_at + realDelayMs(ctx.settings.retryWindowMs, warp);
        const span = warp > 1 ? `the ${formatDuration(ctx.settings.retryWindowMs)} window warped ×${warp}: ${formatDuration(end - row.first_attempt_at)}` : formatDuration(ctx.settings.retryWindowMs);
        sentence += `; no retry after ${clockTime(end, ctx)} (${span} after the first attempt)`;
      }
      return sentence;
    }
    case 'in_flight': {
      const flying = attempts.filter((a) => a.state === 'in_flight');
      const since = flying.length > 0 ? ` since ${clockTime(Math.min(...flying.map((a) => a.started_at)), ctx)}` : '';
      return `round ${row.rounds} in flight${since}, waiting up to ${formatDuration(ctx.settings.timeoutMs)} for the receiver`;
    }
    case 'succeeded': {
      const round = lastRound(attempts);
      const won = round.find((a) => a.verdict === 'success');
      if (!won) return `delivered${row.last_http_status === null ? '' : `: ${row.last_http_status}`}`;
      const inRound = won.round > 1 ? ` in round ${won.round}` : '';
      const others = round.length > 1 ? '; the other URLs are not retried once one succeeds' : '';
      return `delivered: ${won.http_status} from ${won.url}${inRound}${others}`;
    }
    case 'failed': {
      const round = lastRound(attempts);
      if (round.length === 0) return `failed: ${row.last_error ?? 'no webhook URL was tried'}`;
      const retryable = round.filter((a) => a.verdict === 'retryable');
      if (retryable.length === 0) return `not retried: ${withUrls(round, permanentReason)}`;
      // Something was still worth retrying, so the retry window is what ended it; its length is read
      // from the recorded decision, since the settings may have changed since.
      const decision = parseRecord<DeliveryDecision>(row.decision, 'code');
      if (decision?.code !== 'window_exhausted' || row.first_attempt_at === null) return `failed: ${row.last_error ?? withUrls(round, failureOf)}`;
      const windowMs = decision.retryWindowMs;
      const warp = warpFactor(decision.warp);
      const end = row.first_attempt_at + realDelayMs(windowMs, warp);
      const warped = warp > 1 ? ` (warped ×${warp}: ${formatDuration(end - row.first_attempt_at)} of real time)` : '';
      return (
        `retries stopped: the ${formatDuration(windowMs)} retry window${warped} since the first attempt (${clockTime(row.first_attempt_at, ctx)}) ` +
        `ends at ${clockTime(end, ctx)}, before the next retry would have been due; round ${round[0]?.round} ended with ${withUrls(retryable, failureOf)}`
      );
    }
    case 'discarded': {
      const decision = parseRecord<DeliveryDecision>(row.decision, 'code');
      if (decision?.code === 'not_sent') return `discarded without sending: ${notSentText(decision.reason, decision.detail)}`;
      // A row written before decisions were kept: its last error says why.
      return row.last_error ? `discarded without sending (${row.last_error})` : 'discarded without sending';
    }
  }
}

/** The plan with its times as the contract gives them. Pure. */
export function scheduleOf(plan: SchedulePlan): DeliverySchedule {
  return {
    warp: plan.warp,
    windowMs: plan.windowMs,
    windowStart: isoOrNull(plan.windowStartsAt),
    windowEnd: isoOrNull(plan.windowEndsAt),
    rounds: plan.rounds.map((r) => ({ round: r.round, at: toIso(r.at), state: r.state, outcome: r.outcome, succeeded: r.succeeded })),
    plannedAreLatest: plan.plannedAreLatest,
    truncated: plan.truncated,
  };
}

/** Reads one delivery's detail; null when there is no delivery with that id. */
export function createDetailQuery(engine: Engine): (id: number) => DeliveryDetail | null {
  const { deliveryViews, log, config } = engine.stores;
  return (id) => {
    const row = deliveryViews.detail(id);
    if (!row) return null;
    const attempts = log.attemptsOf(row.id);
    const views = attempts.map(toAttempt);
    const destination = config.listDestinations().find((d) => d.id === row.destination_id);
    const last = views[views.length - 1];
    const original = row.edited === 1 && row.replay_of !== null ? deliveryViews.bodyOf(row.replay_of) : null;
    const settings = engine.deliverySettings();
    return {
      ...toSummary(row, deliveryViews.urlOutcomes([row.id]).get(row.id)),
      body: row.body === null ? null : row.body.toString('utf8'),
      targetUrl: row.target_url,
      edited: row.edited === 1,
      firstAttemptAt: isoOrNull(row.first_attempt_at),
      finishedAt: isoOrNull(row.finished_at),
      attempts: views,
      signature: signerFor(destination).check({
        body: row.body,
        secret: destination?.sharedSecret ?? null,
        sentHeaders: last ? last.requestHeaders : null,
      }),
      nextStep: nextStepOf(row, attempts, { now: engine.clock.now(), settings }),
      schedule: scheduleOf(planSchedule(row, attempts, settings)),
      originalBody: original === null ? null : original.toString('utf8'),
      destinationName: destination?.name ?? null,
    };
  };
}
