import type { Stores } from '../../src-main/engine/store/stores';
import { SEARCH_MERGE_STEPS } from '../../src-main/engine/store/search-index';

/**
 * What a running engine does after commits, done at once: everything owed taken into the search
 * index, the tallies and the profiles (`max` messages a transaction), then the search index's
 * segments merged, which the engine does in steps of its own after indexing (schema 26). A
 * measure of the write path that left the merging out would count a log's index that nothing
 * merges.
 */
export function followUpAtOnce(stores: Stores, max = 5_000): void {
  while (!stores.takeInOwed(max)) {
    // the rest
  }
  while (!stores.searchIndex.mergeStep(SEARCH_MERGE_STEPS.max)) {
    // the rest
  }
}
