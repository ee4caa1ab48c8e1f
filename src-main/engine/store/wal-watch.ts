import * as fs from 'node:fs';
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
  /** Whether a background commit may go now (backgroundWriteMayGo): for writers that wait on their own timer. */
  mayWrite(): boolean;
  /** Resolves once a background commit may go (backgroundWriteMayGo), or after maxWaitMs. */
  roomForBackgroundWrite(): Promise<void>;
  close(): void;
}

/** What walIndexReader needs of node:fs (passed in: the checkpointer thread embeds the reader's source). */
export type WalIndexFiles = Pick<typeof fs, 'openSync' | 'readSync' | 'closeSync'>;

/**
 * Reads the first `bytes` of the wal-index (the "-shm" file beside the log at `dbPath`), opened at
 * the first read and kept open; null while it cannot (no such file yet, or gone with its folder).
 * Self-contained, as the checkpointer thread embeds its source.
 */
export function walIndexReader(dbPath: string, bytes: number, files: WalIndexFiles): { read(): Uint8Array | null; close(): void } {
  const buffer = new Uint8Array(bytes);
  let fd: number | null = null;
  // Methods, not named inner functions: a bundler's name-keeping wrappers would not exist in the thread.
  const reader = {
    read(): Uint8Array | null {
      try {
        fd ??= files.openSync(`${dbPath}-shm`, 'r');
        return files.readSync(fd, buffer, 0, bytes, 0) === bytes ? buffer : null;
      } catch {
        reader.close();
        return null;
      }
    },
    close(): void {
      if (fd === null) return;
      try {
        files.closeSync(fd);
      } catch {
        // gone with its folder
      }
      fd = null;
    },
  };
  return reader;
}

export function walWatch(dbPath: string, options: { belowFrames?: number; maxWaitMs?: number; pollMs?: number } = {}): WalWatch {
  const littleEndian = endianness() === 'LE';
  const shm = walIndexReader(dbPath, WAL_INDEX_STATE_BYTES, fs);
  const belowFrames = options.belowFrames ?? BACKGROUND_WRITE_BELOW_FRAMES;
  const maxWaitMs = options.maxWaitMs ?? BACKGROUND_WRITE_MAX_WAIT_MS;
  const pollMs = options.pollMs ?? 5;
  const state = (): WalIndexState | null => {
    const header = shm.read();
    return header === null ? null : walIndexState(header, littleEndian);
  };
  const mayWrite = (): boolean => backgroundWriteMayGo(state(), belowFrames);
  return {
    state,
    mayWrite,
    async roomForBackgroundWrite() {
      // Wall time, not the engine's clock: this waits for another thread's real work.
      const until = Date.now() + maxWaitMs;
      while (!mayWrite() && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    close: shm.close,
  };
}
