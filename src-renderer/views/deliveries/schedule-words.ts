/**
 * The schedule panel and the warp marks in plain words. Pure, so the table tests pin every line a
 * person reads: a warped time must never pass for a real one.
 */
import type { DeliverySchedule, ScheduleRound } from '../../../src-shared/api';
import { spanOf } from '../../shared/format';

/** The mark a warped delivery carries everywhere it is shown; null in real time. */
export function warpMark(warp: number): string | null {
  return warp > 1 ? `warped ×${warp}` : null;
}

/** The detail's warning line for a warped delivery. */
export function warpNotice(warp: number): string | null {
  return warp > 1 ? `warped ×${warp}: times are compressed. Each wait is ${warp} times shorter than the real schedule's; the attempt's timeout is not.` : null;
}

export interface ScheduleLine {
  kind: 'round' | 'window_end';
  key: string;
  round: number | null;
  at: string;
  /** "+4 ms" after the first attempt, in real time. */
  offset: string;
  /** Under a warp: the same offset on the real schedule, e.g. "≈ 1 s"; null in real time. */
  realOffset: string | null;
  /** sent, in flight, next, planned, window ends. */
  label: string;
  state: ScheduleRound['state'] | 'window_end';
  outcome: string | null;
  succeeded: boolean;
}

const ROUND_LABEL: Record<ScheduleRound['state'], string> = {
  sent: 'sent',
  in_flight: 'in flight',
  next: 'next',
  planned: 'planned',
};

function offsetOf(at: string, start: number | null): number | null {
  const ms = Date.parse(at);
  return start === null || Number.isNaN(ms) ? null : Math.max(0, ms - start);
}

/**
 * The rounds in time order with the window's end placed among them, each with how long after the
 * first attempt it falls: in real time, and, under a warp, what that is on the real schedule.
 */
export function scheduleLines(s: DeliverySchedule): ScheduleLine[] {
  // Counted from the first attempt: the window's start, or the first round when the window played no part.
  const firstAt = s.windowStart ?? s.rounds[0]?.at ?? null;
  const start = firstAt === null ? null : Date.parse(firstAt);
  const line = (at: string): Pick<ScheduleLine, 'offset' | 'realOffset'> => {
    const ms = offsetOf(at, start);
    if (ms === null) return { offset: '—', realOffset: null };
    return { offset: `+${spanOf(ms)}`, realOffset: s.warp > 1 ? `≈ +${spanOf(ms * s.warp)}` : null };
  };
  const lines: ScheduleLine[] = s.rounds.map((r) => ({
    kind: 'round',
    key: `r${r.round}`,
    round: r.round,
    at: r.at,
    ...line(r.at),
    label: ROUND_LABEL[r.state],
    state: r.state,
    outcome: r.outcome,
    succeeded: r.succeeded,
  }));
  if (s.windowEnd !== null) {
    const end: ScheduleLine = {
      kind: 'window_end',
      key: 'window-end',
      round: null,
      at: s.windowEnd,
      offset: start === null ? '—' : `+${spanOf(Date.parse(s.windowEnd) - start)}`,
      realOffset: s.warp > 1 ? `= +${spanOf(s.windowMs)}` : null,
      label: 'window ends',
      state: 'window_end',
      outcome: null,
      succeeded: false,
    };
    const after = lines.findIndex((l) => Date.parse(l.at) > Date.parse(end.at));
    lines.splice(after < 0 ? lines.length : after, 0, end);
  }
  return lines;
}

/** The sentence over the table. */
export function scheduleSummary(s: DeliverySchedule): string {
  const sent = s.rounds.filter((r) => r.state === 'sent' || r.state === 'in_flight').length;
  const planned = s.rounds.filter((r) => r.state === 'planned').length;
  const window = s.warp > 1 ? `the ${spanOf(s.windowMs)} retry window, warped ×${s.warp} to ${spanOf(Math.round(s.windowMs / s.warp))}` : `the ${spanOf(s.windowMs)} retry window`;
  const parts = [`${sent} round${sent === 1 ? '' : 's'} sent`];
  if (s.rounds.some((r) => r.state === 'next')) parts.push('1 next');
  if (planned > 0) parts.push(`${planned}${s.truncated ? '+' : ''} planned if every round fails`);
  // A delivery that ended some other way (delivered, refused for good) owes nothing to the window.
  return s.windowEnd === null ? `${parts.join(', ')}.` : `${parts.join(', ')}; ${window}.`;
}

/** Why planned times are what they are. */
export function plannedNote(s: DeliverySchedule): string | null {
  if (!s.rounds.some((r) => r.state === 'planned')) return null;
  return s.plannedAreLatest
    ? 'Planned times are the latest each retry can be: jitter may bring one earlier by up to half its wait, and a Retry-After or a slow answer later.'
    : 'Planned times assume each round fails at once; a Retry-After or a slow answer moves them later.';
}
