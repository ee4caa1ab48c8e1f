#!/usr/bin/env node
// Builds better-sqlite3 for the installed Electron's ABI into build/electron-sqlite/ (
// the desktop app loads it through the engine's nativeBinding option). node_modules/better-sqlite3
// and its build/ stay exactly as npm made them, so the tests and headless mode keep the Node build.
//
//   node scripts/rebuild-electron-sqlite.mjs [--nodedir=DIR] [--arch=ARCH] [--out=DIR]
//
// Needs Electron's headers (downloaded from https://electronjs.org/headers, or --nodedir=DIR with
// them already unpacked), Python 3 and a C++20 compiler. On failure it says so and exits 1; the
// Node build is never touched.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
// The same place src-main/electron/paths.ts reads and electron-builder.yml ships.
export const OUT_DIR = join(root, 'build', 'electron-sqlite');
export const BINDING = join(OUT_DIR, 'better_sqlite3.node');
export const STAMP = join(OUT_DIR, 'built-for.txt');
const HEADERS_URL = 'https://electronjs.org/headers';
// Downloading headers and compiling SQLite takes a minute or two; a stalled download must not hang `npm start`.
const TIMEOUT_MS = 15 * 60_000;

/** What the binding is built for; start.mjs rebuilds when this changes (an Electron upgrade). */
export function targetOf(electronVersion, arch = process.arch) {
  return `electron ${electronVersion} ${process.platform}-${arch}`;
}

let work = null;

function fail(message) {
  if (work) rmSync(work, { recursive: true, force: true });
  console.error(`hookbench: could not build better-sqlite3 for Electron: ${message}`);
  console.error('hookbench: node_modules/better-sqlite3 (the Node build the tests and headless mode use) is untouched.');
  process.exit(1);
}

function option(name) {
  const prefix = `--${name}=`;
  return process.argv.slice(2).find((a) => a.startsWith(prefix))?.slice(prefix.length);
}

/** npm's own node-gyp first (kept current with npm, so it knows today's Python), then a local one. */
function nodeGyp() {
  const candidates = [];
  if (process.env.npm_execpath) candidates.push(join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  candidates.push(join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  try {
    candidates.push(require.resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not installed locally; npm's copy is the usual one anyway
  }
  return candidates.find((c) => existsSync(c)) ?? null;
}

/**
 * npm passes its config to scripts as npm_config_* variables, and node-gyp reads those as its own
 * options: a user's nodedir or target would silently build against Node's headers instead.
 */
function cleanEnv() {
  const steer = new Set(['nodedir', 'target', 'runtime', 'disturl', 'dist_url', 'arch', 'target_arch', 'devdir', 'build_from_source']);
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_config_') && steer.has(lower.slice('npm_config_'.length))) continue;
    env[key] = value;
  }
  return env;
}

function main() {
  let electronVersion;
  let sqliteDir;
  try {
    electronVersion = require('electron/package.json').version;
  } catch {
    fail('the electron package is not installed (run npm install)');
  }
  try {
    sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
  } catch {
    fail('the better-sqlite3 package is not installed (run npm install)');
  }
  const gyp = nodeGyp();
  if (!gyp) fail("node-gyp was not found (it ships with npm; is npm installed beside this Node?)");
  const arch = option('arch') ?? process.arch;
  const nodedir = option('nodedir');
  const outDir = option('out') ?? OUT_DIR;
  const binding = join(outDir, 'better_sqlite3.node');

  // A copy of the sources, so node-gyp's build/ lands here and not in node_modules/better-sqlite3/build.
  // Its package.json comes too: without it, the build's helper scripts (deps/*.js) would be read as ES
  // modules under this project's "type": "module".
  work = join(outDir, 'work');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  for (const part of ['package.json', 'binding.gyp', 'src', 'deps']) cpSync(join(sqliteDir, part), join(work, part), { recursive: true });

  const args = [gyp, 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', `--arch=${arch}`];
  if (nodedir) args.push(`--nodedir=${nodedir}`);
  else args.push(`--dist-url=${HEADERS_URL}`, `--devdir=${join(homedir(), '.electron-gyp')}`);
  console.error(`hookbench: building better-sqlite3 for Electron ${electronVersion} (${process.platform}-${arch}); ${nodedir ? `headers from ${nodedir}` : `headers from ${HEADERS_URL}`}…`);
  const run = spawnSync(process.execPath, args, { cwd: work, env: cleanEnv(), stdio: ['ignore', 'inherit', 'inherit'], timeout: TIMEOUT_MS });
  if (run.error) fail(run.error.code === 'ETIMEDOUT' ? `node-gyp took longer than ${TIMEOUT_MS / 60_000} minutes` : run.error.message);
  if (run.status !== 0) {
    fail(
      `node-gyp exited with ${run.status ?? run.signal}. It needs Electron's headers (internet access to ${HEADERS_URL}, ` +
        'or --nodedir=DIR with them unpacked), Python 3 and a C++20 compiler; the lines above say which was missing.',
    );
  }
  const built = join(work, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(built)) fail(`node-gyp succeeded but made no ${built}`);
  // Copied then renamed, so a half-written binding is never picked up by a starting app.
  cpSync(built, `${binding}.tmp`);
  renameSync(`${binding}.tmp`, binding);
  writeFileSync(join(outDir, 'built-for.txt'), `${targetOf(electronVersion, arch)}\n`);
  rmSync(work, { recursive: true, force: true });
  console.error(`hookbench: built ${binding}`);
}

// Run as a script (start.mjs spawns it); imported, it only lends its paths.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
