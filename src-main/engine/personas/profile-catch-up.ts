/**
 * Reads a backlog into the profiles (a log kept before commits extended them, or messages a commit
 * could not read in) a slice at a time between other work, so start-up, ingest and delivery never
 * wait for it. Each slice is sized from the last one's time to take about SLICE_TARGET_MS.
 */
import type { Clock, ClockTimer } from '../clock';

/** Messages in the first slice: about 5 ms at the measured 20-25 µs a message. */
export const FIRST_SLICE = 200;
export const SLICE_TARGET_MS = 5;
export const MIN_SLICE = 20;
export const MAX_SLICE = 5_000;

export interface ProfileCatchUp {
  /** Starts reading, unless already running. */
  start(): void;
  stop(): void;
  running(): boolean;
  /** Settles once nothing is left to read (at once when not running); rejects when stopped first. */
  done(): Promise<void>;
}

/** Pure: the next slice's size, from how long the last one took for how many messages. */
export function nextSliceSize(size: number, elapsedMs: number): number {
  if (!(elapsedMs > 0)) return Math.min(MAX_SLICE, size * 2);
  return Math.max(MIN_SLICE, Math.min(MAX_SLICE, Math.round((size * SLICE_TARGET_MS) / elapsedMs)));
}

export function createProfileCatchUp(deps: {
  /** Reads up to `max` messages in one transaction; true when none is left. */
  slice: (max: number) => boolean;
  /** A storage fault or another failure: reported by the caller; the catch-up tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  retryMs?: number;
  /** Where the time of a slice is read (milliseconds); performance.now by default. */
  elapsed?: () => number;
  /** Runs `fn` after the event loop has had a turn; setImmediate by default. */
  yieldTurn?: (fn: () => void) => () => void;
}): ProfileCatchUp {
  const timeNow = deps.elapsed ?? (() => performance.now());
  const yieldTurn =
    deps.yieldTurn ??
    ((fn: () => void) => {
      const handle = setImmediate(fn);
      return () => clearImmediate(handle);
    });
  let cancelNext: (() => void) | null = null;
  let retry: ClockTimer | null = null;
  let running = false;
  let size = FIRST_SLICE;
  let waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];

  const settle = (err: Error | null): void => {
    const list = waiters;
    waiters = [];
    for (const w of list) if (err === null) w.resolve();
    else w.reject(err);
  };
  const step = (): void => {
    cancelNext = null;
    retry = null;
    if (!running) return;
    try {
      const t = timeNow();
      const finished = deps.slice(size);
      size = nextSliceSize(size, timeNow() - t);
      if (finished) {
        running = false;
        settle(null);
        return;
      }
      cancelNext = yieldTurn(step);
    } catch (err) {
      deps.onError(err);
      retry = deps.clock.setTimer(step, deps.retryMs ?? 1_000);
    }
  };
  return {
    start() {
      if (running) return;
      running = true;
      cancelNext = yieldTurn(step);
    },
    stop() {
      running = false;
      cancelNext?.();
      retry?.cancel();
      cancelNext = null;
      retry = null;
      settle(new Error('the profiles catch-up stopped'));
    },
    running: () => running,
    done() {
      if (!running) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
  };
}
