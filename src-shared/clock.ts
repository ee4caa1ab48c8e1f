/**
 * Time as the engine and the client library see it. Everything time-dependent (timeouts, retry
 * schedule, dedupe window, flush timers) reads this instead of Date/setTimeout, so tests move time
 * instead of sleeping and the UI can warp a 4-hour retry life into seconds.
 */
export interface ClockTimer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  /**
   * Calls fn once the clock has advanced by ms, or by MAX_TIMER_MS when ms is longer (the caller
   * checks what is due and sets another). Never keeps the process alive on its own.
   */
  setTimer(fn: () => void, ms: number): ClockTimer;
}

/**
 * The longest delay a JavaScript timer holds (2^31 - 1 ms, about 24.8 days): setTimeout runs a
 * longer one after 1 ms instead, so a caller re-arming for a far deadline would spin.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Pure: the delay a timer for ms is actually set for: never negative, never past MAX_TIMER_MS.
 * A timer due later fires early, once per MAX_TIMER_MS; its callers check what is due when woken.
 */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, timerDelay(ms));
    // Node's timers can be unref'd; a browser's are plain numbers.
    (handle as { unref?: () => void }).unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};
