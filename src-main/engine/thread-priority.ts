/**
 * The CPU priority of the engine's background threads. The read worker runs the UI's long reads
 * (wide filters, their counts, pages of profiles); on a machine whose cores are all busy (two
 * here, shared with the SDKs sending and the receiver answering) it competed with the engine's
 * thread as an equal, and ingest acknowledgements waited behind a count. At a lower priority the
 * scheduler hands the core to the engine's thread as soon as it has work: a read takes longer
 * under load, an acknowledgement does not.
 *
 * Only on Linux, where a thread has a nice value of its own (`setpriority` with a thread id);
 * elsewhere the same call would lower the whole process, the engine's thread with it.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The nice value of a background thread: the scheduler gives it about a tenth of a busy core's time against a thread at 0. */
export const BACKGROUND_NICE = 10;

/** A thread's priority as it now stands: its id and nice value. */
export interface ThreadPriority {
  tid: number;
  nice: number;
}

/** Pure: the thread id in the target of `/proc/thread-self` ("<pid>/task/<tid>"), or null. */
export function threadIdOf(link: string): number | null {
  const m = /^\d+\/task\/(\d+)$/.exec(link.trim());
  return m === null ? null : Number(m[1]);
}

/**
 * Pure: the nice value to set, never a higher priority than the thread has: a process started
 * under `nice 15` keeps 15 (raising it back would need privileges, and the user asked for it).
 */
export function backgroundNice(current: number, wanted: number): number {
  return Math.max(current, wanted);
}

/**
 * Lowers the calling thread's priority to `nice` (BACKGROUND_NICE unless given). Returns what the
 * thread now has, or null where a thread's priority cannot be set on its own (not Linux, no
 * /proc) or the system refused; the thread then runs as before.
 */
export function lowerThisThreadsPriority(nice: number = BACKGROUND_NICE): ThreadPriority | null {
  if (process.platform !== 'linux') return null;
  try {
    const tid = threadIdOf(readlinkSync('/proc/thread-self'));
    if (tid === null) return null;
    setPriority(tid, backgroundNice(getPriority(tid), nice));
    return { tid, nice: getPriority(tid) };
  } catch {
    return null;
  }
}
