/**
 * Stopping `hookbench serve` while a real Chromium tab holds the live stream (and its keep-alive
 * sockets): the process exits at once, and the tab says Hookbench stopped instead of Live.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

let wb: Workbench | null = null;

before(async () => {
  wb = await startWorkbench({ name: 'stop' });
});

after(async () => {
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
});
