import type { Db } from './database';
import { statements } from './statements';

/**
 * The upkeep of the search index (message_text, FTS5 with trigrams). Each commit writes its
 * messages' trigrams as a new small segment; merging segments keeps a search from reading many of
 * them. Since schema 20 the commits no longer merge (a merge inside a commit held ingest for as
 * long as it took): the engine merges here, a few pages per transaction, between other work.
 */
export class SearchIndexStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      // FTS5's incremental merge: about this many pages written, on a level that holds enough segments.
      merge: "INSERT INTO message_text (message_text, rank) VALUES ('merge', ?)",
      totalChanges: 'SELECT total_changes() AS n',
    });
  }

  /**
   * About `pages` pages of merging, in one transaction. True when there was none to do: FTS5 then
   * changes fewer than two rows, which is how it tells that no level held enough segments.
   */
  merge(pages: number): boolean {
    return this.db.transaction(() => {
      const before = (this.s.totalChanges.get() as { n: number }).n;
      this.s.merge.run(pages);
      return (this.s.totalChanges.get() as { n: number }).n - before < 2;
    })();
  }
}
