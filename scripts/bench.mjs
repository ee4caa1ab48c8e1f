#!/usr/bin/env node
// `npm run bench [name…]`: runs bench/*.bench.ts one after another (never in parallel: they measure
// the same 2 cores). Each prints its raw baseline from the same run and the ratio.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);
const benches = readdirSync(new URL('../bench', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
// bench/client.bench.ts imports hookbench/client, the compiled package: build it from the sources first.
if (benches.some((f) => f.startsWith('client'))) {
  const built = spawnSync(process.execPath, ['scripts/build-client.mjs'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
let failed = 0;
for (const file of benches) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
  console.log('');
}
process.exit(failed === 0 ? 0 : 1);
