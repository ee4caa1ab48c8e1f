/**
 * A new user's first run from the empty Deliveries view, against a `hookbench serve` with nothing
 * configured: the three steps say what is missing and link to Configure, "Replay failed in this
 * filter" is off on the empty log, each step turns done as soon as it is (live, no reload), and
 * "Send a test event" ends in a delivery the receiver gets. At 1440 and 640 px, light and dark.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({ name: 'first-run' });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(`${name}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath(`${name}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

test('source → destination → test event from the empty Deliveries view, each step done live', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const step = (name: string) => page.getByTestId(`first-run-${name}`);
  await step('source').waitFor();
  assert.equal(await step('source').getAttribute('data-done'), 'false');
  assert.equal(await step('destination').getAttribute('data-done'), 'false');
  assert.equal(await step('source').getByRole('link', { name: 'Create one in Configure' }).getAttribute('href'), '#/configure');
  assert.equal(await page.getByTestId('first-run-send').count(), 0, 'no test event without a source');
  assert.equal(await page.getByTestId('replay-failed').isDisabled(), true, 'nothing to replay in an empty log');
  await shoot(page, 'first-run-empty-1440');

  // Made elsewhere (another tab, the CLI), the source shows here at once, with its key to copy.
  await wb.call('saveSource', { name: 'backend', writeKey: 'wk_first_run_0001' });
  await page.locator('[data-testid="first-run-source"][data-done="true"]').waitFor();
  await page.getByTestId('first-run-writekey-copy').click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'wk_first_run_0001');
  assert.match((await step('destination').textContent()) ?? '', /No destination is attached to “backend”/);
  assert.match((await page.getByTestId('empty-snippet').textContent()) ?? '', /-u 'wk_first_run_0001:'/);
  await page.getByTestId('empty-snippet-copy').click();
  assert.match(await page.evaluate(() => navigator.clipboard.readText()), /^curl http:\/\/127\.0\.0\.1:\d+\/v1\/track/);

  await wb.call('saveDestination', { name: 'My receiver', enabled: true, sources: ['backend'], sharedSecret: null, webhooks: [{ url: receiver.url, headers: {} }] });
  await page.locator('[data-testid="first-run-destination"][data-done="true"]').waitFor();
  await shoot(page, 'first-run-ready-1440');

  await page.getByTestId('first-run-send').click();
  await receiver.waitFor(1);
  const row = page.getByTestId('delivery-row').first();
  await row.filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) }).waitFor({ timeout: 15_000 });
  assert.equal(await row.getByTestId('delivery-event').textContent(), 'Hookbench Test Event');
  assert.equal(await page.getByTestId('replay-failed').isDisabled(), false, 'with a delivery in the log the bulk replay is offered');
  assert.deepEqual(problems, []);
  await page.close();
});

test('at 640 px the first-run steps fit the window', async () => {
  assert.ok(wb);
  await wb.call('clearLog');
  const { page, problems } = await wb.openPage({ viewport: { width: 640, height: 900 } });
  await page.locator('[data-testid="first-run-destination"][data-done="true"]').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
  await shoot(page, 'first-run-640');
  assert.deepEqual(problems, []);
  await page.close();
});
