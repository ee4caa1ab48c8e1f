/**
 * Inbound as an inspector and Deliveries by time, in a real Chromium against a real `hookbench
 * serve`: calls accepted and refused (one refused body past what the log keeps), each call's
 * headers and body as received, the filters and keys, and the oldest page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { REQUEST_BODY_LIMITS } from '../src-shared/api';
import { Receiver } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const WRITE_KEY = 'wk_inspector';
let wb: Workbench | null = null;
const receiver = new Receiver();

before(async () => {
  await receiver.start('/hook');
  wb = await startWorkbench({
    name: 'inspector',
    config: {
      sources: [
        { name: 'web', writeKey: WRITE_KEY },
        { name: 'backend', writeKey: 'wk_backend' },
      ],
      destinations: [{ name: 'Receiver', enabled: true, sources: ['web', 'backend'], sharedSecret: 's', webhooks: [{ url: receiver.url }] }],
    },
  });
});

after(async () => {
  await wb?.close();
  await receiver.close();
});

test('Inbound shows each call as received, filters by status, source, path and time; Deliveries jumps to the oldest', async () => {
  assert.ok(wb);
  for (const user of ['ann', 'bob', 'cy']) {
    assert.equal((await wb.ingest('/v1/track', WRITE_KEY, { userId: user, event: 'Order Completed', properties: { total: 9 } })).status, 200);
  }
  assert.equal((await wb.ingest('/v1/track', 'wk_backend', { userId: 'dee', event: 'Server Side' })).status, 200);
  // A refused call whose body is longer than the log keeps of a refused one.
  const broken = `{"batch": [${'{"type":"track","userId":"x"},'.repeat(60)}`;
  assert.ok(broken.length > REQUEST_BODY_LIMITS.refused);
  const refused = await fetch(`${wb.url}/v1/batch`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`, 'content-type': 'application/json', 'x-trace': 'inspector-e2e' },
    body: broken,
  });
  assert.equal(refused.status, 400);

  const { page, problems } = await wb.openPage({ view: 'inbound', viewport: { width: 1500, height: 1100 } });
  const rows = page.getByTestId('inbound-row');
  await rows.nth(4).waitFor();
  assert.equal(await rows.count(), 5);

  // Refused only: the one broken call; its body is clipped and says so.
  await page.getByTestId('inbound-filter-status').selectOption('refused');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="inbound-row"]').length === 1);
  await rows.first().click();
  const raw = page.getByTestId('inbound-raw');
  await raw.waitFor();
  assert.equal(await page.locator('[data-testid="inbound-raw-header"][data-name="x-trace"] td').textContent(), 'inspector-e2e');
  assert.match((await page.locator('[data-testid="inbound-raw-header"][data-name="authorization"] td').textContent()) ?? '', /^Basic ••••/);
  assert.match((await page.getByTestId('inbound-raw-clipped').textContent()) ?? '', /first 1,024 characters of a refused call's body/);
  assert.equal(await page.getByTestId('inbound-raw-body').textContent(), `${broken.slice(0, REQUEST_BODY_LIMITS.refused)}…`);
  await page.screenshot({ path: screenshotPath('inspector-refused'), fullPage: true });

  // Accepted, from one source; then "/" goes to the path box, Esc closes the detail, j and Enter open calls.
  await page.getByTestId('inbound-filter-status').selectOption('accepted');
  await page.getByTestId('inbound-filter-source').selectOption({ label: 'backend' });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="inbound-row"]').length === 1);
  await page.getByTestId('inbound-filter-source').selectOption({ label: 'every source' });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="inbound-row"]').length === 4);
  await page.keyboard.press('Escape');
  await page.getByTestId('inbound-no-selection').waitFor();
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Enter');
  const bodyHas = (text: string): Promise<unknown> =>
    page.waitForFunction((t) => document.querySelector('[data-testid="inbound-raw-body"]')?.textContent?.includes(t) === true, text);
  await bodyHas('"userId":"dee"');
  await page.keyboard.press('j');
  await bodyHas('"userId":"cy"');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'inbound-filter-path');
  await page.keyboard.type('/v1/batch');
  await page.getByTestId('inbound-no-match').waitFor();
  await page.getByTestId('inbound-filter-path').fill('');
  await page.getByTestId('inbound-filter-status').selectOption('');
  await page.getByTestId('inbound-filter-time-range').selectOption('15m');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="inbound-row"]').length === 5);
  await page.getByTestId('inbound-jump-oldest').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="inbound-jump-oldest"]')?.getAttribute('aria-pressed') === 'true');
  await page.screenshot({ path: screenshotPath('inspector-inbound'), fullPage: true });

  // Deliveries: the last 15 minutes hold all four; the oldest page starts with ann's.
  await page.goto(`${wb.url}/?token=${wb.token}#/deliveries`);
  await page.getByTestId('delivery-row').nth(3).waitFor();
  await page.getByTestId('filter-time-range').selectOption('15m');
  await page.getByTestId('filter-time-range').selectOption('custom');
  await page.getByTestId('filter-time-from').waitFor();
  await page.getByTestId('jump-oldest').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="jump-oldest"]')?.getAttribute('aria-pressed') === 'true');
  const users = await page.getByTestId('delivery-user').allTextContents();
  assert.deepEqual(users.slice(-1), ['ann'], 'the oldest delivery last, at the bottom of the oldest page');
  await page.screenshot({ path: screenshotPath('inspector-deliveries'), fullPage: true });
  await page.getByTestId('jump-newest').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="live-pause"]')?.getAttribute('aria-checked') === 'true');

  assert.deepEqual(problems.filter((p) => !/400|Bad Request/.test(p)), []);
});
