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
  /** Calls fn once the clock has advanced by ms. Never keeps the process alive on its own. */
  setTimer(fn: () => void, ms: number): ClockTimer;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    // Node's timers can be unref'd; a browser's are plain numbers.
    (handle as { unref?: () => void }).unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};
