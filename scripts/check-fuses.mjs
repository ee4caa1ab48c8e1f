#!/usr/bin/env node
// `node scripts/check-fuses.mjs dist/`: reads the fuses back from every packaged app electron-builder
// left unpacked under dist/ (linux-unpacked, win-unpacked, mac*/Hookbench.app) and fails on any that
// differs from electron-fuses.mjs. CI runs it after `npm run dist`.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fuseMismatches } from './electron-fuses.mjs';

const dist = resolve(process.argv[2] ?? 'dist');
const binaries = [];
for (const dir of readdirSync(dist, { withFileTypes: true })) {
  if (!dir.isDirectory()) continue;
  const d = join(dist, dir.name);
  if (dir.name.startsWith('linux') && dir.name.endsWith('unpacked')) binaries.push(join(d, 'hookbench-desktop'));
  else if (dir.name.startsWith('win') && dir.name.endsWith('unpacked')) binaries.push(join(d, 'Hookbench.exe'));
  else if (dir.name.startsWith('mac')) binaries.push(join(d, 'Hookbench.app'));
}
const found = binaries.filter((b) => existsSync(b));
if (found.length === 0) {
  console.error(`check-fuses: no packaged app under ${dist}`);
  process.exit(1);
}
let failed = false;
for (const binary of found) {
  const wrong = await fuseMismatches(binary);
  console.log(wrong.length === 0 ? `fuses ok: ${binary}` : `fuses WRONG: ${binary}\n  ${wrong.join('\n  ')}`);
  failed ||= wrong.length > 0;
}
process.exit(failed ? 1 : 0);
