import type { Db } from './database';
import { statements } from './statements';

/** Messages a search takes into the index per transaction before it reads (see settle). */
export const INDEX_OWED_LIMIT = 5_000;

/**
 * The upkeep of the search index (message_text, FTS5 with trigrams). Since schema 21 a commit does
 * not write its messages' trigrams: it leaves them owed, above message_text_top.through, and the
 * engine indexes them a turn later, many at a time (indexOwed); a text search first takes in
 * whatever is still owed (settle), so it never misses a committed message. Since schema 20 the
 * index's segments are merged here too, a few pages per transaction, rather than inside a commit.
 */
export class SearchIndexStore {
  private readonly s;
  /** Whether messages may be owed: true at open (a tail left by a crash), and after each commit. */
  private owed = true;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      through: 'SELECT through FROM message_text_top',
      setThrough: 'UPDATE message_text_top SET through = ?',
      rewind: 'UPDATE message_text_top SET through = ? WHERE through >= ?',
      lastOf: 'SELECT MAX(id) AS last FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)',
      index: `INSERT INTO message_text (rowid, user_id, anonymous_id, event)
        SELECT id, user_id, anonymous_id, event FROM messages WHERE id > ? AND id <= ?`,
      // FTS5's incremental merge: about this many pages written, on a level that holds enough segments.
      merge: "INSERT INTO message_text (message_text, rank) VALUES ('merge', ?)",
      totalChanges: 'SELECT total_changes() AS n',
    });
  }

  /**
   * Inside a commit's transaction, once its messages are in (the first is `firstMessageId`): they
   * are owed. Ids are given from the largest left, so after a purge of the newest messages new
   * ones may take ids at or below `through`; those ids' old entries left with their messages,
   * so `through` moves back to just before this commit.
   */
  followCommit(firstMessageId: number): void {
    this.s.rewind.run(firstMessageId - 1, firstMessageId);
    this.owed = true;
  }

  /** Indexes up to `max` owed messages, oldest first, in one transaction; true when none is left. */
  indexOwed(max: number): boolean {
    if (!this.owed) return true;
    const done = this.db.transaction(() => {
      const through = (this.s.through.get() as { through: number }).through;
      const last = (this.s.lastOf.get(through, max) as { last: number | null }).last;
      if (last === null) return true;
      this.s.index.run(through, last);
      this.s.setThrough.run(last);
      return false;
    })();
    if (done) this.owed = false;
    return done;
  }

  /** Before a search on this connection: everything committed is in the index. */
  settle(): void {
    while (!this.indexOwed(INDEX_OWED_LIMIT)) {
      // A tail larger than one transaction's share: the next one.
    }
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
