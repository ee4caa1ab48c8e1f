/**
 * Stopping `hookbench serve` while a real Chromium tab holds the live stream (and its keep-alive
 * sockets): the process exits at once, and the tab says Hookbench stopped instead of Live.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { screenshotPath, startWorkbench, waitConnected, type Workbench } from './support/workbench';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';

let wb: Workbench | null = null;
/** The tab the first test leaves showing "Hookbench stopped". */
let stoppedPage: Page | null = null;
let restarted: ServeProcess | null = null;

before(async () => {
  wb = await startWorkbench({ name: 'stop' });
});

after(async () => {
  if (restarted) {
    restarted.child.kill('SIGTERM');
    await restarted.exited;
  }
  await wb?.close();
});

test('SIGTERM with a tab open: serve exits 0 within 2 s, the badge and a banner say Hookbench stopped', async (t) => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 1280, height: 800 }, consoleErrors: false });
  const badge = page.getByTestId('connection-state');
  assert.equal(await badge.textContent(), 'Live');

  const started = performance.now();
  wb.serve.child.kill('SIGTERM');
  const exit = await wb.serve.exited;
  const took = performance.now() - started;
  assert.deepEqual(exit, { code: 0, signal: null }, wb.serve.stderr());
  t.diagnostic(`stopped in ${Math.round(took)} ms`);
  assert.ok(took < 2_000, `stopped in ${Math.round(took)} ms`);

  await page.locator('[data-testid="connection-state"][data-state="stopped"]').waitFor({ timeout: 5_000 });
  assert.equal(await badge.textContent(), 'Hookbench stopped');
  assert.match((await page.getByTestId('stopped-banner').textContent()) ?? '', /^Hookbench stopped: nothing here updates any more/);
  assert.equal(await page.getByTestId('live-pause').textContent(), 'Hookbench stopped');
  assert.equal(await page.getByTestId('live-pause').isDisabled(), true);
  // It stays so: the tab does not fall back to "Reconnecting…" (whose first retry is 500 ms out).
  await page.waitForTimeout(1_500);
  assert.equal(await badge.getAttribute('data-state'), 'stopped');
  await page.screenshot({ path: screenshotPath('stopped') });
  assert.deepEqual(problems, []);
  stoppedPage = page;
});

test('the same tab after a restart on the same folder and port: the failed load says so with a Retry, then every error clears by itself', async () => {
  assert.ok(wb && stoppedPage, 'runs after the stop test');
  const page = stoppedPage;
  // A view shown while the engine is down fails to load, in plain words, with a Retry.
  await page.getByTestId('nav-configure').click();
  const failed = page.getByTestId('configure-error');
  await failed.waitFor();
  assert.match((await failed.textContent()) ?? '', /^Could not load the configuration: Hookbench does not answer/);
  await page.getByTestId('configure-error-retry').click();
  await failed.waitFor();
  await page.screenshot({ path: screenshotPath('stopped-configure-retry') });

  const port = new URL(wb.url).port;
  restarted = await startServe(['--port', port, '--data-dir', join(wb.dir, 'data')], { env: { HOOKBENCH_TOKEN: wb.token } });
  // No reload and no click: the tab finds the engine again and reads anew.
  await waitConnected(page);
  await page.getByTestId('configure-ready').waitFor();
  await failed.waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('stopped-banner').count(), 0);
  assert.equal(await page.getByTestId('error-banner').count(), 0);
  assert.equal(await page.getByTestId('connection-state').textContent(), 'Live');
  await page.screenshot({ path: screenshotPath('restarted-configure') });
});
