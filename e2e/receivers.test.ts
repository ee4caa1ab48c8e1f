/**
 * Test receivers in a real Chromium against a real `hookbench serve`: a receiver scripted 500, 500,
 * 200 is written in the Receivers view, added to a destination with one click, and an event sent
 * on the short retry preset is delivered on its third attempt, the three requests listed live at
 * the receiver with the step that answered each and a valid signature.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const WRITE_KEY = 'wk_receivers';

let wb: Workbench | null = null;
let page: Page | null = null;
let problems: string[] = [];

before(async () => {
  wb = await startWorkbench({
    name: 'receivers',
    config: {
      sources: [{ name: 'backend', writeKey: WRITE_KEY }],
      destinations: [{ name: 'Local receiver', enabled: true, sources: ['backend'], sharedSecret: 'receiver-secret', webhooks: [] }],
      delivery: { preset: 'short' },
      receivers: [{ name: 'slow-429', responses: [{ status: 429, retryAfter: 1 }, { status: 200, delayMs: 200 }] }],
    },
  });
  ({ page, problems } = await wb.openPage({ view: 'receivers', viewport: { width: 1400, height: 1150 } }));
  await page.locator('[data-testid="receiver-item"][data-name="slow-429"]').waitFor();
});

after(async () => {
  await wb?.close();
});

test('a flaky receiver scripted 500, 500, 200 behind a destination on the short preset: the delivery succeeds on its third attempt and the receiver lists the three requests', async () => {
  assert.ok(page && wb);
  const p = page;
  await p.getByTestId('receiver-new').click();
  await p.getByTestId('receiver-name').fill('flaky');
  const statuses = p.getByTestId('step-status');
  assert.equal(await statuses.count(), 3);
  for (const [i, status] of ['500', '500', '200'].entries()) await statuses.nth(i).fill(status);
  // A mistake first: refused next to the step, nothing saved.
  await statuses.nth(1).fill('5000');
  await p.getByTestId('receiver-save').click();
  const refusal = p.locator('[data-testid="field-error"][data-field="receiver.responses[1].status"]');
  await refusal.waitFor();
  assert.match((await refusal.textContent()) ?? '', /must be an HTTP status from 100 to 599/);
  assert.equal((await wb.call('listReceivers')).some((r) => r.name === 'flaky'), false);
  await statuses.nth(1).fill('500');
  assert.match((await p.getByTestId('receiver-script-words').textContent()) ?? '', /500 → 500 → 200, then repeats/);
  await p.getByTestId('receiver-save').click();
  await p.locator('[data-testid="receiver-item"][data-name="flaky"]').waitFor();

  const [flaky] = (await wb.call('listReceivers')).filter((r) => r.name === 'flaky');
  assert.ok(flaky?.httpUrl && flaky.httpsUrl);
  assert.deepEqual(flaky.responses, [{ status: 500 }, { status: 500 }, { status: 200 }]);
  assert.equal(await p.getByTestId('receiver-http-url').textContent(), flaky.httpUrl);
  assert.equal(await p.getByTestId('receiver-https-url').textContent(), flaky.httpsUrl);
  assert.equal(flaky.httpUrl, `${wb.url}/receivers/flaky`);

  // One click adds the URL to the chosen destination.
  await p.getByTestId('receiver-add-destination').selectOption('Local receiver');
  await p.getByTestId('receiver-add-to-destination').click();
  await p.getByTestId('receiver-notice').filter({ hasText: `Added ${flaky.httpUrl} to “Local receiver”.` }).waitFor();
  const [destination] = await wb.call('listDestinations');
  assert.deepEqual(destination?.webhooks, [{ url: flaky.httpUrl, headers: {}, enabled: true }]);

  const res = await wb.ingest('/v1/track', WRITE_KEY, { userId: 'u-flaky', event: 'Order Completed', properties: { total: 42 } });
  assert.equal(res.status, 200);

  // The three requests arrive live, newest first, with the step that answered each.
  const requests = p.getByTestId('receiver-request');
  await p.locator('[data-testid="receiver-request"][data-step="2"][data-status="200"]').waitFor({ timeout: 20_000 });
  assert.equal(await requests.count(), 3);
  assert.deepEqual(await requests.evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-step'), r.getAttribute('data-status')])), [
    ['2', '200'],
    ['1', '500'],
    ['0', '500'],
  ]);
  assert.deepEqual(await p.getByTestId('receiver-verdict').allTextContents(), ['signature valid', 'signature valid', 'signature valid']);
  // Each request names the message it carried (the body's messageId) and its try.
  const tries = await p.getByTestId('receiver-request-message').allTextContents();
  assert.deepEqual(tries.map((t) => / · try (\d)$/.exec(t)?.[1]), ['3', '2', '1']);
  assert.equal(new Set(tries.map((t) => t.replace(/ · try \d$/, '').trim())).size, 1, 'one message, three tries');

  const deliveries = await wb.call('listDeliveries');
  assert.equal(deliveries.items.length, 1);
  assert.equal(deliveries.items[0]?.status, 'succeeded');
  assert.equal(deliveries.items[0]?.rounds, 3, 'succeeded on its third attempt');
  const detail = await wb.call('getDelivery', deliveries.items[0]!.id);
  assert.deepEqual(detail?.attempts.map((a) => a.httpStatus), [500, 500, 200]);

  // A request opens to its exact headers and body (the oldest, so the three rows stay in sight above it).
  await requests.nth(2).click();
  const headers = (await p.getByTestId('receiver-request-headers').textContent()) ?? '';
  assert.match(headers, /^POST \/receivers\/flaky\n/);
  assert.match(headers, /\nX-Signature: [0-9a-f]{40}\n/i);
  assert.match(headers, /\nUser-Agent: Segment\.io\/1\.0/i);
  const pretty = (await p.getByTestId('receiver-request-body').textContent()) ?? '';
  assert.equal(JSON.parse(pretty).event, 'Order Completed');
  assert.match(pretty, /\n {2}"/, 'pretty JSON is indented');
  await p.getByTestId('receiver-body-raw').click();
  const raw = (await p.getByTestId('receiver-request-body-raw').textContent()) ?? '';
  assert.equal(raw, detail?.body, 'Raw shows the exact bytes the delivery sent');
  await p.getByTestId('receiver-body-pretty').click();

  await p.screenshot({ path: screenshotPath('receivers-light'), fullPage: true });
  await p.emulateMedia({ colorScheme: 'dark' });
  await p.screenshot({ path: screenshotPath('receivers-dark'), fullPage: true });
  await p.emulateMedia({ colorScheme: 'light' });

  // Reset starts the script over: the next request is answered by step 1 again.
  assert.match((await p.getByTestId('receiver-next-step').textContent()) ?? '', /next request gets step 3 \(200\)/);
  await p.getByTestId('receiver-reset').click();
  await p.getByTestId('receiver-next-step').filter({ hasText: 'next request gets step 1 (500)' }).waitFor();
  assert.equal((await fetch(flaky.httpUrl, { method: 'POST', body: '{}' })).status, 500);
  await p.locator('[data-testid="receiver-request"]').nth(3).waitFor();

  // Counted per message, saved from the form and said in the head line.
  await p.getByTestId('receiver-per-message').check();
  await p.getByTestId('receiver-save').click();
  await p.getByTestId('receiver-next-step').filter({ hasText: 'per message: each message starts at step 1' }).waitFor();
  assert.equal((await wb.call('listReceivers')).find((r) => r.name === 'flaky')?.per, 'message');
  assert.deepEqual(problems, []);
});

test('at 640 px a receiver\'s script fits its card: every column, the remove button included, in view', async () => {
  assert.ok(wb);
  const narrow = await wb.openPage({ view: 'receivers', viewport: { width: 640, height: 900 } });
  const np = narrow.page;
  await np.getByTestId('nav-receivers').click();
  await np.locator('.rc-item').first().click();
  const steps = np.getByTestId('receiver-steps');
  await steps.waitFor();
  const { table, card } = await steps.evaluate((t) => ({
    table: t.getBoundingClientRect().right,
    card: (t.closest('.card') as HTMLElement).getBoundingClientRect().right,
  }));
  assert.ok(table <= card + 0.5, `the steps table ends at ${table} px, its card at ${card} px`);
  await np.screenshot({ path: screenshotPath('receivers-640') });
  assert.deepEqual(narrow.problems, []);
  await np.close();
});
