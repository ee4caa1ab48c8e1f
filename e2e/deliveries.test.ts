/**
 * The deliveries view in a real Chromium against a real `hookbench serve` and a real receiver:
 * empty state, a live row after an ingest, and the detail with the exact signature.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';
import { buildUi, CHROMIUM, CHROMIUM_ARGS } from './support/build';

const root = new URL('../', import.meta.url).pathname;
const SECRET = 'e2e-shared-secret';
const WRITE_KEY = 'wk_e2e';
const TOKEN = randomBytes(24).toString('base64url');

let dir = '';
let receiver: Receiver | null = null;
let serve: ServeProcess | null = null;
let browser: Browser | null = null;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install it (apt-get install chromium) or set HOOKBENCH_CHROMIUM`);
  // Always build: a stale out/renderer/ would test old code.
  const uiDir = buildUi();

  dir = mkdtempSync(join(tmpdir(), 'hookbench-e2e-'));
  receiver = await new Receiver().start();
  const config = join(dir, 'hookbench.json');
  writeFileSync(
    config,
    JSON.stringify({
      sources: [{ name: 'backend', writeKey: WRITE_KEY }],
      destinations: [{ name: 'Local receiver', enabled: true, sources: ['backend'], sharedSecret: SECRET, webhooks: [{ url: receiver.url }] }],
    }),
  );
  serve = await startServe(['--port', '0', '--data-dir', join(dir, 'data'), '--config', config], { env: { HOOKBENCH_TOKEN: TOKEN, HOOKBENCH_UI_DIR: uiDir } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  if (serve) {
    serve.child.kill('SIGINT');
    await serve.exited;
  }
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a tracked event appears live, and its detail shows the body and the X-Signature the receiver got', async () => {
  assert.ok(browser && serve && receiver);
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });

  await page.goto(`${serve.url}/?token=${TOKEN}`);
  await page.getByTestId('empty-state').waitFor();
  const snippet = await page.getByTestId('empty-snippet').textContent();
  assert.match(snippet ?? '', new RegExp(`${serve.url}/v1/track`));
  assert.match(snippet ?? '', new RegExp(WRITE_KEY));
  await page.locator('[data-testid="connection-state"][data-state="connected"]').waitFor();
  mkdirSync(join(root, 'e2e/screenshots'), { recursive: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(root, 'e2e/screenshots/empty-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });

  const res = await fetch(`${serve.url}/v1/track`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'user_e2e', event: 'Order Completed', properties: { total: 42 } }),
  });
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

  await page.screenshot({ path: join(root, 'e2e/screenshots/deliveries.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a receiver answering 500 shows retrying with attempts; once fixed, replay and edit-and-replay succeed, re-signed', async () => {
  assert.ok(browser && serve && receiver);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  await page.goto(`${serve.url}/?token=${TOKEN}`);
  await page.locator('[data-testid="connection-state"][data-state="connected"]').waitFor();

  receiver.respond((_req, res) => {
    res.writeHead(500);
    res.end('receiver is broken');
  });
  const res = await fetch(`${serve.url}/v1/track`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ userId: 'user_retry', event: 'Checkout Started', messageId: 'e2e-retry-1' }),
  });
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

  await page.screenshot({ path: join(root, 'e2e/screenshots/replay.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});
