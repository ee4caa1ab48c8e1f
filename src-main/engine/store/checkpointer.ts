import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

/**
 * Runs WAL checkpoints on a worker thread with its own connection. A checkpoint copies the WAL
 * into the database file and fsyncs it; inline (SQLite's autocheckpoint) that stalls whichever
 * commit crosses the threshold, tens of milliseconds on the ingest's event loop. PASSIVE mode
 * never blocks the writer, so the main thread only ever appends to the WAL.
 *
 * A PASSIVE checkpoint never shrinks the WAL file; journal_size_limit cuts it back to 4 MB each
 * time the writer starts it over, and when the log has gone quiet (every frame copied and no
 * commit since the previous round) the worker asks the main thread to TRUNCATE it (onWalCopied),
 * which then has nothing to copy and only cuts the file. It runs there, between two tasks, because
 * no transaction of ours is open then: from this thread, taking the write lock could make a
 * transaction of the main connection that read first fail with SQLITE_BUSY when it writes. Under
 * load it never runs (it would mean an fsync and tens of milliseconds on the event loop).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
const { statSync } = require('node:fs');
const walSize = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
let lastVersion = -1;
let lastError = null;
const run = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    lastError = null;
    // data_version changes when another connection has committed since this one last asked.
    const version = db.pragma('data_version', { simple: true });
    const quiet = version === lastVersion;
    lastVersion = version;
    if (quiet && r && r.busy === 0 && r.log === r.checkpointed && walSize() > 0) {
      parentPort.postMessage({ walCopied: true });
    }
  } catch (err) {
    // Said once per new cause: a full disk fails every checkpoint until space is freed.
    if (String(err) !== lastError) parentPort.postMessage({ error: String(err) });
    lastError = String(err);
  }
};
const timer = setInterval(run, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  run();
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
    intervalMs?: number;
    /** The log is quiet and every frame of the WAL is in the database file: a TRUNCATE now only cuts the file. */
    onWalCopied?: () => void;
  } = {},
): Checkpointer {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, module: require.resolve('better-sqlite3'), nativeBinding: options.nativeBinding, intervalMs: options.intervalMs ?? 500 },
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
