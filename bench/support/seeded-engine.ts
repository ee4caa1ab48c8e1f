import { createEngine, type Engine } from '../../src-main/engine';
import type { HookbenchConfig } from '../../src-main/engine/config';
import { listen, type RunningServer } from '../../src-main/serve/server';
import { RECEIVER_WORKER, runWorker } from './load';
import { scaleConfig } from './seed';

export interface SeededEngine {
  engine: Engine;
  /** The scale config, delivering to the local receiver. */
  config: HookbenchConfig;
  /** Its Tracking API and control API on 127.0.0.1. */
  server: RunningServer;
  /** How long what an upgraded log does after start took, from the engine's start. */
  caughtUpMs: number;
  /** Stops the server, the engine and the receiver. */
  close(): Promise<void>;
}

/** Whether what an upgraded log does after start is done: the bodies packed, the search index, the tallies, the list of rare statuses, the messages' times and the attempt URLs' ranges caught up. */
export const upgradeCaughtUp = (engine: Engine): boolean =>
  engine.stores.log.bodiesPacked() &&
  engine.stores.deliveryViews.textIndexReady() &&
  engine.stores.tallies.range().below === 0 &&
  engine.stores.rareStatuses.ready() &&
  engine.stores.messageTimes.ready() &&
  engine.stores.attemptUrlRanges.ready();

/**
 * An engine on a folder seeded by the scale benchmark (a copy: measures write to it), with the
 * scale config delivering to a local receiver on a thread of its own, listening on 127.0.0.1,
 * and what an upgraded log does after start (packing the bodies, the search index's backfill,
 * the message tallies) done first and the read worker answering, so that a measure times only its own calls.
 */
export async function engineOnSeededCopy(dir: string): Promise<SeededEngine> {
  const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: false });
  const config = scaleConfig(`http://127.0.0.1:${(await receiver.result).port}/hook`);
  // As `hookbench serve` runs it: the read worker started with the engine.
  const engine = createEngine({ dataDir: dir, readWorkerAtStart: true });
  engine.applyConfig(config);
  const started = performance.now();
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0);
  while (!upgradeCaughtUp(engine) || !engine.reads.answering()) await new Promise((r) => setTimeout(r, 20));
  return {
    engine,
    config,
    server,
    caughtUpMs: performance.now() - started,
    async close() {
      await server.close();
      await engine.stop();
      await receiver.worker.terminate();
    },
  };
}
