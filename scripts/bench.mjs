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
let failed = 0;
for (const file of benches) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed++;
  console.log('');
}
process.exit(failed === 0 ? 0 : 1);
