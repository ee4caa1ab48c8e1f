import type { Db } from './database';
import { statements } from './statements';

/** Messages a search takes into the index per transaction before it reads (see settle). */
export const INDEX_OWED_LIMIT = 5_000;

/**
 * What the search index (message_text, FTS5 with trigrams) is owed. Since schema 20 a commit does
 * not write its messages' trigrams: it leaves them owed, above message_text_top.through, and the
 * engine indexes them a moment later, many at a time (indexOwed); a text search first takes in
 * whatever is still owed (settle), so it never misses a committed message.
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
}
