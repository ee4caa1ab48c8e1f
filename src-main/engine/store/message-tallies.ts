/**
 * Message tallies (schemas 23 and 24): per block of message ids, how many messages of each type, event and
 * source it holds, how many carry violations, and when the first and the last of them arrived. A
 * test's filter on those fields reads only the blocks that hold a match and counts whole blocks
 * from here (assertions/tally-plan.ts), instead of reading the whole log.
 *
 * Ids in [below, through] are tallied. Like the search index, a commit leaves its messages owed
 * above `through` and the engine's follow-up tallies them a turn later, many commits at a time; a
 * log from before them (or from schema 23, whose tallies 24 made again) is tallied downwards from `below`, a slice at a time in the
 * background. The delete trigger takes out every removed message that was tallied.
 */
import { MESSAGE_TYPES } from '../../../src-shared/events';
import { joinTransaction, type Db } from './database';
import { statement, statements } from './statements';

/** A block holds the ids with the same `id >> TALLY_BLOCK_BITS` (the trigger of schema 24 shifts by the same). */
export const TALLY_BLOCK_BITS = 14;
export const TALLY_BLOCK_IDS = 2 ** TALLY_BLOCK_BITS;
/** Messages a slice of the background tally of an older log reads: a few milliseconds. */
export const TALLY_BACKFILL_SLICE = 2_000;

/** What a filter on type, event and source finds in one block: the sums over the groups it matches. */
export interface TallyBlock {
  block: number;
  messages: number;
  violating: number;
  /** The earliest and the latest received_at among them (bounds: a removal never narrows them). */
  firstAt: number;
  lastAt: number;
}

/** Messages with violations in one block, per type and event. */
export interface ViolationTally {
  block: number;
  type: string;
  event: string | null;
  messages: number;
  violations: number;
}

export interface TallyFilter {
  type: string | null;
  event: string | null;
  /** A source's name. */
  source: string | null;
}

// A row whose messages all went (a removal) starts its times again: its old ones would only widen
// the bounds, so that every time filter read the block row by row.
const TALLY = `INSERT INTO message_tallies (type, event, no_event, source_id, block, messages, violating, violation_items, first_at, last_at)
  SELECT type, COALESCE(event, ''), event IS NULL, source_id, id >> ${TALLY_BLOCK_BITS}, COUNT(*), SUM(violations IS NOT NULL),
    SUM(CASE WHEN json_valid(violations) THEN json_array_length(violations) ELSE 0 END), MIN(received_at), MAX(received_at)
  FROM messages WHERE id > ? AND id <= ? GROUP BY 1, 2, 3, 4, 5
  ON CONFLICT (type, event, no_event, source_id, block) DO UPDATE SET messages = messages + excluded.messages,
    violating = violating + excluded.violating, violation_items = violation_items + excluded.violation_items,
    first_at = CASE WHEN messages <= 0 THEN excluded.first_at ELSE MIN(first_at, excluded.first_at) END,
    last_at = CASE WHEN messages <= 0 THEN excluded.last_at ELSE MAX(last_at, excluded.last_at) END`;

/** Pure: the statement of a filter's blocks, ascending, and its params. */
export function tallyBlocksSql(f: TallyFilter): { sql: string; params: unknown[] } {
  const terms = ['messages > 0'];
  const params: unknown[] = [];
  if (f.type !== null) {
    terms.push('type = ?');
    params.push(f.type);
  } else if (f.event !== null) {
    // The key starts with the type: naming every type makes an event alone a few seeks, not a scan.
    terms.push(`type IN (${MESSAGE_TYPES.map(() => '?').join(', ')})`);
    params.push(...MESSAGE_TYPES);
  }
  if (f.event !== null) {
    terms.push('event = ? AND no_event = 0');
    params.push(f.event);
  }
  if (f.source !== null) {
    terms.push('source_id = (SELECT s.id FROM sources s WHERE s.name = ?)');
    params.push(f.source);
  }
  return {
    sql: `SELECT block, SUM(messages) AS messages, SUM(violating) AS violating, MIN(first_at) AS firstAt, MAX(last_at) AS lastAt
      FROM message_tallies WHERE ${terms.join(' AND ')} GROUP BY block ORDER BY block`,
    params,
  };
}

export class MessageTallyStore {
  private readonly s;
  /** Whether messages may be owed: true at open (a tail left by a crash), and after each commit. */
  private owed = true;

  /** `tallied`: what else takes in the messages the follow-up tallies, in the same transaction (the messages' times). */
  constructor(
    private readonly db: Db,
    private readonly tallied: (afterId: number, throughId: number) => void = () => undefined,
  ) {
    this.s = statements(db, {
      range: 'SELECT below, through FROM message_tally_range',
      setThrough: 'UPDATE message_tally_range SET through = ?',
      setBelow: 'UPDATE message_tally_range SET below = ?',
      // As in the search index: ids are given from the largest left, so new messages may take ids
      // at or below `through` after the newest were purged (their tallies went with them).
      rewind: 'UPDATE message_tally_range SET through = ? - 1, below = MIN(below, ?) WHERE through >= ?',
      lastOf: 'SELECT MAX(id) AS last FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)',
      lowestOf: 'SELECT MIN(id) AS low FROM (SELECT id FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?)',
      tally: TALLY,
      violations: `SELECT block, type, CASE WHEN no_event = 1 THEN NULL ELSE event END AS event, SUM(violating) AS messages,
          SUM(violation_items) AS violations
        FROM message_tallies WHERE violating > 0 GROUP BY block, type, event, no_event ORDER BY block`,
    });
  }

  /** The ids tallied: [below, through]. */
  range(): { below: number; through: number } {
    return this.s.range.get() as { below: number; through: number };
  }

  /** Inside a commit's transaction, once its messages are in (the first is `firstMessageId`): they are owed. */
  followCommit(firstMessageId: number): void {
    this.s.rewind.run(firstMessageId, firstMessageId, firstMessageId);
    this.owed = true;
  }

  /** Tallies up to `max` owed messages, oldest first, in one transaction; true when none is left. */
  tallyOwed(max: number): boolean {
    if (!this.owed) return true;
    const done = joinTransaction(this.db, () => {
      const { through } = this.range();
      const last = (this.s.lastOf.get(through, max) as { last: number | null }).last;
      if (last === null) return true;
      this.s.tally.run(through, last);
      this.tallied(through, last);
      this.s.setThrough.run(last);
      return false;
    });
    if (done) this.owed = false;
    return done;
  }

  /** Tallies up to `max` of the messages below the tallied range, newest first, in one transaction; true when none is left. */
  backfill(max: number): boolean {
    return this.db.transaction(() => {
      const { below } = this.range();
      if (below <= 0) return true;
      const low = (this.s.lowestOf.get(below, max) as { low: number | null }).low;
      if (low === null) {
        this.s.setBelow.run(0);
        return true;
      }
      this.s.tally.run(low - 1, below - 1);
      this.s.setBelow.run(low);
      return false;
    })();
  }

  /** The blocks holding messages a filter on type, event and source matches, ascending. */
  blocks(f: TallyFilter): TallyBlock[] {
    const { sql, params } = tallyBlocksSql(f);
    return statement(this.db, sql).all(...params) as TallyBlock[];
  }

  /** The blocks holding messages with violations, per type and event, ascending. */
  violationBlocks(): ViolationTally[] {
    return this.s.violations.all() as ViolationTally[];
  }
}
