/**
 * Clear log on a big log: a measurement, not one of the `npm run bench` ratios.
 *
 *   node --import tsx bench/clear-log.measure.ts <data folder>
 *
 * The data folder must be a COPY of a seeded scale log (bench/.cache/scale-<n>-seed2/data: the
 * run empties it). Starts an engine on it (bench/support/seeded-engine.ts), waits for what an
 * upgraded log does after start, then asks for Clear log through the engine's API and, until it
 * answers, reads its progress every second as the Configure view does. It prints the clear's two
 * phases (removing rows; giving the freed pages back), each with its time, and the longest the
 * engine's event loop went without a turn (libuv's timer, 1 ms resolution): what an ingest call
 * arriving then would have waited at most. Then the search index's tidying, which follows.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngineApi } from '../src-main/engine/api';
import { LogInspector } from '../src-main/engine/store/inspect';
import { fmt } from './support/load';
import { engineOnSeededCopy } from './support/seeded-engine';

const dataDir = process.argv[2] ?? '';
if (!dataDir) throw new Error('usage: node --import tsx bench/clear-log.measure.ts <copy of a seeded data folder>');

interface PhaseFigures {
  ms: number;
  stallMs: number;
}

async function main(): Promise<void> {
  const seeded = await engineOnSeededCopy(dataDir);
  console.log(`caught up after start in ${fmt(seeded.caughtUpMs / 1000, 1)} s`);
  const api = createEngineApi(seeded.engine);
  const before = await api.getStorage();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const t0 = performance.now();
  let releasingAt: number | null = null;
  let removing: PhaseFigures | null = null;
  let done = false;
  let polls = 0;
  const clear = api.clearLog().finally(() => (done = true));
  while (!done) {
    await new Promise((r) => setTimeout(r, 1000));
    const progress = (await api.getStorage()).clearing;
    if (progress?.releasing && releasingAt === null) {
      releasingAt = performance.now();
      removing = { ms: releasingAt - t0, stallMs: loop.max / 1e6 };
      loop.reset();
    }
    if (progress && ++polls % 10 === 0) {
      const s = (performance.now() - t0) / 1000;
      console.log(
        `  ${fmt(s, 0)} s: removed ${fmt(progress.removedMessages)} of about ${fmt(progress.aboutMessages)} messages` +
          (progress.releasing ? `; ${fmt(progress.freeBytesLeft / 2 ** 20)} MB of free space left to give back` : ''),
      );
    }
  }
  const result = await clear;
  const end = performance.now();
  const after = await api.getStorage();
  const releasing: PhaseFigures = { ms: end - (releasingAt ?? end), stallMs: loop.max / 1e6 };
  removing ??= { ms: end - t0, stallMs: loop.max / 1e6 };
  // The clear tidies the search index before it answers: its table should not change after.
  loop.reset();
  const inspect = LogInspector.of(dataDir, { readonly: true });
  const indexRows = (): number => inspect.count('message_text_data');
  const rowsBefore = indexRows();
  let tidied = end;
  for (let rows = rowsBefore, still = 0; still < 3; ) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = indexRows();
    if (now === rows) still++;
    else [rows, still, tidied] = [now, 0, performance.now()];
  }
  const tidy: PhaseFigures = { ms: tidied - end, stallMs: loop.max / 1e6 };
  const rowsAfter = indexRows();
  inspect.close();
  loop.disable();
  console.log(
    `cleared ${fmt(result.messages)} messages, ${fmt(result.deliveries)} deliveries, ${fmt(result.attempts)} attempts, ${fmt(result.requests)} requests ` +
      `(kept ${fmt(result.keptActiveDeliveries)} deliveries still retrying) in ${fmt((end - t0) / 1000, 1)} s`,
  );
  console.log(`  removing rows: ${fmt(removing.ms / 1000, 1)} s (${fmt(result.messages / (removing.ms / 1000))} messages/s), longest event-loop stall ${fmt(removing.stallMs, 1)} ms`);
  console.log(`  tidying the search index and giving the space back: ${fmt(releasing.ms / 1000, 1)} s, longest event-loop stall ${fmt(releasing.stallMs, 1)} ms`);
  console.log(
    `  the search index after the clear: changed for ${fmt(tidy.ms / 1000, 1)} s (${fmt(rowsBefore)} → ${fmt(rowsAfter)} rows of its data), longest event-loop stall ${fmt(tidy.stallMs, 1)} ms`,
  );
  console.log(`  on disk: ${fmt(before.databaseBytes / 2 ** 20)} MB → ${fmt(after.databaseBytes / 2 ** 20)} MB`);
  await seeded.close();
}

await main();
