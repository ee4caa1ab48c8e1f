import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { checkpointDue, checkpointStep, walIndexState, CHECKPOINT_CADENCE, WAL_INDEX_STATE_BYTES, type CadenceOptions } from './checkpoint-cadence';

/**
 * Runs WAL checkpoints on a worker thread with its own connection. A checkpoint copies the WAL
 * into the database file and fsyncs it; inline (SQLite's autocheckpoint) that stalls whichever
 * commit crosses the threshold, tens of milliseconds on the ingest's event loop. PASSIVE mode
 * never blocks the writer, so the main thread only ever appends to the WAL.
 *
 * While commits arrive it looks every 10 ms (checkpoint-cadence.ts) and copies once the WAL holds
 * a few hundred frames (copyAtFrames, read from the wal-index header), then every 10 ms. A round
 * is always a commit or two behind, so the WAL would never be found entirely copied by a writer
 * and never start over; once it holds about 16 MB (finishAtFrames) and a round copied all it saw,
 * the worker asks the main thread to copy the few frames committed since (onFinishDue, a short
 * copy there), and the main thread's next commit starts the WAL over from the beginning. Stepping
 * every 500 ms, as it does when the log is quiet, let the WAL reach the inline limit under a
 * steady 1,000 messages/s; copying and starting over at every 10 ms round meant ten fsyncs a
 * second of the WAL on the engine's thread (SQLite syncs a new WAL header before writing after it).
 *
 * journal_size_limit cuts the WAL file back to 20 MB each time the writer starts it over, and once
 * the log has been quiet for a second with every frame copied, the worker asks the main thread to
 * TRUNCATE it (onWalCopied), which then has nothing to copy and only cuts the file. It runs there,
 * between two tasks, because no transaction of ours is open then: from this thread, taking the
 * write lock could make a transaction of the main connection that read first fail with
 * SQLITE_BUSY when it writes. Under load it never runs (it would mean an fsync and tens of
 * milliseconds on the event loop).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
const { statSync, openSync, readSync, closeSync } = require('node:fs');
const littleEndian = require('node:os').endianness() === 'LE';
const checkpointStep = ${checkpointStep.toString()};
const checkpointDue = ${checkpointDue.toString()};
const walIndexState = ${walIndexState.toString()};
const walSize = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
// The wal-index's header says how many frames the WAL holds (null: no such file, or not readable).
const header = new Uint8Array(${WAL_INDEX_STATE_BYTES});
let shm = null;
const walFrames = () => {
  try {
    if (shm === null) shm = openSync(workerData.path + '-shm', 'r');
    return readSync(shm, header, 0, header.length, 0) === header.length ? (walIndexState(header, littleEndian)?.frames ?? null) : null;
  } catch {
    if (shm !== null) { try { closeSync(shm); } catch {} shm = null; }
    return null;
  }
};
let lastVersion = null;
// Taken as busy from the start: a log written right after start is copied at the busy cadence at once.
let lastChangeAt = Date.now();
let lastError = null;
let stopped = false;
let timer = null;
const run = (always) => {
  let delayMs = workerData.cadence.idleIntervalMs;
  try {
    // data_version changes when another connection has committed since this one last asked.
    const version = db.pragma('data_version', { simple: true });
    const now = Date.now();
    if (lastVersion !== null && version !== lastVersion) lastChangeAt = now;
    lastVersion = version;
    if (!always && !checkpointDue({ now, lastChangeAt, walFrames: walFrames() }, workerData.cadence)) return workerData.cadence.busyIntervalMs;
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    lastError = null;
    const copiedAll = Boolean(r && r.busy === 0 && r.log === r.checkpointed);
    const step = checkpointStep({ now, lastChangeAt, copiedAll, walFrames: r ? r.log : 0, walBytes: copiedAll ? walSize() : 0 }, workerData.cadence);
    delayMs = step.delayMs;
    // The engine's thread copies the frames committed since, and its next commit starts the WAL over.
    if (step.finish) parentPort.postMessage({ finishDue: true });
    // Asked at each quiet step until the file is empty: a TRUNCATE that found the log busy is simply retried.
    if (step.truncate) parentPort.postMessage({ walCopied: true });
  } catch (err) {
    // Said once per new cause: a full disk fails every checkpoint until space is freed.
    if (String(err) !== lastError) parentPort.postMessage({ error: String(err) });
    lastError = String(err);
  }
  return delayMs;
};
const loop = () => {
  timer = null;
  if (stopped) return;
  const delayMs = run(false);
  if (!stopped) timer = setTimeout(loop, delayMs);
};
// The first round soon: a burst right after start must not wait half a second for its copies.
timer = setTimeout(loop, workerData.cadence.busyIntervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  stopped = true;
  if (timer) clearTimeout(timer);
  run(true);
  if (shm !== null) closeSync(shm);
  db.close();
  parentPort.postMessage({ stopped: true });
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(
  path: string,
  options: {
    nativeBinding?: string;
    cadence?: CadenceOptions;
    /** The log is quiet and every frame of the WAL is in the database file: a TRUNCATE now only cuts the file. */
    onWalCopied?: () => void;
    /** Commits arrive and the WAL is big, every frame of it copied a moment ago: copy what came since (walFinisher), so the next commit starts it over. */
    onFinishDue?: () => void;
  } = {},
): Checkpointer {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, module: require.resolve('better-sqlite3'), nativeBinding: options.nativeBinding, cadence: options.cadence ?? CHECKPOINT_CADENCE },
  });
  worker.unref();
  worker.on('message', (m: { error?: string; walCopied?: boolean; finishDue?: boolean }) => {
    if (m.error) process.stderr.write(`hookbench: WAL checkpoint failed: ${m.error}\n`);
    if (m.walCopied) options.onWalCopied?.();
    if (m.finishDue) options.onFinishDue?.();
  });
  // Without a listener a worker's error (its connection could not open the file) would end the process.
  worker.on('error', (err) => process.stderr.write(`hookbench: WAL checkpointer stopped: ${err.message}\n`));
  let exited = false;
  worker.once('exit', () => (exited = true));
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        const done = (): void => {
          void worker.terminate().then(() => resolve());
        };
        worker.once('message', done);
        worker.once('error', done);
        worker.once('exit', done);
        worker.postMessage('stop');
      }),
  };
}
