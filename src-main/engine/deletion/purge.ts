/**
 * A purge in steps (docs/scale.md, "A deletion's purge, in steps", with the figures).
 *
 * Removing a person's whole footprint in one transaction held the engine's thread for as long as
 * the footprint took: 40 to 180 ms for 200 messages on a log of a million, and without bound for a
 * person with more. So a purge is a series of short transactions, the event loop free between
 * them (sliced-work.ts), each step sized to hold the thread a few milliseconds:
 *
 * 0. who the person is: their userId and the anonymousIds and alias previousIds their messages
 *    link to it, read a stretch of their messages at a time;
 * 1. the person's messages, a few at a time, with the deliveries made from them and their attempts;
 * 2. the Inbound calls whose kept body names them, reading that table a stretch at a time by id;
 * 3. the dropped items about them, the same way;
 * 4. once a step finds nothing left to do in 1 to 3, the same transaction runs the purge hooks
 *    (the profiles), removes the messages kept back (below) and marks the request purged.
 *
 * Since who the person is is read from their messages, the messages that carry those links are
 * removed last, in step 4: a restart in the middle finds the same person in what is left. Messages of the person committed
 * while the purge runs are removed too: each step reads the links of the messages committed since
 * the last, step 1 finds new messages by the index, and step 4 reads through to the end of both
 * tables in the transaction that marks the request purged. So when purgedAt is set, nothing
 * committed before it names the person; what arrives after it is new data and stays.
 *
 * A step that fails is rolled back whole. A storage fault is retried a moment later; any other
 * failure (a purge hook threw) stops the purge until the request is settled again (the next notice
 * change, or the next start); what earlier steps removed stays removed.
 */
import type { Clock } from '../clock';
import type { DeletionStore } from '../store/deletions';
import type { Transaction } from '../store/stores';
import { storageFaultCode } from '../store/storage-fault';
import { createSlicedWork, timedSlices, type SliceSizing, type SlicedWork } from '../sliced-work';
import type { Person } from './identity';

/** Removes the rows another room keeps about a person, inside the purge's last transaction. */
export type PurgeHook = (person: { userId: string; linkedIds: readonly string[] }) => void;

/**
 * Rows of the requests and dropped items tables read per message a step may remove: reading a row
 * and checking its text costs about a hundredth of removing a message with its delivery and
 * attempts (and their index entries and the search index's).
 */
export const SCAN_ROWS_PER_MESSAGE = 64;

/**
 * The person's messages read for links per message a step may remove: on a log whose pages are
 * not all in memory a row read cost about a fifth of a message removed (130 against 700 µs at 1M).
 */
export const LINK_ROWS_PER_MESSAGE = 4;

/**
 * Steps of about 4 ms, and never more than 16 messages: a step sized on pages in memory grew to
 * hundreds of messages and then met pages that were not (0.5 to 0.9 ms a message at 1M, several
 * ms on a busy disk), holding the thread 170 ms. The first step runs at once, where the request
 * became forwarded; the deletions room carries the size from one purge to the next.
 */
export const PURGE_SIZING: SliceSizing = timedSlices({ first: 2, min: 1, max: 16, targetMs: 4 });

export interface PurgeDeps {
  store: DeletionStore;
  transaction: Transaction;
  clock: Clock;
  hooks(): Iterable<PurgeHook>;
  /** A step removed these deliveries (for the views). */
  removed(deliveryIds: number[]): void;
  /** The purge is done: the request is marked purged. */
  finished(): void;
  /** A step failed, not for storage: it was rolled back, and the purge stopped. */
  failed(err: unknown): void;
  /** A storage fault in a step run in the background: it is tried again a moment later. */
  storageFault(err: unknown): void;
  sizing?: SliceSizing;
  /**
   * Reads, elsewhere, what the next step of `limit` messages will read and remove (the read
   * worker), so the step finds its pages in memory instead of waiting for the disk on the engine's
   * thread; awaited before each step run in the background.
   */
  prefetch?: (next: PurgePrefetch) => Promise<void>;
}

/** What the next step will read: `links` of the person's messages after `linksAfter` for their links, then up to `limit` of their messages. */
export interface PurgePrefetch {
  userId: string;
  linkedIds: string[];
  linksAfter: number;
  links: number;
  limit: number;
}

export interface Purge {
  /**
   * One step of up to `size` messages, now, in one transaction; true when the purge is done.
   * Throws what the step threw (it was rolled back).
   */
  step(size: number): boolean;
  /** Runs the remaining steps in the background, a turn of the event loop between them. */
  continue(): void;
  stop(): void;
}

interface Cursor {
  /** Linked id → the message that carries it: kept back until the last step. */
  carriers: Map<string, number>;
  /** Messages up to this id have been read for links. */
  linksThrough: number;
  requestsAfter: number;
  droppedAfter: number;
}

export function createPurge(requestId: number, userId: string, deps: PurgeDeps): Purge {
  const store = deps.store;
  let at: Cursor = { carriers: new Map(), linksThrough: 0, requestsAfter: 0, droppedAfter: 0 };

  const step = (size: number): boolean => {
    const limit = Math.max(1, Math.floor(size));
    let gone: number[] = [];
    // Worked on a copy: a step that rolls back leaves the cursor where it was.
    const next: Cursor = { ...at, carriers: new Map(at.carriers) };
    const done = deps.transaction(() => {
      // Who the person is, read a stretch of their messages at a time; nothing is removed before
      // all of it is known (the messages that carry the links are kept back until the end).
      const links = store.links(userId, next.linksThrough, limit * LINK_ROWS_PER_MESSAGE);
      for (const [id, message] of links.carriers) if (!next.carriers.has(id)) next.carriers.set(id, message);
      next.linksThrough = Math.max(next.linksThrough, links.last);
      if (links.read === limit * LINK_ROWS_PER_MESSAGE) return false;
      const person: Person = { userId, linkedIds: new Set(next.carriers.keys()) };
      const keep = [...new Set(next.carriers.values())];

      const messages = store.removeMessagesOf(person, limit, keep);
      gone = messages.deliveryIds;
      // A new row takes the id after the largest left, which may be below a cursor once the rows
      // above it went (the person's newest messages, this step's dropped items, or retention
      // emptying a table): the cursors never stay above what is left, so such a row is read by a
      // later step.
      const left = store.lastIds();
      next.linksThrough = Math.min(next.linksThrough, left.message);
      if (messages.messages >= limit) return false;
      const scan = limit * SCAN_ROWS_PER_MESSAGE;
      const bodies = store.removeRequestBodies(person, next.requestsAfter, scan);
      const dropped = store.removeDroppedItems(person, next.droppedAfter, scan);
      const after = store.lastIds();
      next.requestsAfter = Math.min(bodies.last, after.request);
      next.droppedAfter = Math.min(dropped.last, after.dropped);
      if (bodies.full || dropped.full) return false;
      for (const hook of deps.hooks()) hook({ userId, linkedIds: [...person.linkedIds] });
      const kept = store.removeMessagesOf(person, keep.length + limit);
      gone = [...gone, ...kept.deliveryIds];
      store.setPurged(requestId, deps.clock.now());
      return true;
    });
    at = next;
    if (gone.length > 0) deps.removed(gone);
    if (done) deps.finished();
    return done;
  };

  const prefetch = deps.prefetch;
  /** Before a background step of up to `max` messages: what it will read, read elsewhere first. */
  const prepare =
    prefetch &&
    ((max: number): Promise<void> => {
      const limit = Math.max(1, Math.floor(max));
      return prefetch({ userId, linkedIds: [...at.carriers.keys()], linksAfter: at.linksThrough, links: limit * LINK_ROWS_PER_MESSAGE, limit: limit + at.carriers.size });
    });

  let work: SlicedWork | null = null;
  return {
    step,
    continue() {
      work ??= createSlicedWork({
        slice: (max) => {
          try {
            return step(max);
          } catch (err) {
            if (storageFaultCode(err) !== null) throw err;
            deps.failed(err);
            return true;
          }
        },
        sizing: deps.sizing ?? PURGE_SIZING,
        clock: deps.clock,
        onError: (err) => deps.storageFault(err),
        stoppedMessage: 'the purge stopped',
        prepare,
      });
      work.start();
    },
    stop() {
      work?.stop();
    },
  };
}
