import { joinTransaction, type Db } from './database';
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

/**
 * Pure: whether a part spanning `span` message ids (a closed part's range; the part being written,
 * its rows' extent: see mergeStep) is merged at all. A part much bigger
 * than its share (the one table of a log from before schema 27) is not: its merges write the long
 * lists the parts exist to avoid (at 10M, steps of up to half a second).
 */
export const mergeable = (span: number, partMessages: number): boolean => span <= partMessages * OPTIMIZE_UP_TO_SHARES;

/** A part of the search index: an FTS5 table holding the messages with ids from `low` to the next part's. */
export interface TextPart {
  part: number;
  low: number;
  /** The table: message_text for part 0 (the index from before the parts), message_text_<n> after. */
  name: string;
}

/** How long a part taken out of the parts keeps its table, for the reads that listed it just before. */
export const RETIRED_DROP_AFTER_MS = 10_000;

export const partName = (part: number): string => (part === 0 ? 'message_text' : `message_text_${part}`);

/**
 * Pure: the part being written, the one `through` + 1 falls in: the newest, except after ids were
 * given again from lower down (a purge of the newest messages; an emptied log, from 1). The first
 * part takes every id below the second's.
 */
export function activePart(parts: readonly TextPart[], through: number): TextPart {
  return parts.filter((p, k) => k === 0 || p.low <= through + 1).at(-1) as TextPart;
}

/**
 * Pure: the triggers that take a removed message's row out of its part (one per part, each for
 * its range of ids), after dropping those of `before`.
 */
export function partTriggersSql(before: readonly TextPart[], parts: readonly TextPart[]): string {
  const drop = ['DROP TRIGGER IF EXISTS message_text_delete;', ...before.map((p) => `DROP TRIGGER IF EXISTS message_text_delete_${p.part};`)];
  const create = parts.map((p, k) => {
    const next = parts[k + 1];
    // The first part takes every id below the second's (see indexOwed).
    const range = [k === 0 ? null : `OLD.id >= ${p.low}`, next === undefined ? null : `OLD.id < ${next.low}`].filter((t) => t !== null);
    const when = range.length === 0 ? '' : ` WHEN ${range.join(' AND ')}`;
    return `CREATE TRIGGER message_text_delete_${p.part} AFTER DELETE ON messages${when} BEGIN DELETE FROM ${p.name} WHERE rowid = OLD.id; END;`;
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
  /** The tidy's next part after a Clear log. */
  private tidyAt = 0;
  /** Tables of parts taken out (retireEmptyPart), to drop; read from the schema at the first step after open. */
  private retired: { name: string; at: number }[] | null = null;

  constructor(
    private readonly db: Db,
    /** Messages per part: PART_MESSAGES, smaller in tests. */
    private readonly partMessages = PART_MESSAGES,
    private readonly retiredDropAfterMs = RETIRED_DROP_AFTER_MS,
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
      setUnmerged: 'UPDATE message_text_parts SET merged = 0 WHERE part = ? AND merged = 1',
      removePart: 'DELETE FROM message_text_parts WHERE part = ?',
      anyMessage: 'SELECT EXISTS (SELECT 1 FROM messages WHERE id >= ? AND id < ?) AS found',
      // The parts' tables: message_text and message_text_<n> (not FTS5's own message_text_<n>_data and the like).
      partTables: "SELECT name FROM sqlite_schema WHERE type = 'table' AND (name = 'message_text' OR (name GLOB 'message_text_[0-9]*' AND name NOT GLOB 'message_text_[0-9]*_*'))",
      changes: 'SELECT total_changes() AS n',
    });
  }

  /** The parts, oldest first. */
  parts(): TextPart[] {
    return (this.s.parts.all() as { part: number; low: number }[]).map((r) => ({ ...r, name: partName(r.part) }));
  }

  /**
   * One short step of merging (at most about `pages` pages written, in one transaction; more when a
   * single term's list of messages is longer, since FTS5 stops only between terms). In the part
   * being written (activePart) it carries on a merge under way, or merges a level that holds four
   * segments; with nothing to do there, it merges another part written since it was last merged
   * into one segment, then takes out a part none of whose messages is left. Indexing merges nothing
   * (schema 26): each transaction that indexes writes a new small segment. True when there was
   * nothing to do.
   */
  mergeStep(pages: number): boolean {
    return this.db.transaction(() => {
      const parts = this.parts();
      const active = activePart(parts, this.through());
      // The part being written is an oversized one after an upgrade, until the first new message
      // starts the next part, and after ids were given again from lower down. Its rows' extent,
      // not its range of ids, says how long its lists can be: parts taken out between two others
      // widen a range without adding a row. FTS5's crisismerge keeps its newest segments few.
      if (mergeable(this.extentOf(active.name), this.partMessages) && !this.merge(active.name, pages)) return false;
      const unmerged = (this.s.unmerged.all() as { part: number; low: number; high: number | null }[]).filter(
        (r) => r.part !== active.part && r.high !== null && mergeable(r.high - r.low, this.partMessages),
      );
      for (const r of unmerged) {
        if (!this.merge(partName(r.part), -pages)) return false;
        this.s.setMerged.run(r.part);
      }
      return !this.retireEmptyPart(parts, active) && !this.dropRetired(pages);
    })();
  }

  /**
   * A closed part none of whose messages is left (retention removed the oldest ones) is taken out
   * of the parts, so no read names it any more; its table is dropped by a later step
   * (dropRetired). Otherwise the rows retention marked gone would keep their pages for good:
   * nothing merges a closed part again. True when it took one out.
   */
  private retireEmptyPart(parts: TextPart[], active: TextPart): boolean {
    const retired = this.retiredTables();
    const empty = parts
      .slice(0, -1)
      .find((p, k) => p !== active && (this.s.anyMessage.get(k === 0 ? 0 : p.low, (parts[k + 1] as TextPart).low) as { found: number }).found === 0);
    if (empty === undefined) return false;
    this.s.removePart.run(empty.part);
    this.db.exec(partTriggersSql(parts, parts.filter((p) => p !== empty)));
    retired.push({ name: empty.name, at: performance.now() });
    return true;
  }

  /**
   * One step of dropping a part taken out of the parts at least RETIRED_DROP_AFTER_MS before (a
   * read that listed the parts just before still has its table meanwhile), or left by an engine
   * that stopped in between. Dropped in one statement, a part's table frees every page at once:
   * 85 ms for a part of 2^19 messages, seconds for the one table of a big log from before the
   * parts. So its pages go first, about `pages` of its segments' pages a step (and 16 times as
   * many of its per-message rows), and the table last. FTS5's tables are written by FTS5
   * alone (SQLite's defensive mode): these deletes run with it off, on a table no read uses any
   * more. True when it did something.
   */
  private dropRetired(pages: number): boolean {
    const retired = this.retiredTables();
    const due = retired.find((r) => performance.now() - r.at >= this.retiredDropAfterMs);
    if (due === undefined) return false;
    const rows = Math.max(1, Math.floor(pages));
    const slices: [string, number][] = [
      [`${due.name}_data`, rows],
      [`${due.name}_docsize`, rows * 16],
    ];
    this.db.unsafeMode(true);
    try {
      for (const [table, limit] of slices) {
        // Prepared here, not kept: SQLite checks defensive mode when it prepares.
        const deleted = this.db.prepare(`DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} LIMIT ?)`).run(limit).changes;
        if (deleted > 0) return true;
      }
    } finally {
      this.db.unsafeMode(false);
    }
    this.db.exec(`DROP TABLE ${due.name}`);
    retired.splice(retired.indexOf(due), 1);
    return true;
  }

  /** The tables to drop; at the first call, those an engine that stopped before dropping them left. */
  private retiredTables(): { name: string; at: number }[] {
    if (this.retired === null) {
      const named = new Set(this.parts().map((p) => p.name));
      const tables = (this.s.partTables.all() as { name: string }[]).map((r) => r.name);
      this.retired = tables.filter((n) => !named.has(n)).map((name) => ({ name, at: Number.NEGATIVE_INFINITY }));
    }
    return this.retired;
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

  /** How many message ids lie from a part's lowest row to its highest (two seeks: SQLite reads every row for MIN and MAX in one select). */
  private extentOf(name: string): number {
    const extent = statement(this.db, `SELECT (SELECT MIN(id) FROM ${name}_docsize) AS low, (SELECT MAX(id) FROM ${name}_docsize) AS high`).get() as {
      low: number | null;
      high: number | null;
    };
    return extent.low === null || extent.high === null ? 0 : extent.high - extent.low + 1;
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
    const done = joinTransaction(this.db, () => {
      const through = (this.s.through.get() as { through: number }).through;
      const found = (this.s.lastOf.get(through, max) as { last: number | null }).last;
      if (found === null) return true;
      let parts = this.parts();
      const newest = parts.at(-1) as TextPart;
      if (activePart(parts, through) === newest && through + 1 - newest.low >= this.partMessages) parts = this.addPart(parts, through + 1);
      // Up to the end of the newest part at most: the next transaction starts the next part. A
      // message above the end exists, so no message committed later takes an id at or below it.
      const end = (parts.at(-1) as TextPart).low + this.partMessages - 1;
      const last = through < end ? Math.min(found, end) : found;
      parts.forEach((p, k) => {
        // The first part takes every id below the second's, whatever its own low: after the parts
        // before it were dropped, and after a Clear log, when ids start again from 1.
        const from = k === 0 ? through : Math.max(through, p.low - 1);
        const next = parts[k + 1];
        const to = next === undefined ? last : Math.min(last, next.low - 1);
        if (to > from) {
          statement(this.db, `INSERT INTO ${p.name} (rowid, user_id, anonymous_id, event) SELECT id, user_id, anonymous_id, event FROM messages WHERE id > ? AND id <= ?`).run(from, to);
          // Merged into one segment again once it is no longer the part being written.
          this.s.setUnmerged.run(p.part);
        }
      });
      this.s.setThrough.run(last);
      return false;
    });
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
    return next;
  }

  /** Before a search on this connection: everything committed is in the index. */
  settle(): void {
    while (!this.indexOwed(INDEX_OWED_LIMIT)) {
      // A tail larger than one transaction's share: the next one.
    }
  }
}
