/**
 * Merges the search index's segments between other work (store/search-index.ts). Each commit
 * leaves a small segment; merging them inside the commit, as FTS5 does by default, once held
 * ingest for up to a second. Here the merging runs in slices of about two milliseconds, started
 * after commits, each its own transaction with a turn of the event loop between, and stops once no
 * level holds enough segments to merge.
 */
import type { Clock } from './clock';
import { createSlicedWork, timedSlices, type SlicedWork } from './sliced-work';

/** Pages of merging per slice: sized so that a slice holds the engine's thread about targetMs. */
export const SEARCH_UPKEEP_SLICES = { first: 16, min: 4, max: 1_024, targetMs: 2 };

export function createSearchUpkeep(deps: {
  /** About `pages` pages of merging; true when none was left. */
  merge: (pages: number) => boolean;
  /** A storage fault: reported by the caller; the upkeep tries again later. */
  onError: (err: unknown) => void;
  clock: Clock;
}): SlicedWork {
  return createSlicedWork({ ...deps, slice: deps.merge, sizing: timedSlices(SEARCH_UPKEEP_SLICES), stoppedMessage: 'the search index upkeep stopped' });
}
