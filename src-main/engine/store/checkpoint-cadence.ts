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
  /** Interval once it has been quiet for activeForMs. */
  idleIntervalMs: number;
  /** How long after the last change the busy cadence lasts; also how long quiet must last before a TRUNCATE. */
  activeForMs: number;
}

export const CHECKPOINT_CADENCE: CadenceOptions = { busyIntervalMs: 10, idleIntervalMs: 500, activeForMs: 1000 };

export interface CheckpointObservation {
  now: number;
  /** When a commit by another connection was last seen (data_version changed); null when never. */
  lastChangeAt: number | null;
  /** The last PASSIVE checkpoint copied every frame of the WAL and was not blocked. */
  copiedAll: boolean;
  walBytes: number;
}

export function checkpointStep(o: CheckpointObservation, options: CadenceOptions): { delayMs: number; truncate: boolean } {
  const quietFor = o.lastChangeAt === null ? Infinity : o.now - o.lastChangeAt;
  const active = quietFor < options.activeForMs;
  return {
    delayMs: active ? options.busyIntervalMs : options.idleIntervalMs,
    truncate: !active && o.copiedAll && o.walBytes > 0,
  };
}
