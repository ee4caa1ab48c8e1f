/**
 * Test events, every attempt's own request and the diff, in a real Chromium against a real
 * `hookbench serve` and real receivers, on the short retry preset.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { Receiver, status } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const SECRET = 'e2e-attempts-secret';
const WRITE_KEY = 'wk_e2e_attempts';
const hmac = (body: Buffer): string => createHmac('sha1', SECRET).update(body).digest('hex');

let alpha: Receiver | null = null;
let beta: Receiver | null = null;
let flaky: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  alpha = await new Receiver().start('/alpha');
  beta = await new Receiver().start('/beta');
  flaky = await new Receiver().start('/flaky');
  wb = await startWorkbench({
    name: 'attempts',
    config: {
      sources: [{ name: 'backend', writeKey: WRITE_KEY }],
      destinations: [
        {
          name: 'Local receiver',
          enabled: true,
          sources: ['backend'],
          sharedSecret: SECRET,
          webhooks: [
            { url: alpha.url, headers: { 'X-Team': 'alpha' } },
            { url: beta.url, headers: { 'X-Team': 'beta', Authorization: 'Bearer beta-token' } },
          ],
        },
        { name: 'Flaky', enabled: true, sources: ['backend'], sharedSecret: SECRET, webhooks: [{ url: flaky.url, headers: { 'X-Team': 'flaky' } }] },
      ],
      delivery: { preset: 'short' },
    },
  });
});

after(async () => {
  await wb?.close();
  await Promise.all([alpha?.close(), beta?.close(), flaky?.close()]);
});

async function shoot(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: screenshotPath(`${name}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath(`${name}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

async function openDetail(page: Page, id: number): Promise<void> {
  await page.locator(`[data-testid="delivery-row"][data-id="${id}"]`).click();
  await page.getByTestId('delivery-detail').getByRole('heading', { name: `Delivery #${id}` }).waitFor();
}

async function deliveryOf(destinationId: number, event: string): Promise<number> {
  assert.ok(wb);
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const found = (await wb.call('listDeliveries', { limit: 50 })).items.find((d) => d.destinationId === destinationId && d.event === event && d.replayOf === null);
    if (found) return found.id;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`no delivery of "${event}" to destination ${destinationId}`);
}

test('send a test event from Configure to one URL, then from the detail to that URL: marked as a test, signed, nowhere else, not in Inbound', async () => {
  assert.ok(wb && alpha && beta && flaky);
  const { page, problems } = await wb.openPage({ view: 'configure', viewport: { width: 1280, height: 860 } });
  const control = page.locator('[data-testid="destination-test-row"][data-name="Local receiver"]');
  await control.getByTestId('test-event-type').selectOption('identify');
  await control.getByTestId('test-event-target').selectOption(beta.url);
  await shoot(page, 'test-event-configure');
  await control.getByTestId('test-event-send').click();

  // Sent: the Deliveries view opens on the new delivery, marked as a test.
  await page.getByTestId('deliveries-view').waitFor();
  const note = page.getByTestId('detail-test');
  await note.waitFor();
  assert.match((await note.textContent()) ?? '', /only/);
  await page.getByTestId('detail-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
  await beta.waitFor(1);
  const got = beta.received[0]!;
  const body = JSON.parse(got.body.toString('utf8')) as { type: string; traits: { email: string }; context: { userAgent: string } };
  assert.equal(body.type, 'identify');
  assert.match(body.traits.email, /@example\./);
  assert.ok(body.context.userAgent);
  assert.equal(got.headers['x-signature'], hmac(got.body));
  assert.equal(got.headers['x-team'], 'beta');
  assert.equal(alpha.received.length, 0, 'only the chosen URL got it');
  assert.equal(flaky.received.length, 0, 'no other destination got it');
  const row = page.locator('[data-testid="delivery-row"]').filter({ has: page.getByTestId('delivery-test') });
  assert.equal(await row.count(), 1);
  assert.equal(await row.getByTestId('delivery-type').textContent(), 'identify');

  // From the detail: "Send a test event to this URL", of another type.
  const fromDetail = page.getByTestId('delivery-detail').locator(`[data-testid="test-event"][data-url="${beta.url}"]`);
  await fromDetail.getByTestId('test-event-type').selectOption('track');
  await fromDetail.getByTestId('test-event-send').click();
  await beta.waitFor(2);
  assert.equal((JSON.parse(beta.received[1]!.body.toString('utf8')) as { type: string }).type, 'track');
  await page.getByTestId('detail-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
  // The detail stays on the first test delivery; the second arrives in the list by a live event.
  const tests = page.locator('[data-testid="delivery-row"]').filter({ has: page.getByTestId('delivery-test') });
  await tests.nth(1).waitFor({ timeout: 10_000 });
  assert.equal(await tests.count(), 2);
  assert.equal(alpha.received.length, 0);
  await shoot(page, 'test-event-detail');

  assert.equal((await wb.call('listRequests')).items.length, 0, 'a test event is not a Tracking API call: Inbound stays empty');
  assert.deepEqual(problems, []);
  await page.close();
});

test('every attempt shows the headers it sent to its own URL, and its own cURL reproduces it exactly', async () => {
  assert.ok(wb && alpha && beta && flaky);
  alpha.received.length = 0;
  beta.received.length = 0;
  let calls = 0;
  flaky.respond((req, res) => status(++calls === 1 ? 500 : 200)(req, res));
  const { page, problems } = await wb.openPage({ viewport: { width: 1280, height: 1100 } });
  assert.equal((await wb.ingest('/v1/track', WRITE_KEY, { userId: 'user_42', event: 'Signed Up', properties: { plan: 'pro' } })).status, 200);
  const [local, flakyId] = [await deliveryOf(1, 'Signed Up'), await deliveryOf(2, 'Signed Up')];
  await Promise.all([alpha.waitFor(1), beta.waitFor(1), flaky.waitFor(2)]);

  // Two URLs, one attempt each: each attempt lists its own static headers and Host.
  await openDetail(page, local);
  await page.getByTestId('detail-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
  const attempts = page.getByTestId('delivery-detail').getByTestId('attempt');
  assert.equal(await attempts.count(), 2);
  for (const [receiver, team] of [[alpha, 'alpha'], [beta, 'beta']] as const) {
    const attempt = attempts.filter({ has: page.getByTestId('attempt-url').filter({ hasText: receiver.url }) });
    await attempt.getByTestId('attempt-request-toggle').click();
    const table = attempt.getByTestId('attempt-request-headers');
    assert.equal(await table.getAttribute('data-source'), 'wire');
    const text = (await table.textContent()) ?? '';
    assert.ok(text.includes(`X-Team${team}`), text);
    assert.ok(text.includes(`host${new URL(receiver.url).host}`), text);
  }
  const betaAttempt = attempts.filter({ has: page.getByTestId('attempt-url').filter({ hasText: beta.url }) });
  await betaAttempt.getByTestId('attempt-copy-curl').click();
  const curl = (await betaAttempt.getByTestId('attempt-curl-command').textContent()) ?? '';
  await promisify(execFile)('bash', ['-c', `${curl} --silent --show-error --max-time 10`]);
  await beta.waitFor(2);
  assert.deepEqual(beta.received[1]!.body, beta.received[0]!.body, 'the same body bytes');
  assert.deepEqual(beta.received[1]!.headers, beta.received[0]!.headers, 'the same headers as that attempt sent');
  await betaAttempt.scrollIntoViewIfNeeded();
  await shoot(page, 'attempt-headers');

  // A retry: two attempts of one delivery, each with its own request, compared with each other.
  await openDetail(page, flakyId);
  await page.getByTestId('detail-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
  const flakyAttempts = page.getByTestId('delivery-detail').getByTestId('attempt');
  assert.equal(await flakyAttempts.count(), 2);
  assert.equal(await flakyAttempts.nth(0).getByTestId('attempt-status').textContent(), '500');
  await flakyAttempts.nth(1).getByTestId('compare-previous-attempt').click();
  const dialog = page.getByTestId('compare');
  await dialog.getByTestId('diff-body-summary').filter({ hasText: 'identical JSON' }).waitFor();
  assert.match((await dialog.getByTestId('compare-left').textContent()) ?? '', /HTTP 500/);
  assert.match((await dialog.getByTestId('compare-right').textContent()) ?? '', /HTTP 200/);
  await dialog.getByTestId('compare-close').click();
  await dialog.waitFor({ state: 'detached' });
  assert.deepEqual(problems, []);
  await page.close();
});

test('diff: a failing delivery beside a succeeding one, picked in the list; an original beside its edited replay', async () => {
  assert.ok(wb && flaky);
  // The receiver refuses refunds and takes everything else.
  flaky.respond((req, res) => status(req.body.toString('utf8').includes('Order Refunded') ? 500 : 200)(req, res));
  const { page, problems } = await wb.openPage({ viewport: { width: 1280, height: 1000 } });
  await wb.ingest('/v1/track', WRITE_KEY, { userId: 'user_7', event: 'Order Completed', properties: { orderId: 'o-1', total: 42, currency: 'EUR' } });
  await wb.ingest('/v1/track', WRITE_KEY, {
    userId: 'user_7',
    event: 'Order Refunded',
    properties: { orderId: 'o-1', total: 42, currency: 'EUR', reason: 'damaged' },
  });
  const good = await deliveryOf(2, 'Order Completed');
  const bad = await deliveryOf(2, 'Order Refunded');

  // "Compare with…" on the failing one, then a click on the succeeding one in the list.
  await openDetail(page, bad);
  await page.getByTestId('detail-status').filter({ hasText: /retrying|failed/ }).waitFor({ timeout: 15_000 });
  await page.getByTestId('compare-start').click();
  await page.getByTestId('compare-picking').waitFor();
  await page.locator(`[data-testid="delivery-row"][data-id="${good}"]`).click();
  const dialog = page.getByTestId('compare');
  const changed = dialog.getByTestId('diff-changed').filter({ hasText: 'event:' });
  await changed.waitFor();
  assert.match((await changed.textContent()) ?? '', /"Order Refunded".*→.*"Order Completed"/);
  assert.match((await dialog.getByTestId('diff-removed').filter({ hasText: 'reason:' }).textContent()) ?? '', /damaged/);
  const signature = dialog.locator('[data-testid="diff-header-row"][data-name="x-signature"]');
  assert.equal(await signature.getAttribute('data-kind'), 'changed');
  assert.equal(await dialog.locator('[data-testid="diff-header-row"][data-name="x-team"]').getAttribute('data-kind'), 'same');
  await shoot(page, 'diff-failing-vs-succeeding');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // An edited replay of the succeeding one, compared with its original from the replay's detail.
  const original = await wb.call('getDelivery', good);
  assert.ok(original?.body);
  const edited = JSON.stringify({ ...(JSON.parse(original.body) as object), event: 'Order Shipped', properties: { orderId: 'o-1', total: 42, currency: 'EUR', carrier: 'DHL' } });
  const replay = await wb.call('replayDelivery', { id: good, body: edited });
  await openDetail(page, replay.id);
  await page.getByTestId('compare-original').click();
  await dialog.getByTestId('diff-changed').filter({ hasText: 'event:' }).waitFor();
  assert.match((await dialog.getByTestId('diff-added').filter({ hasText: 'carrier:' }).textContent()) ?? '', /DHL/);
  assert.match((await dialog.getByTestId('compare-right').textContent()) ?? '', new RegExp(`#${replay.id}`));
  await shoot(page, 'diff-replay');

  // The keyboard way: c on one row, c on another.
  await dialog.getByTestId('compare-close').click();
  await page.getByTestId('delivery-detail').getByRole('button', { name: 'Close detail' }).click();
  await page.locator(`[data-testid="delivery-row"][data-id="${good}"]`).click();
  await page.getByTestId('delivery-detail').getByRole('button', { name: 'Close detail' }).click();
  await page.keyboard.press('c');
  await page.getByTestId('compare-picking').waitFor();
  await page.keyboard.press('j');
  await page.keyboard.press('c');
  await dialog.getByTestId('diff-body-summary').waitFor();
  assert.match((await dialog.getByTestId('compare-left').textContent()) ?? '', new RegExp(`#${good}`));
  assert.deepEqual(problems, []);
  await page.close();
});
