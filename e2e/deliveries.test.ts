/**
 * The deliveries view in a real Chromium against a real `hookbench serve` and a real receiver:
 * empty state, a live row after an ingest, and the detail with the exact signature.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Receiver } from '../src-main/engine/testing/receiver';
import { oneReceiverConfig, screenshotPath, startWorkbench, waitConnected, type Workbench } from './support/workbench';

const SECRET = 'e2e-shared-secret';
const WRITE_KEY = 'wk_e2e';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({
    name: 'deliveries',
    config: oneReceiverConfig(receiver.url, { writeKey: WRITE_KEY, sharedSecret: SECRET }),
  });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

test('a tracked event appears live, and its detail shows the body and the X-Signature the receiver got', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ viewport: { width: 1280, height: 800 }, waitConnected: false });
  await page.getByTestId('empty-state').waitFor();
  // The snippet shows once the source is known, with its write key (never a placeholder).
  await page.getByTestId('empty-snippet').waitFor();
  const snippet = await page.getByTestId('empty-snippet').textContent();
  assert.match(snippet ?? '', new RegExp(`${wb.url}/v1/track`));
  assert.match(snippet ?? '', new RegExp(WRITE_KEY));
  await waitConnected(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('empty-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  const res = await wb.ingest('/v1/track', WRITE_KEY, { userId: 'user_e2e', event: 'Order Completed', properties: { total: 42 } });
  assert.equal(res.status, 200);

  // Live: no reload, the row arrives through /api/live and reaches succeeded.
  const row = page.getByTestId('delivery-row').filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) });
  await row.waitFor({ timeout: 15_000 });
  assert.equal(await page.getByTestId('delivery-row').count(), 1);
  assert.equal(await row.getByTestId('delivery-type').textContent(), 'track');
  assert.equal(await row.getByTestId('delivery-user').textContent(), 'user_e2e');
  assert.equal(await row.getByTestId('delivery-event').textContent(), 'Order Completed');
  assert.equal(await row.getByTestId('delivery-http').textContent(), '200');

  await row.click();
  const signatureCell = page.getByTestId('delivery-detail').getByTestId('detail-signature');
  await signatureCell.waitFor();
  assert.equal(receiver.received.length, 1);
  const sent = receiver.received[0]!.body;
  const expected = createHmac('sha1', SECRET).update(sent).digest('hex');
  assert.equal(await signatureCell.textContent(), expected);
  assert.equal(receiver.received[0]!.headers['x-signature'], expected);
  const shownBody = await page.getByTestId('detail-body').textContent();
  assert.equal(shownBody, JSON.stringify(JSON.parse(sent.toString('utf8')), null, 2));
  assert.equal(await page.getByTestId('attempt').count(), 1);
  assert.equal(await page.getByTestId('attempt-status').first().textContent(), '200');
  await page.getByTestId('copy-curl').click();
  const curl = (await page.getByTestId('curl-command').textContent()) ?? '';
  assert.match(curl, new RegExp(`^curl -X POST '${receiver.url}'`));
  assert.ok(curl.includes(`-H 'X-Signature: ${expected}'`), 'the cURL command carries the signature');

  await page.screenshot({ path: screenshotPath('deliveries'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a receiver answering 500 shows retrying with attempts; once fixed, replay and edit-and-replay succeed, re-signed', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ viewport: { width: 1280, height: 900 }, consoleErrors: false });

  receiver.respond((_req, res) => {
    res.writeHead(500);
    res.end('receiver is broken');
  });
  const res = await wb.ingest('/v1/track', WRITE_KEY, { userId: 'user_retry', event: 'Checkout Started', messageId: 'e2e-retry-1' });
  assert.equal(res.status, 200);
  const retrying = page
    .getByTestId('delivery-row')
    .filter({ has: page.getByTestId('delivery-user').filter({ hasText: 'user_retry' }) })
    .filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'retrying' }) });
  await retrying.first().waitFor({ timeout: 15_000 });
  await retrying.first().click();
  await page.getByTestId('attempt-error').first().waitFor();
  assert.match((await page.getByTestId('attempt-error').first().textContent()) ?? '', /http/);
  const originalBytes = receiver.received.find((r) => r.body.includes('e2e-retry-1'))!.body;

  // The receiver is fixed: replay as it was.
  receiver.respond((_req, res) => res.end('ok'));
  const before = receiver.received.length;
  await page.getByTestId('replay').click();
  await page.getByTestId('replay-of').waitFor();
  await page.getByTestId('delivery-detail').getByTestId('detail-signature').waitFor({ timeout: 15_000 });
  const replayed = receiver.received.slice(before).find((r) => r.body.equals(originalBytes));
  assert.ok(replayed, 'the replay sent the same bytes');
  assert.equal(replayed.headers['x-signature'], createHmac('sha1', SECRET).update(originalBytes).digest('hex'));

  // Edit and replay: the edited bytes are sent exactly as typed and signed anew.
  await page.getByTestId('replay-edit').click();
  const edited = JSON.stringify({ ...JSON.parse(originalBytes.toString('utf8')), event: 'Checkout Edited' }, null, 2);
  await page.getByTestId('replay-body').fill(edited);
  const beforeEdit = receiver.received.length;
  await page.getByTestId('replay-edited-send').click();
  const signature = createHmac('sha1', SECRET).update(Buffer.from(edited)).digest('hex');
  await page.getByTestId('delivery-detail').getByTestId('detail-signature').filter({ hasText: signature }).waitFor({ timeout: 15_000 });
  const got = receiver.received.slice(beforeEdit).find((r) => r.body.toString('utf8') === edited);
  assert.ok(got, 'the receiver got the edited bytes');
  assert.equal(got.headers['x-signature'], signature);
  assert.match((await page.getByTestId('replay-of').locator('..').textContent()) ?? '', /edited body, signed anew/);

  await page.screenshot({ path: screenshotPath('replay'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});
