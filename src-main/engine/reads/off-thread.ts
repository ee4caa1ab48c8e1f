/**
 * The engine's side of the read worker (reads/worker.ts): reads that may take long are sent to a
 * thread with its own read-only connection, so the engine's thread keeps answering ingest and
 * delivering while they run. Calls wait in the worker's queue while it is busy. While no worker
 * answers (not started yet, starting, just died, or none can be started) a call runs its fallback
 * on this thread instead (the same read, in windows that yield), so the worker only ever makes a
 * read faster, never unavailable.
 */
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Clock } from '../clock';
import { sourceEntryBeside, spawnThread } from '../threads';
import type { ThreadPriority } from '../thread-priority';
import type { ReadAnswer, ReadArgs, ReadFailure, ReadOp, ReadReady, ReadRequest, ReadResult, ReadWorkerData } from './protocol';

export interface OffThreadReads {
  /** Runs op on the read worker, or `fallback` here while no worker answers. */
  run<K extends ReadOp>(op: K, args: ReadArgs<K>, fallback: () => Promise<ReadResult<K>>): Promise<ReadResult<K>>;
  /** Starts the worker now rather than at the first call, which would otherwise run here while it starts. */
  prestart(): void;
  /** Ends the worker; calls still waiting for it fail, later calls run their fallback. */
  stop(): Promise<void>;
  /** The thread answering now, or null. */
  thread(): Worker | null;
  /** Whether calls go to the worker now (started and ready), rather than to their fallback. */
  answering(): boolean;
  /** How many calls the worker answered, and how many ran their fallback here. */
  stats(): { offThread: number; fallback: number };
  /** The answering worker's thread id and nice value, once it is ready; null before, or where it could not be lowered. */
  priority(): ThreadPriority | null;
}

export interface OffThreadOptions {
  dbPath: string;
  nativeBinding?: string;
  /**
   * The worker's entry file. When absent: reads/worker.ts beside this module when running from the
   * sources (under tsx); a bundle passes its built entry. Null: no worker, every read runs here.
   */
  entry?: string | URL | null;
  clock: Clock;
  /** A worker that died is replaced at the next call at least this long after the last start. */
  restartDelayMs?: number;
  /** The worker's budget for a text count through the index (COUNT_BUDGET_MS unless set). */
  countBudgetMs?: number;
  /** The worker's budget for a Deliveries read through the log (READ_BUDGET_MS unless set). */
  readBudgetMs?: number | undefined;
  /** The worker thread's nice value (BACKGROUND_NICE unless set); null: left at the engine's. */
  nice?: number | null;
  log?: (line: string) => void;
}

export const RESTART_DELAY_MS = 1_000;

/** Pure: the error an answer carries, as the engine's own connection would have thrown it (SQLite's keep their class and code). */
export function errorOf(failure: ReadFailure): Error {
  const err = failure.code !== undefined && failure.name === 'SqliteError' ? new Database.SqliteError(failure.message, failure.code) : new Error(failure.message);
  if (failure.code !== undefined) Object.assign(err, { code: failure.code });
  return err;
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  fallback: () => Promise<unknown>;
}

export function createOffThreadReads(options: OffThreadOptions): OffThreadReads {
  const entry = options.entry === undefined ? sourceEntryBeside(import.meta.url, 'worker.ts') : options.entry;
  const restartDelay = options.restartDelayMs ?? RESTART_DELAY_MS;
  const log = options.log ?? ((line: string): void => void process.stderr.write(`${line}\n`));
  let worker: Worker | null = null;
  let ready = false;
  let priority: ThreadPriority | null = null;
  let lastStart: number | null = null;
  let stopped = false;
  let nextId = 1;
  const waiting = new Map<number, Waiting>();
  const counts = { offThread: 0, fallback: 0 };

  const start = (): void => {
    if (entry === null || stopped || worker !== null) return;
    if (lastStart !== null && options.clock.now() - lastStart < restartDelay) return;
    lastStart = options.clock.now();
    let w: Worker;
    try {
      w = spawnThread(entry, { dbPath: options.dbPath, nativeBinding: options.nativeBinding, countBudgetMs: options.countBudgetMs, readBudgetMs: options.readBudgetMs, nice: options.nice } satisfies ReadWorkerData);
    } catch (err) {
      log(`hookbench: the read worker could not start, reads run on the engine's thread: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    worker = w;
    // Never what keeps the process alive: the engine's own handles do that.
    w.unref();
    w.on('message', (m: ReadAnswer | ReadReady) => {
      if (worker !== w) return;
      if ('ready' in m) {
        ready = true;
        priority = m.priority;
        return;
      }
      const call = waiting.get(m.id);
      if (!call) return;
      waiting.delete(m.id);
      counts.offThread++;
      if (m.ok) call.resolve(m.value);
      else call.reject(errorOf(m.error));
    });
    // Without a listener a worker's error (its connection could not open the file) would end the process.
    w.on('error', (err) => log(`hookbench: the read worker stopped, reads run on the engine's thread until it is replaced: ${err.message}`));
    w.on('exit', () => {
      if (worker !== w) return;
      worker = null;
      ready = false;
      priority = null;
      // Calls it had not answered are read here; after stop() there is no connection left to read.
      const orphans = [...waiting.values()];
      waiting.clear();
      for (const call of orphans) {
        if (stopped) call.reject(new Error('the engine stopped before the read finished'));
        else {
          counts.fallback++;
          call.fallback().then(call.resolve, call.reject);
        }
      }
    });
  };

  return {
    run(op, args, fallback) {
      start();
      if (worker === null || !ready) {
        counts.fallback++;
        return fallback();
      }
      const id = nextId++;
      const w = worker;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject, fallback });
        w.postMessage({ id, op, args } satisfies ReadRequest);
      });
    },
    prestart: start,
    async stop() {
      stopped = true;
      const w = worker;
      if (w === null) return;
      await w.terminate();
    },
    thread: () => worker,
    answering: () => worker !== null && ready,
    stats: () => ({ ...counts }),
    priority: () => priority,
  };
}
