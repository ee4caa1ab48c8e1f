/**
 * The first journey, done only in the UI as a person would, from an empty data folder:
 * configure a source and a Webhooks destination with two URLs and a secret, compose a track call,
 * watch it succeed live, inspect it, and have both receivers verify the signature byte for byte.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Receiver } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const SECRET = 'journey-secret';

let first: Receiver | null = null;
let second: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  // Each receiver checks the signature itself, as a user's receiver would, and says so in its answer.
  const verifying = (r: Receiver): Receiver => {
    r.respond((got, res) => {
      const ok = createHmac('sha1', SECRET).update(got.body).digest('hex') === got.headers['x-signature'];
      res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
      res.end(ok ? 'signature verified' : 'bad signature');
    });
    return r;
  };
  first = verifying(await new Receiver().start('/first'));
  second = verifying(await new Receiver().start('/second'));
  wb = await startWorkbench({ name: 'journey' });
});

after(async () => {
  await wb?.close();
  await first?.close();
  await second?.close();
});

test('configure two URLs and a secret, compose a track call, see it succeed, and both receivers verify the signature', async () => {
  assert.ok(wb && first && second);
  const { page, problems } = await wb.openPage({ viewport: { width: 1400, height: 1000 }, consoleErrors: false });
  await page.getByTestId('empty-state').waitFor();

  // Configure: a source, then a destination with two URLs and a shared secret.
  await page.getByTestId('nav-configure').click();
  await page.getByTestId('configure-ready').waitFor();
  await page.getByTestId('source-name').fill('storefront');
  await page.getByTestId('source-save').click();
  await page.getByTestId('source-saved').waitFor();
  await page.getByTestId('destination-new').click();
  await page.getByTestId('destination-name').fill('My receivers');
  await page.getByTestId('webhook-url-0').fill(first.url);
  await page.getByTestId('webhook-add-url').click();
  await page.getByTestId('webhook-url-1').fill(second.url);
  await page.getByTestId('destination-secret').fill(SECRET);
  await page.getByTestId('destination-save').click();
  await page.getByTestId('destination-saved').waitFor();

  // Compose: a track call through the client library, with the new source's write key.
  await page.getByTestId('nav-compose').click();
  await page.locator('[data-testid="compose-source"] option[value="storefront"]').waitFor({ state: 'attached' });
  await page.getByTestId('compose-type-track').click();
  await page.getByTestId('compose-userId').fill('journey_user');
  await page.getByTestId('compose-event').fill('Order Completed');
  await page.getByTestId('compose-properties').fill('{"total": 99.9, "note": "café ☕"}');
  await page.getByTestId('compose-send').click();
  await page.getByTestId('compose-sent').filter({ hasText: '1' }).waitFor();

  // Watch: the delivery arrives live and succeeds.
  await page.getByTestId('nav-deliveries').click();
  const row = page
    .getByTestId('delivery-row')
    .filter({ has: page.getByTestId('delivery-user').filter({ hasText: 'journey_user' }) })
    .filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) });
  await row.waitFor({ timeout: 15_000 });
  assert.equal(await row.getByTestId('delivery-event').textContent(), 'Order Completed');
  await page.locator('[data-testid="deliveries-count"][data-total="1"]').waitFor({ timeout: 5_000 });

  // Both receivers got the same bytes and verified the signature themselves (they answered 200).
  await Promise.all([first.waitFor(1), second.waitFor(1)]);
  const [a, b] = [first.received[0]!, second.received[0]!];
  assert.ok(a.body.equals(b.body), 'one body, sent to both URLs');
  const expected = createHmac('sha1', SECRET).update(a.body).digest('hex');
  assert.equal(a.headers['x-signature'], expected);
  assert.equal(b.headers['x-signature'], expected);
  assert.equal(a.headers['user-agent'], 'Segment.io/1.0');
  const payload = JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;
  assert.equal(payload.version, 1);
  assert.equal(payload.type, 'track');
  assert.deepEqual(payload.properties, { total: 99.9, note: 'café ☕' });

  // Inspect: the detail shows the same signature, checked against the stored bytes, and both attempts.
  await row.click();
  const detail = page.getByTestId('delivery-detail');
  await detail.locator('[data-testid="signature-check"][data-state="valid"]').waitFor();
  assert.equal(await detail.getByTestId('detail-signature').textContent(), expected);
  assert.equal(await detail.getByTestId('attempt').count(), 2, 'one attempt per URL');
  assert.deepEqual((await detail.getByTestId('attempt-status').allTextContents()).map((s) => s.trim()).sort(), ['200', '200']);
  await detail.getByTestId('body-raw-toggle').click();
  assert.equal(await detail.getByTestId('detail-body-raw').textContent(), a.body.toString('utf8'), 'Raw shows the exact bytes sent');

  await page.screenshot({ path: screenshotPath('journey') });
  assert.deepEqual(problems, []);
  await page.close();
});
