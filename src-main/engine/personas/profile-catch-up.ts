/**
 * Reads a backlog into the profiles (a log kept before commits extended them, or messages a commit
 * could not read in) a slice at a time between other work (engine/sliced-work.ts). Each slice is
 * sized from the last one's time to take about SLICE_TARGET_MS.
 */
import type { Clock } from '../clock';
import { createSlicedWork, timedSlices, type SlicedWork, type TimedSlices } from '../sliced-work';

/** Messages in the first slice: about 5 ms at the measured 20-25 µs a message. */
export const FIRST_SLICE = 200;
export const SLICE_TARGET_MS = 5;
export const MIN_SLICE = 20;
export const MAX_SLICE = 5_000;

export type ProfileCatchUp = SlicedWork;

export const PROFILE_SLICES: TimedSlices = { first: FIRST_SLICE, min: MIN_SLICE, max: MAX_SLICE, targetMs: SLICE_TARGET_MS };

export function createProfileCatchUp(deps: {
  /** Reads up to `max` messages in one transaction; true when none is left. */
  slice: (max: number) => boolean;
  /** A storage fault or another failure: reported by the caller; the catch-up tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
  retryMs?: number;
  elapsed?: () => number;
  yieldTurn?: (fn: () => void) => () => void;
}): ProfileCatchUp {
  return createSlicedWork({
    ...deps,
    sizing: timedSlices(PROFILE_SLICES),
    stoppedMessage: 'the profiles catch-up stopped',
  });
}
