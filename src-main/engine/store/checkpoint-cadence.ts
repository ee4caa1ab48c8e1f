/**
 * When the checkpointer thread copies the WAL next, and whether it may ask for the WAL to be cut.
 *
 * While commits arrive, a PASSIVE checkpoint every few milliseconds copies each commit's frames
 * soon after it lands, so the WAL is often fully copied between two commits and the next writer
 * starts it over from the beginning: it stays small and SQLite's inline autocheckpoint (a copy and
 * an fsync on the engine's thread) never fires. Once the log has been quiet for a while the thread
 * goes back to a slow cadence, and only then may the main thread TRUNCATE (an fsync there is
 * harmless when no request is waiting).
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
  /** Interval once it has been quiet for activeForMs. */
  idleIntervalMs: number;
  /** How long after the last change the busy cadence lasts; also how long quiet must last before a TRUNCATE. */
  activeForMs: number;
}

export const CHECKPOINT_CADENCE: CadenceOptions = { busyIntervalMs: 10, copyAtFrames: 512, idleIntervalMs: 500, activeForMs: 1000 };

export interface CheckpointObservation {
  now: number;
  /** When a commit by another connection was last seen (data_version changed); null when never. */
  lastChangeAt: number | null;
  /** The last PASSIVE checkpoint copied every frame of the WAL and was not blocked. */
  copiedAll: boolean;
  walBytes: number;
}

/**
 * The number of frames in the WAL now, from the first 20 bytes of the wal-index (the "-shm"
 * file: its header, in the machine's byte order, starts with the version 3007000 at byte 0, an
 * "initialized" byte at 12 and the last valid frame at 16); null when the bytes are not such a
 * header. A hint read without SQLite's locks: a torn read only moves one round's decision.
 */
export function walIndexFrames(header: Uint8Array, littleEndian: boolean): number | null {
  if (header.length < 20) return null;
  const view = new DataView(header.buffer, header.byteOffset, header.length);
  if (view.getUint32(0, littleEndian) !== 3007000 || view.getUint8(12) !== 1) return null;
  return view.getUint32(16, littleEndian);
}

/** What the wal-index says of the WAL: the frames it holds, and how many of them are copied into the database file. */
export interface WalIndexState {
  frames: number;
  backfilled: number;
}

/** Bytes of the wal-index that walIndexState reads. */
export const WAL_INDEX_STATE_BYTES = 100;

/**
 * The WAL's frames and how many are copied, from the first 100 bytes of the wal-index: its header
 * as for walIndexFrames, then, after a second copy of that 48-byte header, the checkpoint record,
 * whose first word (byte 96) is the frames copied. Null when the bytes are not such a header.
 */
export function walIndexState(header: Uint8Array, littleEndian: boolean): WalIndexState | null {
  const frames = walIndexFrames(header, littleEndian);
  if (frames === null || header.length < 100) return null;
  return { frames, backfilled: new DataView(header.buffer, header.byteOffset, header.length).getUint32(96, littleEndian) };
}

/**
 * Whether a background writer (a purge's next step) may commit now: while the WAL is small, or
 * once every frame in it is copied, so that this commit starts the WAL over. Otherwise a run of
 * big background commits outpaces the checkpointer and fills the WAL to SQLite's inline
 * checkpoint (4,096 frames), which then copies it and syncs the file inside a commit on the
 * engine's thread: the purge steps' 25-51 ms stalls.
 */
export function backgroundWriteMayGo(state: WalIndexState | null, belowFrames: number): boolean {
  return state === null || state.frames < belowFrames || state.backfilled >= state.frames;
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

export function checkpointStep(o: CheckpointObservation, options: CadenceOptions): { delayMs: number; truncate: boolean } {
  const quietFor = o.lastChangeAt === null ? Infinity : o.now - o.lastChangeAt;
  const active = quietFor < options.activeForMs;
  return {
    delayMs: active ? options.busyIntervalMs : options.idleIntervalMs,
    truncate: !active && o.copiedAll && o.walBytes > 0,
  };
}
