/**
 * Builds the renderer into a temp dir of this test file's own, so test files running side by side
 * never read each other's half-written out/ (serve takes it through HOOKBENCH_UI_DIR).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

export function buildUi(): string {
  const outDir = mkdtempSync(join(tmpdir(), 'hookbench-ui-'));
  // The local electron-vite through this Node, the same as `npx electron-vite build` without needing npx on PATH.
  const cli = join(root, 'node_modules/electron-vite/bin/electron-vite.js');
  const build = spawnSync(process.execPath, [cli, 'build', '--outDir', outDir], { cwd: root, encoding: 'utf8', timeout: 180_000 });
  assert.equal(build.status, 0, `electron-vite build failed:\n${build.stdout}\n${build.stderr}`);
  const uiDir = join(outDir, 'renderer');
  assert.ok(existsSync(join(uiDir, 'index.html')), 'the build made no renderer/index.html');
  return uiDir;
}

export const CHROMIUM = process.env.HOOKBENCH_CHROMIUM ?? '/usr/bin/chromium';

/** Debian's Chromium, headless, without the background services this closed network refuses. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
