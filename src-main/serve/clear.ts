/**
 * `hookbench clear`: empties the log of a data folder no Hookbench is running on. A running one
 * holds the folder's lock, and is told to clear through its own UI instead: two processes writing
 * one log is what the lock exists to prevent, and the CLI cannot know the running server's port
 * and per-launch token.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../engine';
import { DataDirLockedError } from '../engine/store/data-lock';
import { parseClearArgs } from './args';
import { defaultDataDir } from './data-dir';

export interface ClearOutput {
  out(text: string): void;
  err(text: string): void;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Returns the exit code: 0 cleared, 1 nothing done (no --yes), 2 refused. */
export async function clearCommand(argv: string[], io: ClearOutput): Promise<number> {
  let args;
  try {
    args = parseClearArgs(argv);
  } catch (err) {
    io.err(`hookbench: ${(err as Error).message}\n`);
    return 2;
  }
  const dataDir = args.dataDir ?? defaultDataDir();
  if (!existsSync(join(dataDir, 'hookbench.sqlite'))) {
    io.err(`hookbench: there is no Hookbench log in ${dataDir}\n`);
    return 2;
  }
  let engine;
  try {
    engine = createEngine({ dataDir });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      io.err(
        `hookbench: a running Hookbench (pid ${err.pid}) is using ${dataDir}; use "Clear log" in its Configure view, or stop it and run hookbench clear again\n`,
      );
      return 2;
    }
    throw err;
  }
  try {
    const before = engine.retention.status();
    if (!args.yes) {
      const c = engine.stores.retention.counts();
      io.out(
        `${dataDir}: ${c.requests} requests, ${c.messages} messages, ${c.deliveries} deliveries (${c.activeDeliveries} still pending or retrying, which stay); ${mb(before.databaseBytes)} on disk.\n` +
          'hookbench clear --yes removes the requests, messages, dropped items, finished deliveries and their attempts, and the requests test receivers got; sources, destinations, settings, profiles, audiences and deletion requests stay.\n',
      );
      return 1;
    }
    const r = await engine.retention.clear();
    // Nothing else runs on the folder now: a good moment for an older, unconverted file.
    engine.stores.compactFile();
    const after = engine.retention.status();
    io.out(
      `cleared ${dataDir}: ${r.requests} requests, ${r.messages} messages, ${r.deliveries} deliveries, ${r.attempts} attempts, ${r.droppedItems} dropped items, ${r.receiverRequests} receiver requests; ` +
        `kept ${r.keptActiveDeliveries} deliveries still pending or retrying; ${mb(before.databaseBytes + before.walBytes)} → ${mb(after.databaseBytes + after.walBytes)} on disk\n`,
    );
    return 0;
  } finally {
    await engine.stop();
  }
}
