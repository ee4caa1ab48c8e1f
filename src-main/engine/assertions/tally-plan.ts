/**
 * Which message ids a filter must read row by row, and which whole blocks it can count from the
 * message tallies (store/message-tallies.ts). Pure: the service reads the tallies and the rows.
 */
import { TALLY_BLOCK_IDS } from '../store/message-tallies';

/**
 * Ids in (after, through], ascending. `blocks` empty: read the rows. Else the segment is exactly
 * these whole tallied blocks, so a count can take their tallies; a page still reads their rows.
 */
export interface Segment {
  after: number;
  through: number;
  blocks: number[];
  /**
   * Read row by row: bounds of the received_at of the messages in it that may match, when every
   * id of it is tallied (its blocks' bounds); null when some are not. A time filter's edge
   * block can then be read through the messages' times within these bounds alone.
   */
  times?: { firstAt: number; lastAt: number } | null;
}

export interface BlockBound {
  block: number;
  /** At most this many messages of the block can match (0: none does). */
  matches: number;
  /** Bounds of the matching messages' received_at. */
  firstAt: number;
  lastAt: number;
}

export interface PlanInput {
  /** The ids asked about: (low, high]. */
  low: number;
  high: number;
  /** The ids the tallies hold: [below, through]. */
  tallied: { below: number; through: number };
  /** The filter's blocks, ascending; a tallied block not among them holds no match. */
  blocks: readonly BlockBound[];
  since: number | null;
  until: number | null;
  /** `matches` is exact (no field the tallies do not keep is filtered on). */
  countable: boolean;
}

export function planSegments(p: PlanInput): Segment[] {
  const out: Segment[] = [];
  const push = (after: number, through: number, blocks: number[], times: Segment['times'] = null): void => {
    if (through <= after) return;
    const last = out[out.length - 1];
    if (last !== undefined && last.through === after && last.blocks.length > 0 === blocks.length > 0) {
      last.through = through;
      last.blocks.push(...blocks);
      if (blocks.length === 0) {
        const before = last.times ?? null;
        last.times = before === null || times === null ? null : { firstAt: Math.min(before.firstAt, times.firstAt), lastAt: Math.max(before.lastAt, times.lastAt) };
      }
      return;
    }
    out.push(blocks.length > 0 ? { after, through, blocks } : { after, through, blocks, times });
  };
  const low = Math.max(p.low, p.tallied.below - 1);
  const high = Math.min(p.high, p.tallied.through);
  if (low >= high) {
    push(p.low, p.high, []);
    return out;
  }
  const since = p.since ?? Number.NEGATIVE_INFINITY;
  const until = p.until ?? Number.POSITIVE_INFINITY;
  // Below the tallies (an older log not tallied yet): row by row.
  push(p.low, low, []);
  for (const b of p.blocks) {
    if (b.matches <= 0 || b.lastAt < since || b.firstAt >= until) continue;
    // Ids start at 1, so block 0 is whole from id 1.
    const start = Math.max(b.block * TALLY_BLOCK_IDS, 1);
    const end = (b.block + 1) * TALLY_BLOCK_IDS - 1;
    const after = Math.max(low, start - 1);
    const through = Math.min(high, end);
    if (through <= after) continue;
    // The newest block is whole up to the tallies' last id: the ids past it are the tail below,
    // so a count on a live log does not read the newest block's rows.
    const whole = p.countable && after === start - 1 && through === Math.min(end, p.tallied.through) && b.firstAt >= since && b.lastAt < until;
    push(after, through, whole ? [b.block] : [], { firstAt: b.firstAt, lastAt: b.lastAt });
  }
  // Committed after the last tally: row by row.
  push(high, p.high, []);
  return out;
}
