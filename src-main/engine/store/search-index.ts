import type { Db } from './database';
import { statement, statements } from './statements';

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
 * Messages per part of the search index. FTS5 never stops a merge step inside a term, and a
 * common trigram's list of messages grows with the table: at 10M messages in one table, merging
 * its biggest level wrote lists of tens of megabytes in single steps of 0.5 to 1.3 s. Each part
 * holds a range of message ids; once the newest holds this many, the next part starts, and the
 * part before is never merged with it, so no step writes a list longer than a part's.
 */
export const PART_MESSAGES = 2 ** 19;
/**
 * A closed part is merged into one segment (FTS5's optimize, in steps), so that a search reads one
 * segment of it per trigram; not a part much bigger than its share (the one table of a log from
 * before schema 27), whose merge would write the long lists the parts exist to avoid.
 */
const OPTIMIZE_UP_TO_SHARES = 1.25;

/** A part of the search index: an FTS5 table holding the messages with ids from `low` to the next part's. */
export interface TextPart {
  part: number;
  low: number;
  /** The table: message_text for part 0 (the index from before the parts), message_text_<n> after. */
  name: string;
}

export const partName = (part: number): string => (part === 0 ? 'message_text' : `message_text_${part}`);

/**
 * Pure: the triggers that take a removed message's row out of its part (one per part, each for
 * its range of ids), after dropping those of `before`.
 */
export function partTriggersSql(before: readonly TextPart[], parts: readonly TextPart[]): string {
  const drop = ['DROP TRIGGER IF EXISTS message_text_delete;', ...before.map((p) => `DROP TRIGGER IF EXISTS message_text_delete_${p.part};`)];
  const create = parts.map((p, k) => {
    const next = parts[k + 1];
    const range = `OLD.id >= ${p.low}${next === undefined ? '' : ` AND OLD.id < ${next.low}`}`;
    return `CREATE TRIGGER message_text_delete_${p.part} AFTER DELETE ON messages WHEN ${range} BEGIN DELETE FROM ${p.name} WHERE rowid = OLD.id; END;`;
  });
  return [...drop, ...create].join('\n');
}

/**
 * What the search index (FTS5 with trigrams, in parts by message id: message_text_parts) is owed.
 * Since schema 20 a commit does not write its messages' trigrams: it leaves them owed, above
 * message_text_top.through, and the engine indexes them a moment later, many at a time
 * (indexOwed); a text search first takes in whatever is still owed (settle), so it never misses a
 * committed message.
 */
export class SearchIndexStore {
  private readonly s;
  /** Whether messages may be owed: true at open (a tail left by a crash), and after each commit. */
  private owed = true;
  /** Closed parts not yet merged into one segment, oldest first (read at the first merge step). */
  private toOptimize: TextPart[] | null = null;
  /** The tidy's next part after a Clear log. */
  private tidyAt = 0;

  constructor(
    private readonly db: Db,
    /** Messages per part: PART_MESSAGES, smaller in tests. */
    private readonly partMessages = PART_MESSAGES,
  ) {
    this.s = statements(db, {
      through: 'SELECT through FROM message_text_top',
      setThrough: 'UPDATE message_text_top SET through = ?',
      rewind: 'UPDATE message_text_top SET through = ? WHERE through >= ?',
      lastOf: 'SELECT MAX(id) AS last FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)',
      parts: 'SELECT part, low FROM message_text_parts ORDER BY part',
      addPart: 'INSERT INTO message_text_parts (part, low) VALUES (?, ?)',
      unmerged: 'SELECT part, low, (SELECT MIN(n.low) FROM message_text_parts n WHERE n.part > p.part) AS high FROM message_text_parts p WHERE merged = 0 ORDER BY part',
      setMerged: 'UPDATE message_text_parts SET merged = 1 WHERE part = ?',
      changes: 'SELECT total_changes() AS n',
    });
  }

  /** The parts, oldest first. */
  parts(): TextPart[] {
    return (this.s.parts.all() as { part: number; low: number }[]).map((r) => ({ ...r, name: partName(r.part) }));
  }

  /**
   * One short step of merging (at most about `pages` pages written, in one transaction; more when a
   * single term's list of messages is longer, since FTS5 stops only between terms). In the newest
   * part it carries on a merge under way, or merges a level that holds four segments; with nothing
   * to do there, it merges a closed part towards one segment. Indexing merges nothing (schema 26):
   * each transaction that indexes writes a new small segment. True when there was nothing to merge.
   */
  mergeStep(pages: number): boolean {
    return this.db.transaction(() => {
      const newest = this.parts().at(-1) as TextPart;
      if (!this.merge(newest.name, pages)) return false;
      this.toOptimize ??= (this.s.unmerged.all() as { part: number; low: number; high: number | null }[])
        .filter((r) => r.high !== null && this.optimizable(r.low, r.high))
        .map((r) => ({ part: r.part, low: r.low, name: partName(r.part) }));
      for (let first = this.toOptimize[0]; first !== undefined; first = this.toOptimize[0]) {
        if (!this.merge(first.name, -pages)) return false;
        this.s.setMerged.run(first.part);
        this.toOptimize.shift();
      }
      return true;
    })();
  }

  /**
   * A merge step that chooses the segments whose rows were deleted, part by part: deletions leave
   * their rows marked gone (schema 25) and this gives the space back. True when there was nothing
   * left to merge in any part. A segment whose rows are all gone is dropped whole in one step,
   * however big: it is read through, and nothing is written to count against `pages`.
   */
  tidy(pages: number): boolean {
    return this.db.transaction(() => {
      const parts = this.parts();
      for (; this.tidyAt < parts.length; this.tidyAt++) {
        const name = (parts[this.tidyAt] as TextPart).name;
        // FTS5 takes this setting only as an integer, which a bound JavaScript number is not.
        statement(this.db, `INSERT INTO ${name} (${name}, rank) VALUES ('deletemerge', ${TIDY_DELETED_PERCENT})`).run();
        const done = this.merge(name, pages);
        statement(this.db, `INSERT INTO ${name} (${name}, rank) VALUES ('deletemerge', 0)`).run();
        if (!done) return false;
      }
      this.tidyAt = 0;
      return true;
    })();
  }

  /** One FTS5 merge command on a part (`pages` below zero: towards one segment); true when it did nothing. */
  private merge(name: string, pages: number): boolean {
    const before = (this.s.changes.get() as { n: number }).n;
    statement(this.db, `INSERT INTO ${name} (${name}, rank) VALUES ('merge', ?)`).run(Math.sign(pages) * Math.max(1, Math.floor(Math.abs(pages))));
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

  /**
   * Indexes up to `max` owed messages, oldest first, in one transaction, each into the part its id
   * falls in; starts a new part first when the newest is full. True when none is left.
   */
  indexOwed(max: number): boolean {
    if (!this.owed) return true;
    const done = this.db.transaction(() => {
      const through = (this.s.through.get() as { through: number }).through;
      const found = (this.s.lastOf.get(through, max) as { last: number | null }).last;
      if (found === null) return true;
      let parts = this.parts();
      if (through + 1 - (parts.at(-1) as TextPart).low >= this.partMessages) parts = this.addPart(parts, through + 1);
      // Up to the end of the newest part at most: the next transaction starts the next part. A
      // message above the end exists, so no message committed later takes an id at or below it.
      const end = (parts.at(-1) as TextPart).low + this.partMessages - 1;
      const last = through < end ? Math.min(found, end) : found;
      parts.forEach((p, k) => {
        const from = Math.max(through, p.low - 1);
        const next = parts[k + 1];
        const to = next === undefined ? last : Math.min(last, next.low - 1);
        if (to > from) {
          statement(this.db, `INSERT INTO ${p.name} (rowid, user_id, anonymous_id, event) SELECT id, user_id, anonymous_id, event FROM messages WHERE id > ? AND id <= ?`).run(from, to);
        }
      });
      this.s.setThrough.run(last);
      return false;
    })();
    if (done) this.owed = false;
    return done;
  }

  /** Starts a part for the messages from `low` up: its table, set as the first, and the triggers for the new ranges. */
  private addPart(parts: TextPart[], low: number): TextPart[] {
    const newest = parts.at(-1) as TextPart;
    const part: TextPart = { part: newest.part + 1, low, name: partName(newest.part + 1) };
    const n = part.name;
    this.db.exec(`CREATE VIRTUAL TABLE ${n} USING fts5(user_id, anonymous_id, event, message_id, content = '', contentless_delete = 1, tokenize = 'trigram');
      INSERT INTO ${n} (${n}, rank) VALUES ('automerge', 0);
      INSERT INTO ${n} (${n}, rank) VALUES ('deletemerge', 0);
      INSERT INTO ${n} (${n}, rank) VALUES ('usermerge', 4);`);
    this.s.addPart.run(part.part, part.low);
    const next = [...parts, part];
    this.db.exec(partTriggersSql(parts, next));
    if (this.optimizable(newest.low, low)) this.toOptimize?.push(newest);
    return next;
  }

  /** Whether a closed part with ids from `low` to `high` is small enough to merge into one segment. */
  private optimizable(low: number, high: number): boolean {
    return high - low <= this.partMessages * OPTIMIZE_UP_TO_SHARES;
  }

  /** Before a search on this connection: everything committed is in the index. */
  settle(): void {
    while (!this.indexOwed(INDEX_OWED_LIMIT)) {
      // A tail larger than one transaction's share: the next one.
    }
  }
}
