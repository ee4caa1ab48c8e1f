/**
 * How much of a refused Tracking API call the log keeps. A refused call costs the caller nothing,
 * so without these bounds a client in a loop (or a hostile one sending a huge write key that the
 * error text echoes) could fill the disk. Pure: the log store applies the decisions.
 */

/** Longest kept texts, in characters: the error text (which may echo the write key), the user agent, the path. */
export const REFUSED_TEXT_LIMITS = { errorText: 1024, userAgent: 256, path: 256 } as const;
/** Refused calls stored one by one per second of the clock; the rest of that second is counted in one summary row. */
export const REFUSED_ROWS_PER_SECOND = 20;
export const SUMMARY_CODE = 'refused_summarized';

/** The text cut to max characters, saying how much was left out. */
export function clip(text: string | null, max: number): string | null {
  if (text === null || text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters not stored)`;
}

/** A body's text cut to max characters, and whether it was cut (the caller stores the flag beside it). */
export function clipBody(text: string, max: number): { body: string; clipped: boolean } {
  return text.length <= max ? { body: text, clipped: false } : { body: text.slice(0, max), clipped: true };
}

/** A value to echo inside an error message: short ones whole, long ones by their start and length. */
export function echo(value: string, max = 64): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length} characters)`;
}

export interface RefusedWindow {
  /** The clock's second (ms / 1000, floored) this window counts. */
  second: number;
  /** Rows stored one by one in it. */
  stored: number;
  /** The summary row of this second, once there is one. */
  summaryId: number | null;
  /** Calls counted in that summary. */
  summarized: number;
}

export type RefusedDecision = { store: 'row' } | { store: 'new_summary' } | { store: 'add_to_summary'; summaryId: number };

/** What to do with a refused call received at `now`, and the window after it (the summary id is set by the caller). */
export function decideRefused(window: RefusedWindow | null, now: number, perSecond = REFUSED_ROWS_PER_SECOND): { decision: RefusedDecision; window: RefusedWindow } {
  // A call is stamped when its request starts but recorded once its body is read, so a slow body
  // from the second before can come after the window moved on: it counts in the current window,
  // since starting that second's window again would let it store another full set of rows.
  const second = Math.floor(now / 1000);
  if (window && second <= window.second) return decideIn(window, perSecond);
  return decideIn({ second, stored: 0, summaryId: null, summarized: 0 }, perSecond);
}

function decideIn(w: RefusedWindow, perSecond: number): { decision: RefusedDecision; window: RefusedWindow } {
  if (w.stored < perSecond) return { decision: { store: 'row' }, window: { ...w, stored: w.stored + 1 } };
  if (w.summaryId === null) return { decision: { store: 'new_summary' }, window: { ...w, summarized: 1 } };
  return { decision: { store: 'add_to_summary', summaryId: w.summaryId }, window: { ...w, summarized: w.summarized + 1 } };
}

export function summaryText(count: number, last: { httpStatus: number; errorCode: string | null; path: string }): string {
  return `${count} more refused ${count === 1 ? 'call' : 'calls'} in this second, counted here instead of stored one by one (at most ${REFUSED_ROWS_PER_SECOND} a second are); the last: ${last.httpStatus} ${last.errorCode ?? ''} on ${last.path}`;
}
