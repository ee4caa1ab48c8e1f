/**
 * The first profiles call after a start, start after start, on a seeded log: the scale benchmark
 * times it once per run (one sample, 25 to 174 ms at 10M across runs), so this repeats it. Each
 * start opens the folder, listens, asks for the first page of profiles (the read worker starts
 * for it), a second page, and the first page of deliveries, then stops.
 *
 *   cp -r bench/.cache/scale-10000000-seed2/data /tmp/copy/data && sync   (after `SCALE=10m npm run bench scale`)
 *   node --import tsx bench/first-profiles.measure.ts /tmp/copy [starts]
 *
 * Drop the page cache before it (`echo 3 > /proc/sys/vm/drop_caches`, as root) to time a cold file.
 * The first start brings an older cache's schema up to date, so it writes to the folder: use a copy.
 */
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
import { listen } from '../src-main/serve/server';

const dir = process.argv[2];
if (!dir) throw new Error('usage: first-profiles.measure.ts <folder holding data/ (a copy)> [starts]');
const starts = Number(process.argv[3] ?? 5);
const ms = (a: number, b: number): string => (b - a).toFixed(1);
for (let k = 0; k < starts; k++) {
  const t0 = performance.now();
  const engine = createEngine({ dataDir: join(dir, 'data') });
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0);
  const t1 = performance.now();
  const api = createEngineApi(engine);
  await api.listProfiles({});
  const t2 = performance.now();
  await api.listProfiles({});
  const t3 = performance.now();
  await api.listDeliveries({});
  const t4 = performance.now();
  console.log(`start ${ms(t0, t1)} ms; first profiles call ${ms(t1, t2)} ms, second ${ms(t2, t3)} ms; deliveries, first page ${ms(t3, t4)} ms`);
  await server.close();
  await engine.stop();
}
