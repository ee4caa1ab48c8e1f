import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { checkpointDue, checkpointStep, walIndexFrames, CHECKPOINT_CADENCE, type CadenceOptions } from './checkpoint-cadence';
import { walIndexReader } from './wal-watch';

/**
 * Runs WAL checkpoints on a worker thread with its own connection. A checkpoint copies the WAL
 * into the database file and fsyncs it; inline (SQLite's autocheckpoint) that stalls whichever
 * commit crosses the threshold, tens of milliseconds on the ingest's event loop. PASSIVE mode
 * never blocks the writer, so the main thread only ever appends to the WAL.
 *
 * While commits arrive it looks every 10 ms (checkpoint-cadence.ts) and copies once the WAL holds
 * a few hundred frames (copyAtFrames, read from the wal-index header), then every 10 ms until the
 * WAL has been entirely copied between two commits and the next writer starts it over from the
 * beginning: it stays a few MB and the inline checkpoint does not fire at a steady 1,000
 * messages/s (under heavier writes it still does, a few times a second: docs/latency.md, change
 * 13). Stepping every 500 ms, as it does when the log is quiet, let the WAL reach the inline
 * limit (16 MB) under a steady 1,000 messages/s; copying at every 10 ms round started it over
 * ten times a second, each time an fsync of the WAL on the engine's thread (SQLite syncs a new WAL
 * header before writing after it).
 *
 * journal_size_limit (32 MB, above the inline checkpoint) cuts the WAL file back only after a
 * burst bigger than any the cadence leaves, and once the log has been quiet for a second with
 * every frame copied, the worker asks the main thread to TRUNCATE it (onWalCopied), which then
 * has nothing to copy and only cuts the file. It runs there, between two tasks, because no
 * transaction of ours is open then: from this thread, taking the write lock could make a
 * transaction of the main connection that read first fail with SQLITE_BUSY when it writes.
 * Under load it never runs (it would mean an fsync and tens of milliseconds on the event loop).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
const { statSync } = require('node:fs');
const littleEndian = require('node:os').endianness() === 'LE';
const checkpointStep = ${checkpointStep.toString()};
const checkpointDue = ${checkpointDue.toString()};
const walIndexFrames = ${walIndexFrames.toString()};
const walIndexReader = ${walIndexReader.toString()};
const walSize = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
// The wal-index's header says how many frames the WAL holds (null: no such file, or not readable).
const shm = walIndexReader(workerData.path, 20, require('node:fs'));
const walFrames = () => {
  const header = shm.read();
  return header === null ? null : walIndexFrames(header, littleEndian);
};
let lastVersion = null;
let lastChangeAt = null;
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
    const step = checkpointStep({ now, lastChangeAt, copiedAll, walBytes: copiedAll ? walSize() : 0 }, workerData.cadence);
    delayMs = step.delayMs;
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
timer = setTimeout(loop, workerData.cadence.idleIntervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  stopped = true;
  if (timer) clearTimeout(timer);
  run(true);
  shm.close();
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
  } = {},
): Checkpointer {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, module: require.resolve('better-sqlite3'), nativeBinding: options.nativeBinding, cadence: options.cadence ?? CHECKPOINT_CADENCE },
  });
  worker.unref();
  worker.on('message', (m: { error?: string; walCopied?: boolean }) => {
    if (m.error) process.stderr.write(`hookbench: WAL checkpoint failed: ${m.error}\n`);
    if (m.walCopied) options.onWalCopied?.();
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
