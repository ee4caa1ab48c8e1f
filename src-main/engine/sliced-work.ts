/**
 * Work done a slice at a time between other work (a backlog read into the profiles, a log indexed
 * for search), so start-up, ingest and delivery never wait for it: each slice is one short
 * transaction, the event loop gets a turn between slices, and a failed slice is reported and
 * tried again a moment later. How many items a slice takes is the caller's sizing.
 */
import type { Clock, ClockTimer } from './clock';

export interface SliceSizing {
  /** Items in the first slice. */
  first: number;
  /** The next slice's size, from how long the last one took (ms) for how many items. */
  next(size: number, elapsedMs: number): number;
}

/** The same size every time. */
export const fixedSlices = (size: number): SliceSizing => ({ first: size, next: () => size });

/** Slices sized from how long the last one took, so that each holds the thread about targetMs. */
export interface TimedSlices {
  first: number;
  min: number;
  max: number;
  targetMs: number;
}

/** Pure: the next slice's size from the last one's time; at most four times as large at once, within its bounds. */
export function nextTimedSize(s: TimedSlices, size: number, tookMs: number): number {
  const scaled = Math.round((size * s.targetMs) / Math.max(tookMs, 0.05));
  return Math.min(s.max, Math.max(s.min, Math.min(scaled, size * 4)));
}

export const timedSlices = (s: TimedSlices): SliceSizing => ({ first: s.first, next: (size, ms) => nextTimedSize(s, size, ms) });

/**
 * Runs `slice` (up to `max` items in one transaction; true when none is left) in slices sized by
 * their time, a turn of the event loop between them, until nothing is left: for a caller that
 * waits for work it would otherwise do at once.
 */
export async function untilDoneInSlices(slice: (max: number) => boolean, sizing: TimedSlices, elapsed: () => number = () => performance.now()): Promise<void> {
  let size = sizing.first;
  for (;;) {
    const t = elapsed();
    if (slice(size)) return;
    size = nextTimedSize(sizing, size, elapsed() - t);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface SlicedWork {
  /** Starts working, unless already running. */
  start(): void;
  stop(): void;
  running(): boolean;
  /** Settles once nothing is left (at once when not running); rejects when stopped first. */
  done(): Promise<void>;
}

export function createSlicedWork(deps: {
  /** Does up to `max` items in one transaction; true when none is left. */
  slice: (max: number) => boolean;
  sizing: SliceSizing;
  /** A storage fault or another failure: reported by the caller; the work tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  retryMs?: number;
  /** What `done()` rejects with when the work is stopped first. */
  stoppedMessage?: string;
  /** Where the time of a slice is read (milliseconds); performance.now by default. */
  elapsed?: () => number;
  /** Runs `fn` after the event loop has had a turn; setImmediate by default. */
  yieldTurn?: (fn: () => void) => () => void;
  /**
   * Awaited before each slice (its failure is ignored): work done elsewhere that makes the slice
   * cheaper, such as reading its rows on the read worker so their pages are in memory.
   */
  prepare?: (max: number) => Promise<void>;
  /** Each start begins at sizing.first again, rather than at the size the last run ended on. */
  resizeOnStart?: boolean;
}): SlicedWork {
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
  let size = deps.sizing.first;
  let waiters: { resolve: () => void; reject: (err: Error) => void }[] = [];

  const settle = (err: Error | null): void => {
    const list = waiters;
    waiters = [];
    for (const w of list) if (err === null) w.resolve();
    else w.reject(err);
  };
  /** Bumped by stop(): a slice whose preparation ends after it does not run. */
  let generation = 0;
  const step = (): void => {
    cancelNext = null;
    retry = null;
    if (!running) return;
    if (deps.prepare === undefined) return runSlice();
    const mine = generation;
    void deps
      .prepare(size)
      .catch(() => undefined)
      .then(() => {
        if (running && mine === generation) runSlice();
      });
  };
  const runSlice = (): void => {
    try {
      const t = timeNow();
      const finished = deps.slice(size);
      size = deps.sizing.next(size, timeNow() - t);
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
      if (deps.resizeOnStart) size = deps.sizing.first;
      cancelNext = yieldTurn(step);
    },
    stop() {
      running = false;
      generation++;
      cancelNext?.();
      retry?.cancel();
      cancelNext = null;
      retry = null;
      settle(new Error(deps.stoppedMessage ?? 'the work stopped'));
    },
    running: () => running,
    done() {
      if (!running) return Promise.resolve();
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
  };
}
