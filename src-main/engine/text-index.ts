/**
 * Takes a log that existed before the free-text index into it, a slice at a time between other
 * work, so start-up and ingest never wait for it. Until it is done, text filters read the log
 * itself (same results, slower).
 */
import type { Clock, ClockTimer } from './clock';

export interface TextIndexCatchUp {
  start(): void;
  stop(): void;
}

/** Messages indexed per slice: a few milliseconds of work on the engine's thread. */
export const TEXT_INDEX_SLICE = 2_000;

export function createTextIndexCatchUp(deps: {
  /** Indexes up to `max` messages; true when none is left. */
  slice: (max: number) => boolean;
  /** A storage fault: reported by the caller; the catch-up tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  retryMs?: number;
}): TextIndexCatchUp {
  let next: NodeJS.Immediate | null = null;
  let retry: ClockTimer | null = null;
  let running = false;
  const step = (): void => {
    next = null;
    retry = null;
    if (!running) return;
    try {
      if (deps.slice(TEXT_INDEX_SLICE)) {
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
