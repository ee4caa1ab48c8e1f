#!/usr/bin/env node
// Builds the client package (src-client/) with tsc: ESM in dist/esm, CommonJS in dist/cjs, each with
// its .d.ts. Run by `npm install` (the root `prepare` script) and `npm test`. With a folder argument
// it builds there instead of src-client/dist (`npm run pack:client` stages its tarball that way, so
// packing never pulls the build from under a running test).
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const clientDir = fileURLToPath(new URL('../src-client/', import.meta.url));
const require = createRequire(import.meta.url);

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  // `npm install --omit=dev` has no TypeScript: the app and `hookbench serve` still work, only the
  // client package is not built. Say so instead of failing the whole install.
  console.warn('build-client: typescript is not installed (dev dependency); hookbench/client was not built');
  process.exit(0);
}

const dist = process.argv[2] ? resolve(process.argv[2]) : join(clientDir, 'dist');
rmSync(dist, { recursive: true, force: true });
for (const [config, format] of [
  ['tsconfig.build.json', 'module'],
  ['tsconfig.build-cjs.json', 'commonjs'],
]) {
  const out = join(dist, format === 'module' ? 'esm' : 'cjs');
  const result = spawnSync(process.execPath, [tsc, '-p', join(clientDir, config), '--outDir', out], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`build-client: tsc -p src-client/${config} failed`);
    process.exit(result.status ?? 1);
  }
  // src-client/package.json says "module"; the CommonJS half needs its own scope to be read as such.
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ type: format })}\n`);
}
