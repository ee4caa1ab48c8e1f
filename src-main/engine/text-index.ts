/**
 * Takes a log that existed before the free-text index into it, a slice at a time between other
 * work (engine/sliced-work.ts), so start-up and ingest never wait for it. Until it is done, text
 * filters read the log itself (same results, slower).
 */
import type { Clock } from './clock';
import { createSlicedWork, fixedSlices } from './sliced-work';

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
  return createSlicedWork({ ...deps, sizing: fixedSlices(TEXT_INDEX_SLICE), stoppedMessage: 'the search index catch-up stopped' });
}
