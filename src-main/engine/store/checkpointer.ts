import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { WAL_SIZE_LIMIT_BYTES } from './database';

/**
 * Runs WAL checkpoints on a worker thread with its own connection. A checkpoint copies the WAL
 * into the database file and fsyncs it; inline (SQLite's autocheckpoint) that stalls whichever
 * commit crosses the threshold, tens of milliseconds on the ingest's event loop. PASSIVE mode
 * never blocks the writer, so the main thread only ever appends to the WAL.
 *
 * A PASSIVE checkpoint never shrinks the WAL file. When one has copied every frame and the file is
 * over the size limit, the worker says so and the main thread runs a TRUNCATE (onWalCopied): there,
 * between two tasks, no transaction of ours is open (from this thread, resetting the WAL under the
 * main connection's open read transaction would make its next write fail with SQLITE_BUSY), and
 * with the frames already copied it only cuts the file.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.path, workerData.nativeBinding ? { nativeBinding: workerData.nativeBinding } : {});
db.pragma('busy_timeout = 1000');
const { statSync } = require('node:fs');
const walSize = () => { try { return statSync(workerData.path + '-wal').size; } catch { return 0; } };
const run = () => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r && r.busy === 0 && r.log > 0 && r.log === r.checkpointed && walSize() > workerData.walLimitBytes) {
      parentPort.postMessage({ walCopied: true });
    }
  } catch (err) {
    parentPort.postMessage({ error: String(err) });
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
    walLimitBytes?: number;
    /** Every frame of a WAL over the size limit is in the database file: a TRUNCATE now only cuts it. */
    onWalCopied?: () => void;
  } = {},
): Checkpointer {
  const require = createRequire(import.meta.url);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { path, module: require.resolve('better-sqlite3'), nativeBinding: options.nativeBinding, intervalMs: options.intervalMs ?? 500, walLimitBytes: options.walLimitBytes ?? WAL_SIZE_LIMIT_BYTES },
  });
  worker.unref();
  worker.on('message', (m: { error?: string; walCopied?: boolean }) => {
    if (m.error) process.stderr.write(`hookbench: WAL checkpoint failed: ${m.error}\n`);
    if (m.walCopied) options.onWalCopied?.();
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        const done = (): void => {
          void worker.terminate().then(() => resolve());
        };
        worker.once('message', done);
        worker.once('error', done);
        worker.postMessage('stop');
      }),
  };
}
