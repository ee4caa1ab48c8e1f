/**
 * A scheduler running alone on a real log: an engine sets the log up (one destination pointing at
 * the receiver, and whatever `prepare` adds through its stores) and stops; the scheduler then runs
 * on its own connection to that file, so its timers are the only ones on the clock and a test
 * sees each claim it makes. Not started: the test starts it when it is ready.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManualClock } from '../clock';
import { createEngine, type Engine } from '../index';
import { openDatabase } from '../store/database';
import { createStores, type Stores } from '../store/stores';
import { Scheduler } from '../delivery/scheduler';
import { createSender } from '../delivery/sender';
import { configWith } from './harness';

export interface LoneScheduler {
  scheduler: Scheduler;
  stores: Stores;
  /** Stops the scheduler, closes the log and removes its folder. */
  close(): Promise<void>;
}

export async function loneScheduler(o: { clock: ManualClock; receiverUrl: string; prepare?: (engine: Engine) => void }): Promise<LoneScheduler> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-lone-scheduler-'));
  const engine = createEngine({ dataDir, clock: o.clock, random: () => 0.5 });
  engine.applyConfig(configWith(o.receiverUrl));
  const settings = engine.deliverySettings();
  o.prepare?.(engine);
  await engine.stop();
  const db = openDatabase(join(dataDir, 'hookbench.sqlite'));
  const stores = createStores(db);
  const scheduler = new Scheduler({
    log: stores.log,
    clock: o.clock,
    sender: createSender({ clock: o.clock }),
    destination: (id) => stores.config.listDestinations().find((d) => d.id === id),
    settings: () => settings,
    random: () => 0.5,
  });
  return {
    scheduler,
    stores,
    async close() {
      await scheduler.stop();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
