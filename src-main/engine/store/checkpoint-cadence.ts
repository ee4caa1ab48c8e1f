/**
 * When the checkpointer thread copies the WAL next, whether it may ask for the WAL to be cut, and
 * when the engine's thread finishes a copy so that the WAL starts over.
 *
 * While commits arrive, a PASSIVE checkpoint every few milliseconds copies each commit's frames
 * soon after it lands. The WAL starts over from its beginning only when a writer finds every frame
 * copied, and under a steady stream of commits the thread's copy is always a commit behind; so once
 * the WAL holds finishAtFrames frames and a round has copied them, the thread asks the engine's
 * thread to copy the few frames committed since (finishDue): the next commit then starts the WAL
 * over. Once the log has been quiet for a while the thread goes back to a slow cadence, and only
 * then may the main thread TRUNCATE (an fsync there is harmless when no request is waiting).
 *
 * This is pure and self-contained: the worker embeds its source (no imports, no inner functions).
 */
export interface CadenceOptions {
  /** Interval while the log changed within activeForMs. */
  busyIntervalMs: number;
  /**
   * While commits arrive, a round copies only once the WAL holds this many frames. Every time the
   * WAL is fully copied the next commit starts it over, and starting over costs that commit an
   * fsync of the WAL on the engine's thread (SQLite syncs the new header before any frame goes
   * after it). Copying at every 10 ms round started the WAL over about ten times a second at
   * 1,000 messages/s, each an fsync there of up to tens of milliseconds; waiting for a few
   * hundred frames makes it one every few seconds, the WAL still well under journal_size_limit.
   */
  copyAtFrames: number;
  /**
   * While commits arrive, once the WAL holds this many frames and a round has copied them all, the
   * engine's thread is asked to copy what was committed since, so that its next commit starts the
   * WAL over. Left to SQLite's inline checkpoint (at 4,096 frames, 16 MB) that copy was whatever
   * the thread had not copied yet, a purge's thousands of scattered pages included, and an fsync
   * of the file: 12 to 50 ms inside a commit on the engine's thread. Each finish is still an fsync
   * there (slow while a purge's pages are being written), so the cycle stays long: 4,000 frames,
   * about 16 MB, under journal_size_limit (20 MB) so that starting over does not cut the file;
   * cycles of 1,000 frames meant four times the fsyncs and longer stalls after deletions.
   */
  finishAtFrames: number;
  /** The most frames the engine's thread copies itself: more means a big commit landed since the round, which the next round copies. */
  finishWithinFrames: number;
  /**
   * ...unless the WAL holds this many: a run of big commits (a burst of 3 KB messages, a purge)
   * can keep every round more than finishWithinFrames behind, and the WAL would grow to the inline
   * safety net. At 12 MB the WAL still starts over before the 16 MB where SQLite's inline
   * checkpoint used to fire, now between two tasks and once a cycle instead of inside a commit.
   */
  finishAnywayAtFrames: number;
  /** Interval once it has been quiet for activeForMs. */
  idleIntervalMs: number;
  /** How long after the last change the busy cadence lasts; also how long quiet must last before a TRUNCATE. */
  activeForMs: number;
}

export const CHECKPOINT_CADENCE: CadenceOptions = {
  busyIntervalMs: 10,
  copyAtFrames: 512,
  finishAtFrames: 4000,
  finishWithinFrames: 128,
  finishAnywayAtFrames: 5000,
  idleIntervalMs: 500,
  activeForMs: 1000,
};

export interface CheckpointObservation {
  now: number;
  /** When a commit by another connection was last seen (data_version changed); null when never. */
  lastChangeAt: number | null;
  /** The last PASSIVE checkpoint copied every frame of the WAL and was not blocked. */
  copiedAll: boolean;
  /** Frames in the WAL when the checkpoint ran. */
  walFrames: number;
  walBytes: number;
}

/** What the wal-index says of the WAL: the frames it holds, how many of them are copied into the database file, and which cycle it is in. */
export interface WalIndexState {
  frames: number;
  backfilled: number;
  /** The WAL's first salt, which SQLite changes each time the WAL starts over. */
  cycle: number;
}

/** Bytes of the wal-index that walIndexState reads. */
export const WAL_INDEX_STATE_BYTES = 100;

/**
 * The WAL's frames, how many are copied and its cycle, from the first 100 bytes of the wal-index
 * (the "-shm" file, in the machine's byte order): its header starts with the version 3007000 at
 * byte 0, an "initialized" byte at 12, the last valid frame at 16 and the first salt at 32; after
 * two copies of that 48-byte header comes the checkpoint record, whose first word (byte 96) is
 * the frames copied. Null when the
 * bytes are not such a header. A hint read without SQLite's locks: a torn read only moves one
 * decision, and SQLite checks again under its locks.
 */
export function walIndexState(header: Uint8Array, littleEndian: boolean): WalIndexState | null {
  if (header.length < 100) return null;
  const view = new DataView(header.buffer, header.byteOffset, header.length);
  if (view.getUint32(0, littleEndian) !== 3007000 || view.getUint8(12) !== 1) return null;
  return { frames: view.getUint32(16, littleEndian), backfilled: view.getUint32(96, littleEndian), cycle: view.getUint32(32, littleEndian) };
}

/**
 * Whether this round copies: always once the log is quiet (the slow cadence), and while commits
 * arrive only when the WAL holds copyAtFrames frames or more (walFrames null: not known, copy).
 */
export function checkpointDue(o: { now: number; lastChangeAt: number | null; walFrames: number | null }, options: CadenceOptions): boolean {
  const quietFor = o.lastChangeAt === null ? Infinity : o.now - o.lastChangeAt;
  if (quietFor >= options.activeForMs) return true;
  return o.walFrames === null || o.walFrames >= options.copyAtFrames;
}

export function checkpointStep(o: CheckpointObservation, options: CadenceOptions): { delayMs: number; truncate: boolean; finish: boolean } {
  const quietFor = o.lastChangeAt === null ? Infinity : o.now - o.lastChangeAt;
  const active = quietFor < options.activeForMs;
  return {
    delayMs: active ? options.busyIntervalMs : options.idleIntervalMs,
    truncate: !active && o.copiedAll && o.walBytes > 0,
    finish: active && o.copiedAll && o.walFrames >= options.finishAtFrames,
  };
}

/**
 * Whether the engine's thread copies the rest of the WAL now (asked by the checkpointer after a
 * round that copied everything): only while the WAL is big enough to be worth starting over and
 * what is left to copy is a few commits' frames, so the copy stays short (or the WAL has grown to
 * finishAnywayAtFrames regardless); and once a cycle. After a finish (`finished`: the WAL's cycle
 * and frames then) the next commit starts the WAL over unless a reader is still on it; until it
 * has, or has grown by another finishAtFrames, asking again would only be another fsync on the
 * engine's thread for nothing.
 */
export function finishDue(state: WalIndexState | null, finished: { cycle: number; frames: number } | null, options: CadenceOptions): boolean {
  if (state === null || state.frames < options.finishAtFrames) return false;
  if (finished !== null && finished.cycle === state.cycle && state.frames < finished.frames + options.finishAtFrames) return false;
  return state.frames - state.backfilled <= options.finishWithinFrames || state.frames >= options.finishAnywayAtFrames;
}
