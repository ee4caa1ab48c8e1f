import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { backgroundWriteMayGo, walIndexState, WAL_INDEX_STATE_BYTES, type WalIndexState } from './checkpoint-cadence';

/** How full the WAL may be before a background writer waits for the checkpointer (half the inline checkpoint's 4,096 frames). */
export const BACKGROUND_WRITE_BELOW_FRAMES = 2048;
/** The longest a background writer waits for it: a reader can keep the WAL from being copied for a while. */
export const BACKGROUND_WRITE_MAX_WAIT_MS = 200;

/**
 * The WAL's state read from the wal-index (the "-shm" file) on the calling thread, for writers
 * that can wait: a background commit made when the checkpointer has copied everything starts the
 * WAL over instead of growing it towards the inline checkpoint (checkpoint-cadence.ts).
 */
export interface WalWatch {
  state(): WalIndexState | null;
  /** Resolves once a background commit may go (backgroundWriteMayGo), or after maxWaitMs. */
  roomForBackgroundWrite(): Promise<void>;
  close(): void;
}

export function walWatch(dbPath: string, options: { belowFrames?: number; maxWaitMs?: number; pollMs?: number } = {}): WalWatch {
  const littleEndian = endianness() === 'LE';
  const header = new Uint8Array(WAL_INDEX_STATE_BYTES);
  const belowFrames = options.belowFrames ?? BACKGROUND_WRITE_BELOW_FRAMES;
  const maxWaitMs = options.maxWaitMs ?? BACKGROUND_WRITE_MAX_WAIT_MS;
  const pollMs = options.pollMs ?? 5;
  let shm: number | null = null;
  const close = (): void => {
    if (shm === null) return;
    try {
      closeSync(shm);
    } catch {
      // gone with its folder
    }
    shm = null;
  };
  const state = (): WalIndexState | null => {
    try {
      shm ??= openSync(`${dbPath}-shm`, 'r');
      return readSync(shm, header, 0, header.length, 0) === header.length ? walIndexState(header, littleEndian) : null;
    } catch {
      close();
      return null;
    }
  };
  return {
    state,
    async roomForBackgroundWrite() {
      // Wall time, not the engine's clock: this waits for another thread's real work.
      const until = Date.now() + maxWaitMs;
      while (!backgroundWriteMayGo(state(), belowFrames) && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    close,
  };
}
