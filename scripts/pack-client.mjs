#!/usr/bin/env node
// `npm run pack:client`: builds the client package from its sources into a staging folder and packs
// it into out/pack/. The tarball's absolute path is the last line of stdout, for scripts and tests.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const clientDir = join(root, 'src-client');
const dest = join(root, 'out', 'pack');
const stage = join(dest, 'stage');

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? '');
    console.error(`pack-client: ${[command, ...args].join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
    process.exit(result.status ?? 1);
  }
  return result.stdout;
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const file of ['package.json', 'README.md']) copyFileSync(join(clientDir, file), join(stage, file));
process.stdout.write(run(process.execPath, [join(root, 'scripts', 'build-client.mjs'), join(stage, 'dist')]));
// Under `npm run`, npm_execpath is npm's own CLI script: no shell needed on any system.
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const out = run(npm[0], [...npm.slice(1), 'pack', '--json', '--pack-destination', dest], {
  cwd: stage,
  shell: npm.length === 1 && process.platform === 'win32',
});
const [packed] = JSON.parse(out.slice(out.indexOf('[')));
console.log(join(dest, packed.filename));
