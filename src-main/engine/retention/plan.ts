/** Retention's decisions, pure: what one slice may remove and whether it gives pages back. */
import type { RetentionSettings } from '../../../src-shared/settings';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const MB = 1024 * 1024;
/** Past this share of the cap the oldest rows go whatever their age… */
export const PRESS_ABOVE = 0.9;
/** …until the data is back under this share (so it does not flap at the line). */
export const RELAX_BELOW = 0.8;
/** Free pages given back per slice: about a millisecond of work. */
export const RELEASE_PAGES_PER_SLICE = 128;
/** Free space kept inside the file for new rows, unless the file is near the cap. */
export const SLACK_BYTES = 4 * MB;

export interface SliceInput {
  now: number;
  settings: RetentionSettings;
  pageSize: number;
  pageCount: number;
  freePages: number;
  /** Whether the previous slice was pressing on the size cap. */
  pressing: boolean;
}

export interface SlicePlan {
  /** Rows received before this go (when nothing else needs them). */
  cutoff: number;
  pressing: boolean;
  /** Free pages to give back to the file system now. */
  releasePages: number;
}

export function planSlice(input: SliceInput): SlicePlan {
  const cap = input.settings.megabytes * MB;
  const used = (input.pageCount - input.freePages) * input.pageSize;
  const pressing = used > cap * PRESS_ABOVE || (input.pressing && used > cap * RELAX_BELOW);
  const fileBytes = input.pageCount * input.pageSize;
  const freeBytes = input.freePages * input.pageSize;
  const release = input.freePages > 0 && (fileBytes > cap * RELAX_BELOW || freeBytes > SLACK_BYTES);
  return {
    cutoff: pressing ? Number.MAX_SAFE_INTEGER : input.now - input.settings.days * DAY_MS,
    pressing,
    releasePages: release ? Math.min(input.freePages, RELEASE_PAGES_PER_SLICE) : 0,
  };
}

/** The longest retention sleeps with nothing to do; writes and settings changes wake it sooner. */
export const MAX_IDLE_MS = 60 * 60 * 1000;

/**
 * How long to sleep after a slice that found nothing to do: until the oldest row reaches the age
 * limit, at least `minMs` (old rows that must stay, such as a retrying delivery's, are looked at
 * again at that pace) and at most MAX_IDLE_MS. The size cap needs no timer: writes wake it.
 */
export function idleDelay(now: number, settings: RetentionSettings, oldestAt: number | null, minMs: number): number {
  if (oldestAt === null) return MAX_IDLE_MS;
  // +1: a row goes once it is strictly older than the limit.
  return Math.min(MAX_IDLE_MS, Math.max(minMs, oldestAt + settings.days * DAY_MS - now + 1));
}

/**
 * Pure: whether a slice waits a little longer for the checkpointer (see store/wal-watch.ts) rather
 * than write now: while the WAL has no room for a background commit, for at most maxWaitMs since
 * the slice first waited (null: it has not). A slice's deletes land on scattered pages; made into
 * a WAL the checkpointer has not copied, they push it to SQLite's inline checkpoint, a copy and an
 * fsync inside the commit, on the engine's thread.
 */
export function sliceWaitsForWal(o: { room: boolean; waitingSince: number | null; now: number }, maxWaitMs: number): boolean {
  return !o.room && (o.waitingSince === null || o.now - o.waitingSince < maxWaitMs);
}
