/**
 * Retention on the engine's clock: one slice at a time (a short transaction over at most SLICE_ROWS
 * messages and as many requests) removes what is past the age limit, or the oldest rows while the
 * data is over the size cap, and gives free pages back to the file system. While there is a
 * backlog, slices follow each other quickly, each still short, so the ingest never waits long;
 * with nothing to do it sleeps until the oldest row comes of age, and writes wake it within a
 * second to look at the size.
 *
 * Nothing an active delivery needs goes (store/retention.ts), and no message goes before the
 * profiles have read it, so they are never rebuilt nor count a message twice. A track call's event
 * leaves the profile with its message; ids, identify traits and last-seen times stay.
 */
import { statSync } from 'node:fs';
import type { ClearLogResult, ClearProgress, StorageStatus } from '../../../src-shared/api';
import type { RetentionSettings } from '../../../src-shared/settings';
import type { Clock, ClockTimer } from '../clock';
import { RetentionStore, type SliceResult } from '../store/retention';
import { nextTimedSize, type TimedSlices } from '../sliced-work';
import { idleDelay, planSlice, RELEASE_PAGES_PER_SLICE, sliceWaitsForWal } from './plan';

/** Messages (and requests) looked at per slice: a few milliseconds of work. */
export const SLICE_ROWS = 50;
/**
 * On the timer, a slice's rows are sized from the last slice's time, so that each holds the
 * engine's thread about targetMs whatever the log's size (a message's rows cost more to remove
 * from a big log, whose pages are scattered).
 */
export const TIMED_SLICES: TimedSlices = { first: SLICE_ROWS, min: 10, max: 200, targetMs: 4 };

/**
 * Pure: the next slice's rows from how long this one took (ms) for what it removed; unchanged
 * when it removed nothing, since a slice that found little to do says nothing of a full one's time.
 */
export function nextSliceRows(rows: number, removed: Pick<SliceResult, 'messages' | 'requests'>, tookMs: number): number {
  const done = Math.max(removed.messages, removed.requests);
  return done > 0 ? nextTimedSize(TIMED_SLICES, done, tookMs) : rows;
}
export const IDLE_INTERVAL_MS = 5_000;
/** With a backlog of old rows. */
export const BUSY_INTERVAL_MS = 100;
/** Over the size cap: the log may be growing as fast as slices remove. */
export const PRESSING_INTERVAL_MS = 5;
export const NUDGE_DELAY_MS = 1_000;
/** While a slice waits for the WAL to be copied: how often it looks, and for how long at most. */
export const WAL_POLL_MS = 5;
export const WAL_MAX_WAIT_MS = 200;
/**
 * After a clear, free pages go back to the file system in slices sized by time too: giving back
 * a page whose place is taken moves the last page of the file into it, and on a big log 1,024 of
 * them took 20 to 130 ms, held on the engine's thread.
 */
export const RELEASE_SLICES: TimedSlices = { first: RELEASE_PAGES_PER_SLICE, min: 16, max: 4096, targetMs: 4 };

export interface RetentionDeps {
  store: RetentionStore;
  dbPath: string;
  clock: Clock;
  settings(): RetentionSettings;
  /** Lets the profiles read up to `max` more messages; returns the last message id they have read. */
  profilesReadUpTo(max: number): number;
  /** Inside the slice's transaction: these messages are going. */
  removingMessages(messageIds: number[]): void;
  /** Rows removed, for the live views. */
  onRemoved(removed: { deliveryIds: number[]; requestIds: number[]; receiverRequests: number }): void;
  /**
   * A Clear log has removed everything it removes: what other rooms tidy after it (the search
   * index's segments), awaited before the free pages go back to the file system.
   */
  onCleared?(): Promise<void>;
  onError(error: unknown): void;
  /**
   * The WAL's room for a background commit (store/wal-watch.ts): a slice waits for the
   * checkpointer while there is none (sliceWaitsForWal). Absent: slices never wait.
   */
  wal?: { mayWrite(): boolean; roomForBackgroundWrite(): Promise<void> };
}

export interface SliceReport {
  removed: SliceResult;
  pressing: boolean;
  releasedPages: number;
  /** Whether another slice has work right away. */
  more: boolean;
  /** Otherwise, when the next one may. */
  idleMs: number;
}

export interface Retention {
  start(): void;
  stop(): void;
  /** Something was written or the settings changed: look within NUDGE_DELAY_MS rather than at the next idle check. */
  nudge(): void;
  /** One slice now (the timer's work), over at most `rows` messages and as many requests (SLICE_ROWS by default). */
  runSlice(rows?: number): SliceReport;
  /** Removes every finished row received until now, in slices that yield between them; then gives the free space back. */
  clear(): Promise<ClearLogResult>;
  status(): StorageStatus;
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createRetention(deps: RetentionDeps): Retention {
  const store = deps.store;
  let pressing = false;
  let afterMessageId = 0;
  let afterRequestId = 0;
  let timer: ClockTimer | null = null;
  let running = false;
  /** When the pending slice first waited for the WAL (engine clock), or null. */
  let waitingSince: number | null = null;
  let timedRows = TIMED_SLICES.first;
  let clearing: ClearProgress | null = null;

  const runSlice = (rows = SLICE_ROWS): SliceReport => {
    const now = deps.clock.now();
    const settings = deps.settings();
    const usage = store.usage();
    const plan = planSlice({ now, settings, ...usage, pressing });
    pressing = plan.pressing;
    // The profiles read ahead only when a message may go: an idle slice costs a few lookups.
    const before = store.oldest();
    const maxMessageId = before.message !== null && before.message < plan.cutoff ? deps.profilesReadUpTo(rows) : 0;
    const removed = store.slice({ cutoff: plan.cutoff, maxMessageId, limit: rows, afterMessageId, afterRequestId }, deps.removingMessages);
    afterMessageId = removed.nextMessageId;
    afterRequestId = removed.nextRequestId;
    const releasedPages = usage.autoVacuum === 2 ? plan.releasePages : 0;
    if (releasedPages > 0) store.releaseFreePages(releasedPages);
    if (removed.deliveryIds.length > 0 || removed.requestIds.length > 0 || removed.receiverRequests > 0) {
      deps.onRemoved({ deliveryIds: removed.deliveryIds, requestIds: removed.requestIds, receiverRequests: removed.receiverRequests });
    }
    const more =
      removed.nextMessageId !== 0 ||
      removed.nextRequestId !== 0 ||
      removed.receiverRequests === rows ||
      releasedPages === RELEASE_PAGES_PER_SLICE ||
      (pressing && removed.messages + removed.requests + removed.receiverRequests > 0);
    const oldest = store.oldest();
    const oldestAt = oldest.message === null ? oldest.request : oldest.request === null ? oldest.message : Math.min(oldest.message, oldest.request);
    return { removed, pressing, releasedPages, more, idleMs: idleDelay(now, settings, oldestAt, IDLE_INTERVAL_MS) };
  };

  let timerAt = Number.POSITIVE_INFINITY;
  const arm = (ms: number): void => {
    if (!running) return;
    timer?.cancel();
    timerAt = deps.clock.now() + ms;
    timer = deps.clock.setTimer(tick, ms);
  };
  function tick(): void {
    timer = null;
    timerAt = Number.POSITIVE_INFINITY;
    const now = deps.clock.now();
    if (deps.wal && sliceWaitsForWal({ room: deps.wal.mayWrite(), waitingSince, now }, WAL_MAX_WAIT_MS)) {
      waitingSince ??= now;
      arm(WAL_POLL_MS);
      return;
    }
    waitingSince = null;
    let next = IDLE_INTERVAL_MS;
    try {
      const t = performance.now();
      const report = runSlice(timedRows);
      timedRows = nextSliceRows(timedRows, report.removed, performance.now() - t);
      next = !report.more ? report.idleMs : report.pressing ? PRESSING_INTERVAL_MS : BUSY_INTERVAL_MS;
    } catch (err) {
      // A locked or full disk: reported, and tried again at the idle pace.
      deps.onError(err);
    }
    arm(next);
  }

  return {
    start() {
      if (running) return;
      running = true;
      arm(IDLE_INTERVAL_MS);
    },
    stop() {
      running = false;
      timer?.cancel();
      timer = null;
      timerAt = Number.POSITIVE_INFINITY;
    },
    nudge() {
      if (running && timerAt > deps.clock.now() + NUDGE_DELAY_MS) arm(NUDGE_DELAY_MS);
    },
    runSlice,
    async clear() {
      const until = deps.clock.now();
      clearing = { startedAt: until, removedMessages: 0, aboutMessages: store.messageSpan(), releasing: false, freeBytesLeft: 0 };
      try {
        return await clearAll(until, clearing);
      } finally {
        clearing = null;
      }
    },
    status() {
      const usage = store.usage();
      return {
        retention: deps.settings(),
        databaseBytes: sizeOf(deps.dbPath),
        walBytes: sizeOf(`${deps.dbPath}-wal`),
        usedBytes: (usage.pageCount - usage.freePages) * usage.pageSize,
        incrementalVacuum: usage.autoVacuum === 2,
        clearing: clearing === null ? null : { ...clearing, freeBytesLeft: clearing.releasing ? usage.freePages * usage.pageSize : 0 },
      };
    },
  };

  async function clearAll(until: number, progress: ClearProgress): Promise<ClearLogResult> {
    const total = { requests: 0, messages: 0, deliveries: 0, attempts: 0, droppedItems: 0, receiverRequests: 0 };
    // Profiles read everything received so far first, so the clear loses nothing they need.
    let maxMessageId = deps.profilesReadUpTo(SLICE_ROWS * 5);
    for (let previous = -1; maxMessageId !== previous; maxMessageId = deps.profilesReadUpTo(SLICE_ROWS * 5)) {
      previous = maxMessageId;
      await nextTurn();
    }
    let after = { message: 0, request: 0 };
    let passRemoved = 0;
    let rows = TIMED_SLICES.first;
    for (;;) {
      const t = performance.now();
      const r = store.slice(
        { cutoff: until + 1, maxMessageId, limit: rows, afterMessageId: after.message, afterRequestId: after.request },
        deps.removingMessages,
      );
      rows = nextSliceRows(rows, r, performance.now() - t);
      total.requests += r.requests;
      total.messages += r.messages;
      progress.removedMessages = total.messages;
      total.deliveries += r.deliveries;
      total.attempts += r.attempts;
      total.droppedItems += r.droppedItems;
      total.receiverRequests += r.receiverRequests;
      if (r.deliveryIds.length > 0 || r.requestIds.length > 0 || r.receiverRequests > 0) {
        deps.onRemoved({ deliveryIds: r.deliveryIds, requestIds: r.requestIds, receiverRequests: r.receiverRequests });
      }
      after = { message: r.nextMessageId, request: r.nextRequestId };
      // Done once a whole pass over the log (both scans back at the oldest row) removed nothing.
      passRemoved += r.messages + r.requests + r.receiverRequests;
      if (after.message === 0 && after.request === 0) {
        if (passRemoved === 0) break;
        passRemoved = 0;
      }
      await nextTurn();
      await deps.wal?.roomForBackgroundWrite();
    }
    progress.releasing = true;
    await deps.onCleared?.();
    if (store.usage().autoVacuum === 2) {
      let pages = RELEASE_SLICES.first;
      for (let free = store.usage().freePages; free > 0; free = store.usage().freePages) {
        const t = performance.now();
        store.releaseFreePages(Math.min(pages, free));
        pages = nextTimedSize(RELEASE_SLICES, pages, performance.now() - t);
        await nextTurn();
        await deps.wal?.roomForBackgroundWrite();
      }
    }
    return { ...total, keptActiveDeliveries: store.activeDeliveries() };
  }
}
