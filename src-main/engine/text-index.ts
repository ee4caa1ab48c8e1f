/**
 * Takes a log that existed before the free-text index into it, a slice at a time between other
 * work, so start-up and ingest never wait for it. Until it is done, text filters read the log
 * itself (same results, slower). The same loop packs the delivery bodies of a log from before
 * they were packed (store/body-pack.ts), with slices sized by time.
 */
import type { Clock, ClockTimer } from './clock';

export interface TextIndexCatchUp {
  start(): void;
  stop(): void;
}

/** Messages indexed per slice: a few milliseconds of work on the engine's thread. */
export const TEXT_INDEX_SLICE = 2_000;

/** Slices sized from how long the last one took, so that each holds the thread about targetMs. */
export interface SliceSizing {
  first: number;
  min: number;
  max: number;
  targetMs: number;
}

/** Pure: the next slice's size, given how long the last one took (at most 4 times as large). */
export function nextSliceSize(s: SliceSizing, size: number, tookMs: number): number {
  const scaled = Math.round((size * s.targetMs) / Math.max(tookMs, 0.05));
  return Math.min(s.max, Math.max(s.min, Math.min(scaled, size * 4)));
}

export function createTextIndexCatchUp(deps: {
  /** Indexes up to `max` messages; true when none is left. */
  slice: (max: number) => boolean;
  /** A storage fault: reported by the caller; the catch-up tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  retryMs?: number;
  /** Time-sized slices instead of TEXT_INDEX_SLICE rows each. */
  sizing?: SliceSizing;
}): TextIndexCatchUp {
  let size = deps.sizing?.first ?? TEXT_INDEX_SLICE;
  let next: NodeJS.Immediate | null = null;
  let retry: ClockTimer | null = null;
  let running = false;
  const step = (): void => {
    next = null;
    retry = null;
    if (!running) return;
    try {
      const t = performance.now();
      const done = deps.slice(size);
      if (deps.sizing) size = nextSliceSize(deps.sizing, size, performance.now() - t);
      if (done) {
        running = false;
        return;
      }
      next = setImmediate(step);
    } catch (err) {
      deps.onError(err);
      retry = deps.clock.setTimer(step, deps.retryMs ?? 1_000);
    }
  };
  return {
    start() {
      if (running) return;
      running = true;
      next = setImmediate(step);
    },
    stop() {
      running = false;
      if (next !== null) clearImmediate(next);
      retry?.cancel();
      next = null;
      retry = null;
    },
  };
}
