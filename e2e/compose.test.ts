/**
 * The Compose view in a real Chromium against a real `hookbench serve` and a real receiver: calls
 * composed in the form go through the client library to the ingest, are delivered signed, and show
 * in Deliveries; errors come back next to their fields; templates survive a reload.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Receiver, type Received } from '../src-main/engine/testing/receiver';
import { oneReceiverConfig, screenshotPath, startWorkbench, type OpenedPage, type Workbench } from './support/workbench';

const SECRET = 'e2e-compose-secret';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({
    name: 'compose',
    config: oneReceiverConfig(receiver.url, { writeKey: 'wk_compose_e2e', sharedSecret: SECRET }),
  });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

/** A page on the Compose view with its sources loaded; page errors are collected for the end of the test. */
async function openCompose(width = 1280): Promise<OpenedPage> {
  assert.ok(wb);
  const opened = await wb.openPage({ view: 'compose', viewport: { width, height: 1000 }, consoleErrors: false, waitConnected: false });
  await opened.page.locator('[data-testid="compose-source"] option[value="backend"]').waitFor({ state: 'attached' });
  return opened;
}

const bodyOf = (r: Received): Record<string, unknown> => JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;

test('a track call composed with 2 copies is delivered twice, signed, and both deliveries succeed in the list', async () => {
  assert.ok(receiver);
  const { page, problems } = await openCompose();
  const before = receiver.received.length;

  await page.getByTestId('compose-type-track').click();
  await page.getByTestId('compose-userId').fill('user_compose');
  await page.getByTestId('compose-event').fill('Order Completed');
  await page.getByTestId('compose-properties').fill('{"total": 42.5, "currency": "EUR"');
  await page.getByTestId('compose-properties-status').filter({ hasText: 'not valid JSON' }).waitFor();
  assert.match((await page.getByTestId('compose-properties-parse-error').textContent()) ?? '', /ends too early at line 1/);
  await page.getByTestId('compose-properties').fill('{"total": 42.5, "currency": "EUR"}');
  await page.getByTestId('compose-properties-format').click();
  assert.equal(await page.getByTestId('compose-properties').inputValue(), '{\n  "total": 42.5,\n  "currency": "EUR"\n}');
  await page.getByTestId('compose-copies').fill('2');
  await page.getByTestId('compose-send').click();

  const sent = page.getByTestId('compose-sent');
  await sent.waitFor();
  assert.equal(await sent.textContent(), '2');
  const ids = await page.getByTestId('compose-sent-ids').locator('li').allTextContents();
  assert.equal(new Set(ids).size, 2, 'each copy has its own messageId');
  await page.screenshot({ path: screenshotPath('compose'), fullPage: true });

  // The receiver got both, each signed with the destination's secret over the exact bytes.
  await receiver.waitFor(before + 2);
  const got = receiver.received.slice(before);
  assert.deepEqual(got.map((r) => bodyOf(r).messageId).sort(), [...ids].sort());
  for (const r of got) {
    const body = bodyOf(r);
    assert.equal(body.type, 'track');
    assert.equal(body.event, 'Order Completed');
    assert.equal(body.userId, 'user_compose');
    assert.deepEqual(body.properties, { total: 42.5, currency: 'EUR' });
    assert.equal(r.headers['x-signature'], createHmac('sha1', SECRET).update(r.body).digest('hex'));
  }

  // Deliveries shows both rows succeeded, searched for the user the copies are from.
  assert.equal(await page.getByTestId('compose-goto-deliveries').getAttribute('data-search'), 'user_compose');
  await page.getByTestId('compose-goto-deliveries').click();
  assert.equal(await page.getByTestId('filter-text').inputValue(), 'user_compose');
  const succeeded = page
    .getByTestId('delivery-row')
    .filter({ has: page.getByTestId('delivery-event').filter({ hasText: 'Order Completed' }) })
    .filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) });
  try {
    await succeeded.nth(1).waitFor({ timeout: 15_000 });
  } catch (err) {
    const rows = await page.getByTestId('delivery-row').allTextContents();
    await page.screenshot({ path: screenshotPath('compose-deliveries-failure'), fullPage: true });
    throw new Error(`${(err as Error).message}\nrows on screen: ${rows.join(' | ') || 'none'}`);
  }
  assert.equal(await succeeded.count(), 2);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an alias composed in the form reaches the receiver with Previous ID and User ID', async () => {
  assert.ok(receiver);
  const { page, problems } = await openCompose();
  const before = receiver.received.length;
  await page.getByTestId('compose-type-alias').click();
  assert.equal(await page.getByTestId('compose-anonymousId').count(), 0, 'an alias has no anonymousId');
  await page.getByTestId('compose-previousId').fill('anon_42');
  await page.getByTestId('compose-userId').fill('user_42');
  await page.getByTestId('compose-send').click();
  await page.getByTestId('compose-sent').filter({ hasText: '1' }).waitFor();

  await receiver.waitFor(before + 1);
  const r = receiver.received[before] as Received;
  const body = bodyOf(r);
  assert.equal(body.type, 'alias');
  assert.equal(body['Previous ID'], 'anon_42');
  assert.equal(body['User ID'], 'user_42');
  assert.equal('userId' in body, false);
  assert.equal(r.headers['x-signature'], createHmac('sha1', SECRET).update(r.body).digest('hex'));
  assert.deepEqual(problems, []);
  await page.close();
});

test('refusals come back next to the field they name: a missing event, the 32 KB limit, integrations that skip Webhooks', async () => {
  assert.ok(receiver);
  const { page, problems } = await openCompose();
  const before = receiver.received.length;
  await page.getByTestId('compose-type-track').click();
  await page.getByTestId('compose-userId').fill('user_limits');
  await page.getByTestId('compose-event').fill('');
  await page.getByTestId('compose-send').click();
  await page.getByTestId('compose-error-event').waitFor();
  assert.equal(await page.getByTestId('compose-error-event').textContent(), 'Event is required.');

  await page.getByTestId('compose-event').fill('Big');
  assert.equal(await page.getByTestId('compose-error-event').count(), 0, 'typing clears the error');
  await page.getByTestId('compose-properties').fill(JSON.stringify({ blob: 'x'.repeat(33_000) }));
  await page.getByTestId('compose-send').click();
  await page.getByTestId('compose-error-properties').waitFor();
  assert.match((await page.getByTestId('compose-error-properties').textContent()) ?? '', /too large.*32768 bytes \(32 KB\)/);
  await page.screenshot({ path: screenshotPath('compose-errors'), fullPage: true });
  await page.getByTestId('compose-properties').fill('');

  // All off, Webhooks off: the ingest keeps the message, and no delivery goes out.
  await page.getByTestId('compose-integration-All').uncheck();
  await page.getByTestId('compose-integration-Webhooks').uncheck();
  assert.equal(await page.getByTestId('compose-integrations-preview').locator('code').textContent(), '{"All":false,"Webhooks":false}');
  assert.match((await page.getByTestId('compose-reaches-webhooks').textContent()) ?? '', /will not get/);
  await page.getByTestId('compose-send').click();
  await page.getByTestId('compose-sent').waitFor();
  // Then one that does reach it, so the first provably went nowhere (deliveries are in order).
  await page.getByTestId('compose-integration-Webhooks').check();
  assert.match((await page.getByTestId('compose-reaches-webhooks').textContent()) ?? '', /will get/);
  await page.getByTestId('compose-event').fill('After');
  await page.getByTestId('compose-send').click();
  await receiver.waitFor(before + 1);
  await page.getByTestId('compose-sent').waitFor();
  assert.equal(bodyOf(receiver.received[before] as Received).event, 'After');
  assert.equal(receiver.received.length, before + 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a template saved from the form survives a reload and loads back; delete removes it', async () => {
  const { page, problems } = await openCompose();
  await page.getByTestId('compose-type-identify').click();
  await page.getByTestId('compose-anonymousId-generate').click();
  const anonymousId = await page.getByTestId('compose-anonymousId').inputValue();
  assert.match(anonymousId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  await page.getByTestId('compose-traits').fill('{"plan": "pro", "seats": 3}');
  await page.getByTestId('compose-integration-All').uncheck();
  await page.getByTestId('template-name').fill('Pro signup');
  await page.getByTestId('template-save').click();
  await page.getByTestId('template-row').filter({ hasText: 'Pro signup' }).waitFor();

  await page.reload();
  await page.getByTestId('compose-type-track').click();
  const row = page.getByTestId('template-row').filter({ hasText: 'Pro signup' });
  await row.waitFor();
  await row.getByTestId('template-load').click();
  assert.equal(await page.getByTestId('compose-type-identify').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.getByTestId('compose-anonymousId').inputValue(), anonymousId);
  assert.deepEqual(JSON.parse(await page.getByTestId('compose-traits').inputValue()), { plan: 'pro', seats: 3 });
  assert.equal(await page.getByTestId('compose-integration-All').isChecked(), false);
  assert.equal(await page.getByTestId('compose-integration-Webhooks').isChecked(), true);
  await page.screenshot({ path: screenshotPath('compose-template'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('compose-dark'), fullPage: true });

  await row.getByTestId('template-delete').click();
  await page.getByTestId('templates-empty').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});
