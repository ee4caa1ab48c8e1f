import type { Db } from './database';
import { statements } from './statements';

/** Messages a search takes into the index per transaction before it reads (see settle). */
export const INDEX_OWED_LIMIT = 5_000;
/** The share of a segment's rows deleted (percent) at which a tidy step merges it: FTS5's own default. */
export const TIDY_DELETED_PERCENT = 10;
/**
 * Tidy steps, in pages written, sized by their time (about 4 ms each) and never more than twice
 * the last: a step reads input until it has written its pages, and where nearly every row is gone
 * (after a Clear log) one page written can take a hundred read. Restarted from one page each time
 * the tidying starts, since the last run's size says nothing of the next one's segments.
 */
export const SEARCH_TIDY_SLICES = { first: 1, min: 1, max: 64, targetMs: 4 } as const;

/**
 * Merge steps, in pages written, sized by their time like the follow-up's slices. At 2M messages
 * steps of 16 pages, one after each indexing transaction, kept the index at three or four
 * segments a level, as FTS5's own merging did, while taking 1 to 2 ms each.
 */
export const SEARCH_MERGE_STEPS = { first: 16, min: 1, max: 256, targetMs: 2 } as const;

/** Pure: the next tidy step's pages from how long the last one took (ms). */
export function nextTidyPages(pages: number, tookMs: number): number {
  const s = SEARCH_TIDY_SLICES;
  return Math.min(s.max, pages * 2, Math.max(s.min, Math.round((pages * s.targetMs) / Math.max(tookMs, 0.05))));
}

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
      // FTS5 takes this setting only as an integer, which a bound JavaScript number is not.
      deleteMergeOn: `INSERT INTO message_text (message_text, rank) VALUES ('deletemerge', ${TIDY_DELETED_PERCENT})`,
      deleteMergeOff: "INSERT INTO message_text (message_text, rank) VALUES ('deletemerge', 0)",
      merge: "INSERT INTO message_text (message_text, rank) VALUES ('merge', ?)",
      changes: 'SELECT total_changes() AS n',
    });
  }

  /**
   * One short step of merging the index's segments (at most about `pages` pages written, in one
   * transaction; more when a single term's list of messages is longer, since FTS5 stops only
   * between terms): it carries on a merge under way, or merges a level that holds four segments.
   * The index is merged only this way (schema 26): indexing writes a new small segment per
   * transaction and merges nothing. True when there was nothing to merge.
   */
  mergeStep(pages: number): boolean {
    return this.db.transaction(() => this.merge(pages))();
  }

  /**
   * A merge step that also chooses the segments whose rows were deleted: deletions leave their
   * rows marked gone (schema 25) and this gives the space back. True when there was nothing to
   * merge. A segment whose rows are all gone is dropped whole in one step, however big: it is
   * read through, and nothing is written to count against `pages`.
   */
  tidy(pages: number): boolean {
    return this.db.transaction(() => {
      this.s.deleteMergeOn.run();
      const done = this.merge(pages);
      this.s.deleteMergeOff.run();
      return done;
    })();
  }

  private merge(pages: number): boolean {
    const before = (this.s.changes.get() as { n: number }).n;
    this.s.merge.run(Math.max(1, Math.floor(pages)));
    // The merge command counts as one change itself; anything more is work it did.
    return (this.s.changes.get() as { n: number }).n - before <= 1;
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

  /** The id through which every committed message is in the index (those below the backfill aside). */
  through(): number {
    return (this.s.through.get() as { through: number }).through;
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
