/**
 * The tracking plan in a real Chromium against a real `hookbench serve`: a plan typed into
 * Configure is refused inline when a schema cannot compile, then saved; a violating track shows its
 * violation (path, words, value) in Inbound, is counted per event in Configure, and is found with
 * the Deliveries filter, its row saying how many violations it has.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Receiver } from '../src-main/engine/testing/receiver';
import { oneReceiverConfig, screenshotPath, startWorkbench, type Workbench } from './support/workbench';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({ name: 'tracking-plan', config: oneReceiverConfig(receiver.url, { writeKey: 'wk_plan', sharedSecret: 's' }) });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

test('a tracking plan edited in Configure: refusals inline, violations in Inbound, counts in Configure, a filter in Deliveries', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ view: 'configure', viewport: { width: 1400, height: 1000 }, expectedConsole: /status of 400/ });
  await page.getByTestId('tracking-plan-section').waitFor();
  await page.getByTestId('violation-counts-empty').waitFor();

  const editor = page.getByTestId('tracking-plan-json');
  await editor.fill('{"events": {"Order Completed": {"type": "object", "properties": {"total": {"type": "money"}}}}}');
  await page.getByTestId('tracking-plan-save').click();
  await page.locator('[data-testid="field-error"][data-field^="trackingPlan.events"]').waitFor();
  assert.equal((await wb.call('getTrackingPlan')).plan, null, 'nothing refused was saved');

  await editor.fill('{"events": {"Order Completed": {"type": "object", "required": ["total"], "properties": {"total": {"type": "number"}}}}}');
  await page.getByTestId('tracking-plan-save').click();
  await page.getByTestId('tracking-plan-saved').waitFor();
  assert.deepEqual(Object.keys((await wb.call('getTrackingPlan')).plan?.events ?? {}), ['Order Completed']);

  const sent = await wb.ingest('/v1/batch', 'wk_plan', {
    batch: [
      { type: 'track', event: 'Order Completed', userId: 'u-1', properties: { total: 'ten' } },
      { type: 'track', event: 'Order Completed', userId: 'u-2', properties: { total: 10 } },
    ],
  });
  assert.equal(sent.status, 200);
  await receiver.waitFor(2);

  await page.getByTestId('violation-counts-refresh').click();
  await page.getByTestId('violation-counts').getByText('track “Order Completed”').waitFor();

  await page.evaluate(() => {
    location.hash = '#/inbound';
  });
  await page.getByTestId('inbound-row').first().click();
  const violation = page.getByTestId('inbound-violation');
  await violation.waitFor();
  assert.equal(await violation.count(), 1);
  assert.equal(await page.getByTestId('inbound-violation-path').textContent(), '/properties/total');
  assert.match((await violation.textContent()) ?? '', /must be number \(type\) "ten"/);
  await page.getByTestId('inbound-violating-count').waitFor();

  await page.evaluate(() => {
    location.hash = '#/deliveries';
  });
  await page.getByTestId('delivery-row').nth(1).waitFor();
  await page.getByTestId('filter-violations').selectOption('any');
  await page.locator('[data-testid="deliveries-count"][data-matching="1"]').waitFor();
  // The count and the page are two calls: the count may answer first, the rows a moment later.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="delivery-row"]').length === 1);
  assert.equal(await page.getByTestId('delivery-row').count(), 1);
  assert.equal(await page.getByTestId('delivery-violations').getAttribute('data-count'), '1');
  await page.screenshot({ path: screenshotPath('tracking-plan-deliveries') });
  assert.deepEqual(problems, []);
});
