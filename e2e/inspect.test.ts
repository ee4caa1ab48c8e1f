/**
 * Inspect and replay in a real Chromium against a real `hookbench serve` and real receivers: a
 * receiver that hangs (timeout set short in the config), the signature check, edit-and-replay beside
 * its original, replay to a receiver on another port, and a 500's response in the attempt timeline.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type ConfigFile, type OpenedPage, type Workbench } from './support/workbench';

const SECRET = 'inspect-e2e-secret';
const KEYS = { hang: 'wk_hang', signed: 'wk_signed', broken: 'wk_broken' } as const;
const hmac = (body: Buffer | string): string => createHmac('sha1', SECRET).update(body).digest('hex');
/** More than the 64 KB an attempt keeps of a response, so the timeline has to say it cut it. */
const BROKEN_BODY = `{"error":"receiver is broken","padding":"${'x'.repeat(100_000)}"}`;

let wb: Workbench | null = null;
const receivers = { hang: new Receiver(), signed: new Receiver(), broken: new Receiver(), local: new Receiver() };

before(async () => {
  await receivers.hang.start('/hang');
  await receivers.signed.start('/signed');
  await receivers.broken.start('/broken');
  await receivers.local.start('/local');
  receivers.hang.respond(() => undefined); // never answers
  receivers.broken.respond((_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json', 'x-reason': 'maintenance' });
    res.end(BROKEN_BODY);
  });
  const destination = (name: string, source: keyof typeof KEYS, url: string): ConfigFile['destinations'][number] => ({
    name,
    enabled: true,
    sources: [source],
    sharedSecret: SECRET,
    webhooks: [{ url }],
  });
  wb = await startWorkbench({
    name: 'inspect',
    config: {
      sources: Object.entries(KEYS).map(([name, writeKey]) => ({ name, writeKey })),
      destinations: [
        destination('Hanging receiver', 'hang', receivers.hang.url),
        destination('Signed receiver', 'signed', receivers.signed.url),
        destination('Broken receiver', 'broken', receivers.broken.url),
      ],
      // The 5 s limit set short, as a test should: the timeout and its retry show up in well under a second.
      delivery: { timeoutMs: 300, preset: 'short' },
    },
  });
});

after(async () => {
  await wb?.close();
  await Promise.all(Object.values(receivers).map((r) => r.close()));
});

async function track(source: keyof typeof KEYS, userId: string, event: string): Promise<void> {
  assert.ok(wb);
  const res = await wb.ingest('/v1/track', KEYS[source], { userId, event, properties: { note: 'café ☕', n: 1 } });
  assert.equal(res.status, 200);
}

function openPage(): Promise<OpenedPage> {
  assert.ok(wb);
  // The app fills the window and the panel scrolls; a tall window shows the whole panel in one picture.
  return wb.openPage({ viewport: { width: 1400, height: 1600 } });
}

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
}

/** Opens the newest delivery of this user once it shows the status. */
async function openDelivery(page: Page, userId: string, status: string): Promise<void> {
  const row = page
    .getByTestId('delivery-row')
    .filter({ has: page.getByTestId('delivery-user').filter({ hasText: userId }) })
    .filter({ has: page.getByTestId('delivery-status').filter({ hasText: status }) })
    .first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
  await page.getByTestId('delivery-detail').getByTestId('next-step').waitFor();
}

test('a receiver that hangs: the attempt times out and the next attempt time is named', async () => {
  const { page, problems } = await openPage();
  await track('hang', 'user_hang', 'Hung Up');
  await openDelivery(page, 'user_hang', 'retrying');
  const detail = page.getByTestId('delivery-detail');
  const error = detail.getByTestId('attempt-error').first();
  await error.waitFor();
  assert.equal(await error.textContent(), 'timeout: no complete response within 300 ms');
  // Retries keep coming (the receiver never answers); wait for a moment between rounds, when the
  // sentence names the next attempt, rather than the instants a round is in flight.
  const nextStep = detail.getByTestId('next-step').filter({ hasText: /^next attempt at/ });
  await nextStep.waitFor({ timeout: 15_000 });
  const sentence = (await nextStep.textContent()) ?? '';
  assert.match(sentence, /^next attempt at \d\d:\d\d:\d\d \(in \d+(\.\d+)? (ms|s)\), round \d+; no retry after \d\d:\d\d:\d\d \(1 min after the first attempt\)$/);
  assert.match((await detail.getByTestId('attempt-phases').first().textContent()) ?? '', /total/);
  assert.equal(await detail.getByTestId('attempt-status').first().textContent(), 'no response');
  // Taken between rounds, so the picture shows the sentence with the next attempt's time.
  await nextStep.waitFor({ timeout: 15_000 });
  await screenshot(page, 'timeout');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the signature check is valid for a signed delivery; edit-and-replay shows the original beside the edit and signs anew', async () => {
  const { page, problems } = await openPage();
  await track('signed', 'user_signed', 'Order Completed');
  await openDelivery(page, 'user_signed', 'succeeded');
  const detail = page.getByTestId('delivery-detail');
  const check = detail.locator('[data-testid="signature-check"][data-state="valid"]');
  await check.waitFor();
  assert.equal(await check.getByTestId('signature-badge').textContent(), '✓ signature valid');
  const sent = receivers.signed.received[0]!;
  assert.equal(await detail.getByTestId('detail-signature').textContent(), hmac(sent.body));
  assert.equal(sent.headers['x-signature'], hmac(sent.body));
  // The attempts here time out after 300 ms (for the hanging receiver above): on a busy machine a
  // first attempt can take longer and the 200 comes in a later round, which the sentence then names.
  const delivered = (await detail.getByTestId('next-step').textContent()) ?? '';
  const rest = delivered.startsWith(`delivered: 200 from ${receivers.signed.url}`) ? delivered.slice(`delivered: 200 from ${receivers.signed.url}`.length) : null;
  assert.ok(rest === '' || (rest !== null && /^ in round \d+$/.test(rest)), delivered);

  // Pretty by default; raw is exactly the stored bytes.
  assert.equal(await detail.getByTestId('detail-body').textContent(), JSON.stringify(JSON.parse(sent.body.toString('utf8')), null, 2));
  await detail.getByTestId('body-raw-toggle').click();
  assert.equal(await detail.getByTestId('detail-body-raw').textContent(), sent.body.toString('utf8'));
  await detail.getByTestId('body-pretty-toggle').click();

  // The editor refuses what the engine would refuse, before sending.
  await detail.getByTestId('replay-edit').click();
  assert.equal(await detail.getByTestId('replay-original').textContent(), JSON.stringify(JSON.parse(sent.body.toString('utf8')), null, 2));
  await detail.getByTestId('replay-body').fill('{"event": "Order Refunded",');
  assert.match((await detail.getByTestId('replay-body-error').textContent()) ?? '', /^Not valid JSON/);
  assert.equal(await detail.getByTestId('replay-edited-send').isDisabled(), true);
  await detail.getByTestId('replay-body').fill('[1, 2]');
  assert.match((await detail.getByTestId('replay-body-error').textContent()) ?? '', /must be a JSON object/);

  const edited = JSON.stringify({ ...JSON.parse(sent.body.toString('utf8')), event: 'Order Refunded' }, null, 2);
  await detail.getByTestId('replay-body').fill(edited);
  assert.equal(await detail.getByTestId('replay-body-error').count(), 0);
  await detail.getByTestId('replay-edited-send').click();

  // The panel follows the replay: the original beside the edit, a new signature, checked valid.
  await detail.getByTestId('replay-of').waitFor();
  const signature = hmac(edited);
  assert.notEqual(signature, hmac(sent.body));
  await detail.getByTestId('detail-signature').filter({ hasText: signature }).waitFor({ timeout: 15_000 });
  await detail.locator('[data-testid="signature-check"][data-state="valid"]').waitFor();
  assert.equal(await detail.getByTestId('original-body').textContent(), JSON.stringify(JSON.parse(sent.body.toString('utf8')), null, 2));
  assert.equal(await detail.getByTestId('detail-body').textContent(), JSON.stringify(JSON.parse(edited), null, 2));
  assert.deepEqual(await detail.locator('[data-testid="detail-body"] [data-changed]').allTextContents(), ['  "event": "Order Refunded",\n']);
  assert.deepEqual(await detail.locator('[data-testid="original-body"] [data-changed]').allTextContents(), ['  "event": "Order Completed",\n']);
  await detail.getByTestId('body-raw-toggle').click();
  assert.equal(await detail.getByTestId('detail-body-raw').textContent(), edited);
  assert.equal(await detail.getByTestId('original-body').textContent(), sent.body.toString('utf8'));

  // The receiver verifies the new signature over the bytes it got, as a real receiver would.
  const got = receivers.signed.received.find((r) => r.body.toString('utf8') === edited);
  assert.ok(got, 'the receiver got the edited bytes exactly');
  assert.equal(got.headers['x-signature'], hmac(got.body));

  // Links both ways: the original names its replay, and the link leads back.
  const replayTitle = (await detail.locator('h2').textContent()) ?? '';
  const replayId = /#(\d+)/.exec(replayTitle)?.[1];
  assert.ok(replayId);
  await detail.getByTestId('replay-of').click();
  const replayedAs = detail.getByTestId('replayed-as');
  await replayedAs.waitFor();
  assert.match((await replayedAs.textContent()) ?? '', new RegExp(`#${replayId}\\b`));
  await screenshot(page, 'inspect-original');
  await replayedAs.locator(`[data-id="${replayId}"]`).click();
  await detail.getByTestId('original-body').waitFor();
  await screenshot(page, 'inspect');
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, 'inspect-dark');
  assert.deepEqual(problems, []);
  await page.close();
});

test('replay to another URL sends the same bytes and signature to a receiver on another port', async () => {
  const { page, problems } = await openPage();
  await track('signed', 'user_elsewhere', 'Checkout Started');
  await openDelivery(page, 'user_elsewhere', 'succeeded');
  const detail = page.getByTestId('delivery-detail');
  const original = receivers.signed.received.find((r) => r.body.includes('user_elsewhere'))!;
  await detail.getByTestId('replay-url').click();
  await detail.getByTestId('replay-target').fill('ftp://localhost:9000/hook');
  assert.equal(await detail.getByTestId('replay-target-error').textContent(), 'Replay to URL must use http or https, not ftp');
  assert.equal(await detail.getByTestId('replay-url-send').isDisabled(), true);
  await detail.getByTestId('replay-target').fill(receivers.local.url);
  assert.equal(await detail.getByTestId('replay-target-error').count(), 0);
  const toSigned = receivers.signed.received.length;
  await detail.getByTestId('replay-url-send').click();

  await detail.getByTestId('next-step').filter({ hasText: `delivered: 200 from ${receivers.local.url}` }).waitFor({ timeout: 15_000 });
  await receivers.local.waitFor(1);
  const got = receivers.local.received[0]!;
  assert.equal(got.url, '/local');
  assert.deepEqual(got.body, original.body, 'the same bytes');
  assert.equal(got.headers['x-signature'], hmac(original.body));
  assert.equal(receivers.signed.received.length, toSigned, 'nothing extra went to the destination');
  assert.match((await detail.getByTestId('replay-of').locator('..').textContent()) ?? '', new RegExp(`same bytes.*to ${receivers.local.url}`));
  assert.equal(await detail.getByTestId('attempt-url').first().textContent(), `POST ${receivers.local.url}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the attempt timeline shows the response headers and the body of a 500, and says where it was cut', async () => {
  const { page, problems } = await openPage();
  await track('broken', 'user_broken', 'Cart Viewed');
  await openDelivery(page, 'user_broken', 'retrying');
  const detail = page.getByTestId('delivery-detail');
  // The first attempt; with retries under way its response may be folded, hence attached, not visible.
  const attempt = detail.getByTestId('attempt').first();
  await attempt.getByTestId('attempt-response-headers').waitFor({ state: 'attached' });
  assert.equal(await attempt.getByTestId('attempt-status').textContent(), '500');
  assert.equal(await attempt.getByTestId('attempt-error').textContent(), 'http: HTTP 500 Internal Server Error');
  const headers = (await attempt.getByTestId('attempt-response-headers').textContent()) ?? '';
  assert.match(headers, /x-reasonmaintenance/);
  assert.match(headers, /content-typeapplication\/json/);
  const body = (await attempt.getByTestId('attempt-response-body').textContent()) ?? '';
  assert.equal(body, BROKEN_BODY.slice(0, 64 * 1024));
  const total = Buffer.byteLength(BROKEN_BODY);
  assert.match((await attempt.getByTestId('attempt-response-truncated').textContent()) ?? '', new RegExp(`sent ${total.toLocaleString('en')} bytes`));
  assert.equal(await attempt.getByTestId('phase-total').count(), 1);
  await screenshot(page, 'inspect-500');
  assert.deepEqual(problems, []);
  await page.close();
});
