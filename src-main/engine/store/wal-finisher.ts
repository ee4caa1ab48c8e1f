import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import type { Db } from './database';
import { CHECKPOINT_CADENCE, finishDue, walIndexState, WAL_INDEX_STATE_BYTES, type CadenceOptions, type WalIndexState } from './checkpoint-cadence';

/**
 * The engine thread's part in starting the WAL over while commits arrive (checkpoint-cadence.ts):
 * asked by the checkpointer after a round that copied the whole WAL, it copies the frames
 * committed since, when they are few. Only the engine's connection writes, and this runs between
 * two of its tasks, so nothing can commit during the copy: the WAL is then wholly copied and the
 * next commit starts it over.
 */
export interface WalFinisher {
  /** True when it copied (a PASSIVE checkpoint ran to the end of the WAL). */
  finish(): boolean;
  close(): void;
}

export function walFinisher(db: Db, dbPath: string, cadence: CadenceOptions = CHECKPOINT_CADENCE): WalFinisher {
  const littleEndian = endianness() === 'LE';
  const header = new Uint8Array(WAL_INDEX_STATE_BYTES);
  let shm: number | null = null;
  const state = (): WalIndexState | null => {
    try {
      shm ??= openSync(`${dbPath}-shm`, 'r');
      return readSync(shm, header, 0, header.length, 0) === header.length ? walIndexState(header, littleEndian) : null;
    } catch {
      close();
      return null;
    }
  };
  const close = (): void => {
    if (shm === null) return;
    try {
      closeSync(shm);
    } catch {
      // already gone with the folder
    }
    shm = null;
  };
  let finished: { cycle: number; frames: number } | null = null;
  return {
    finish() {
      const now = state();
      if (!db.open || db.inTransaction || now === null || !finishDue(now, finished, cadence)) return false;
      try {
        // PASSIVE never waits: busy (the checkpointer is mid-round) means the next request.
        const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
        const done = r !== undefined && r.busy === 0 && r.log === r.checkpointed;
        if (done) finished = { cycle: now.cycle, frames: r.log };
        return done;
      } catch {
        // A fault here (a full disk) is the checkpointer's to report; the inline safety net remains.
        return false;
      }
    },
    close,
  };
}
