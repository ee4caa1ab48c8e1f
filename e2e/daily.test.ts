/**
 * Daily use, in a real Chromium against a real `hookbench serve` with receivers that answer, fail,
 * refuse and hang: the Deliveries list says where each delivery goes and what each URL answered (and
 * what an in-flight round waits for); Compose flags every field at once, shows the exact body, keeps
 * the outcome beside Send and says when nothing will be delivered; the launch token survives a
 * restart; keys, ARIA and tooltips; the Deletions wording. Then every view at 640, 1024 and 1440 px,
 * light and dark, into e2e/screenshots/view-*.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';
import { screenshotPath, startWorkbench, waitConnected, type Workbench } from './support/workbench';

const BACKEND_KEY = 'wk_daily_backend';
const WEB_KEY = 'wk_daily_web';
const TIMEOUT_MS = 4_000;

let ok: Receiver | null = null;
let hang: Receiver | null = null;
let busy: Receiver | null = null;
let refusedUrl = '';
let wb: Workbench | null = null;

before(async () => {
  ok = await new Receiver().start('/ok');
  hang = await new Receiver().start('/hang');
  hang.respond(() => {
    // Never answers: the attempt runs into the delivery timeout.
  });
  busy = await new Receiver().start('/busy');
  busy.respond((_req, res) => {
    res.statusCode = 503;
    res.end('busy');
  });
  const closed = await new Receiver().start('/closed');
  refusedUrl = closed.url;
  await closed.close();
  wb = await startWorkbench({
    name: 'daily',
    config: {
      sources: [
        { name: 'backend', writeKey: BACKEND_KEY },
        { name: 'web', writeKey: WEB_KEY },
      ],
      destinations: [
        { name: 'Local receiver', enabled: true, sources: ['backend'], sharedSecret: 'daily', webhooks: [{ url: ok.url }, { url: hang.url }] },
        { name: 'Flaky', enabled: true, sources: ['web'], sharedSecret: null, webhooks: [{ url: busy.url }, { url: refusedUrl }] },
      ],
      delivery: { timeoutMs: TIMEOUT_MS },
    },
  });
});

after(async () => {
  await wb?.close();
  await Promise.all([ok?.close(), hang?.close(), busy?.close()]);
});

const rowOf = (page: Page, event: string) =>
  page.getByTestId('delivery-row').filter({ has: page.getByTestId('delivery-event').filter({ hasText: new RegExp(`^${event}$`) }) });

async function shoot(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: screenshotPath(`${name}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath(`${name}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

test('the list names source and destination, says what each URL answered, names pages and screens, and what an in-flight round waits for', async () => {
  assert.ok(wb && ok && hang);
  const { page, problems } = await wb.openPage({ viewport: { width: 1440, height: 900 } });
  assert.equal((await wb.ingest('/v1/track', BACKEND_KEY, { userId: 'alice', event: 'Order Completed', properties: { total: 42 } })).status, 200);

  // The first URL answered at once; the second hangs: the row says so while the round is out.
  const row = rowOf(page, 'Order Completed');
  // The round is first out on both URLs ("0 of 2"), then the fast one answers.
  const waiting = row.getByTestId('delivery-waiting').filter({ hasText: /^1 of 2 URLs answered/ });
  await waiting.waitFor({ timeout: TIMEOUT_MS - 500 });
  assert.match((await waiting.textContent()) ?? '', new RegExp(`^1 of 2 URLs answered; waiting for ${hang.url.replace(/[.?]/g, '\\$&')} \\(\\d s\\)$`));
  assert.equal(await row.getByTestId('delivery-status').textContent(), 'in flight');
  assert.deepEqual(await row.getByTestId('delivery-url-label').allTextContents(), ['200', 'waiting']);
  assert.equal(await row.getByTestId('delivery-route').textContent(), 'backend → Local receiver');
  await shoot(page, 'daily-deliveries-inflight-1440');

  // The hung URL times out; one URL succeeded, so the delivery did.
  await row.getByTestId('delivery-status').filter({ hasText: 'succeeded' }).waitFor({ timeout: TIMEOUT_MS + 5_000 });
  assert.deepEqual(await row.getByTestId('delivery-url-label').allTextContents(), ['200', 'timeout']);
  assert.equal(await row.getByTestId('delivery-waiting').count(), 0);
  assert.match((await row.getByTestId('delivery-url').nth(1).getAttribute('title')) ?? '', new RegExp(`no complete response within ${TIMEOUT_MS} ms`));
  assert.equal(await row.getByTestId('delivery-http').textContent(), '200');

  // A screen from the web source to Flaky: its name in the Event column; 503 and refused, in words.
  assert.equal((await wb.ingest('/v1/batch', WEB_KEY, { batch: [{ type: 'screen', anonymousId: 'anon-1', name: 'Home' }] })).status, 200);
  assert.equal((await wb.ingest('/v1/batch', BACKEND_KEY, { batch: [{ type: 'page', userId: 'bob', name: 'Pricing' }] })).status, 200);
  const screen = rowOf(page, 'Home');
  await screen.getByTestId('delivery-status').filter({ hasText: 'retrying' }).waitFor({ timeout: 10_000 });
  assert.deepEqual(await screen.getByTestId('delivery-url-label').allTextContents(), ['503', 'refused']);
  assert.equal(await screen.getByTestId('delivery-route').textContent(), 'web → Flaky');
  assert.equal(await screen.getByTestId('delivery-http').textContent(), 'refused', 'the Last column says the kind of error');
  assert.match((await screen.getByTestId('delivery-http').getAttribute('title')) ?? '', /connection refused/);
  await rowOf(page, 'Pricing').waitFor();
  assert.equal(await rowOf(page, 'Pricing').getByTestId('delivery-type').textContent(), 'page');
  await rowOf(page, 'Pricing').click();
  await page.getByTestId('detail-source').filter({ hasText: 'backend' }).waitFor();
  assert.equal(await page.getByTestId('detail-destination').textContent(), 'Local receiver');
  await page.keyboard.press('Escape');

  // Today's rows show the time alone.
  assert.match((await row.getByTestId('delivery-time').textContent()) ?? '', /^\d\d:\d\d:\d\d\.\d{3}$/);
  await shoot(page, 'daily-deliveries-1440');
  assert.deepEqual(problems, []);
  await page.close();

  // Seen from tomorrow, the same rows carry their date.
  const tomorrow = await wb.openPage({ viewport: { width: 1440, height: 900 }, waitConnected: false });
  await tomorrow.page.clock.setFixedTime(new Date(Date.now() + 86_400_000));
  await tomorrow.page.reload();
  await waitConnected(tomorrow.page);
  const time = rowOf(tomorrow.page, 'Order Completed').getByTestId('delivery-time');
  await time.waitFor();
  assert.match((await time.textContent()) ?? '', /^\d{1,2} [A-Z][a-z]{2} \d\d:\d\d:\d\d$/);
  const cell = await time.boundingBox();
  const inner = await time.locator('time').boundingBox();
  assert.ok(cell && inner && inner.width <= cell.width, 'the date fits its column');
  await shoot(tomorrow.page, 'daily-deliveries-tomorrow-1440');
  assert.deepEqual(tomorrow.problems, []);
  await tomorrow.page.close();
});

test('at 640 px a row keeps its second line: route and each URL in view', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 640, height: 800 } });
  const row = rowOf(page, 'Order Completed');
  await row.waitFor();
  const line = await row.getByTestId('delivery-outcomes').boundingBox();
  const label = await row.getByTestId('delivery-url-label').first().boundingBox();
  assert.ok(line && label && line.x >= 0 && label.x + label.width <= 640, JSON.stringify({ line, label }));
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
  await shoot(page, 'daily-deliveries-640');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Compose: every field error at once beside Send, the exact body, the outcome in view, and no promise of a delivery with Webhooks off', async () => {
  assert.ok(wb && ok);
  const { page, problems } = await wb.openPage({ view: 'compose', viewport: { width: 1440, height: 900 }, consoleErrors: false });
  await page.locator('[data-testid="compose-source"] option[value="backend"]').waitFor({ state: 'attached' });

  // Nothing filled in and broken JSON: all three named at once, and nothing sent.
  await page.getByTestId('compose-properties').fill('{"total": ');
  await page.getByTestId('compose-send').click();
  const invalid = page.getByTestId('compose-invalid');
  await invalid.waitFor();
  assert.equal(await invalid.textContent(), 'Nothing sent: 3 fields need fixing: userId, Event, Properties');
  assert.equal(await page.getByTestId('compose-error-userId').textContent(), 'Give a userId, an anonymousId, or both.');
  assert.equal(await page.getByTestId('compose-error-event').textContent(), 'Event is required.');
  assert.ok(await invalid.isVisible());
  await shoot(page, 'daily-compose-errors-1440');
  await page.getByTestId('compose-invalid-event').click();
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'compose-event', 'the summary takes you to the field');

  await page.getByTestId('compose-userId').fill('user_daily');
  await page.getByTestId('compose-event').fill('Order Completed');
  await page.getByTestId('compose-properties').fill('{"total": 42}');
  await page.getByTestId('compose-messageId').fill('daily-preview-1');
  assert.equal(await invalid.count(), 0);

  // The preview is the body the client library will post: indented, and as sent.
  const preview = page.getByTestId('compose-preview-body');
  const expected = {
    batch: [{ type: 'track', event: 'Order Completed', userId: 'user_daily', properties: { total: 42 }, timestamp: '<the time of sending>', messageId: 'daily-preview-1' }],
    sentAt: '<the time of sending>',
    context: { library: { name: 'hookbench-client', version: '0.1.0' } },
  };
  assert.deepEqual(JSON.parse((await preview.textContent()) ?? ''), expected);
  await page.getByTestId('compose-preview-raw').click();
  assert.equal(await preview.textContent(), JSON.stringify(expected));
  await page.getByTestId('compose-preview-pretty').click();

  // Sent: the outcome is beside the Send button, inside the window, without scrolling.
  const before = ok.received.length;
  await page.getByTestId('compose-send').click();
  const result = page.getByTestId('compose-result');
  await page.getByTestId('compose-sent').waitFor();
  const box = await result.boundingBox();
  const send = await page.getByTestId('compose-send').boundingBox();
  assert.ok(box && send && box.y >= 0 && box.y + box.height <= 900, `the result is in the window: ${JSON.stringify(box)}`);
  assert.ok(box.y - (send.y + send.height) < 40, 'right under the Send button');
  assert.equal(await page.getByTestId('compose-goto-deliveries').textContent(), 'Watch it in Deliveries (Local receiver)');
  await ok.waitFor(before + 1);
  const sent = JSON.parse(ok.received[before]!.body.toString('utf8')) as Record<string, unknown>;
  assert.equal(sent.messageId, 'daily-preview-1');
  await shoot(page, 'daily-compose-sent-1440');

  // Webhooks switched off for the call: no "Watch them in Deliveries", but why nothing goes out.
  await page.getByTestId('compose-messageId').fill('');
  await page.getByTestId('compose-integration-Webhooks').uncheck();
  assert.deepEqual((JSON.parse((await preview.textContent()) ?? '') as typeof expected & { batch: { integrations: unknown }[] }).batch[0]!.integrations, {
    All: true,
    Webhooks: false,
  });
  await page.getByTestId('compose-send').click();
  const nothing = page.getByTestId('compose-no-delivery');
  await nothing.waitFor();
  assert.equal(
    await nothing.textContent(),
    'Nothing will be delivered: the Webhooks switch is off for this call (its integrations leave Webhooks out). The call is stored and shown in Inbound.',
  );
  assert.equal(await page.getByTestId('compose-goto-deliveries').count(), 0);
  assert.equal(await page.getByTestId('compose-goto-inbound').count(), 1);
  await shoot(page, 'daily-compose-webhooks-off-1440');
  assert.deepEqual(problems, []);
  await page.close();
});

test('Compose at 640 px: the Send bar and the outcome stay in the window', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ view: 'compose', viewport: { width: 640, height: 800 }, consoleErrors: false });
  await page.locator('[data-testid="compose-source"] option[value="web"]').waitFor({ state: 'attached' });
  await page.getByTestId('compose-source').selectOption('web');
  await page.getByTestId('compose-anonymousId-generate').click();
  await page.getByTestId('compose-event').fill('Signed Up');
  await page.getByTestId('compose-send').click();
  await page.getByTestId('compose-sent').waitFor();
  const box = await page.getByTestId('compose-result').boundingBox();
  assert.ok(box && box.y + box.height <= 800 && box.x + box.width <= 640, JSON.stringify(box));
  assert.equal(await page.getByTestId('compose-goto-deliveries').textContent(), 'Watch it in Deliveries (Flaky)');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
  await shoot(page, 'daily-compose-640');
  assert.deepEqual(problems, []);
  await page.close();
});

test('keys and ARIA: ? lists the shortcuts, ↓ moves in Deliveries, the Live switch says it is on, statuses explain themselves, URL inputs have names', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 1440, height: 900 } });
  await page.getByTestId('delivery-row').first().waitFor();
  await page.keyboard.press('?');
  const help = page.getByTestId('shortcuts');
  await help.waitFor();
  assert.match((await help.textContent()) ?? '', /↓/);
  await shoot(page, 'daily-shortcuts-1440');
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'detached' });
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.getByTestId('delivery-row').first().getAttribute('data-cursor'), 'true');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.getByTestId('delivery-row').nth(1).getAttribute('data-cursor'), 'true');
  assert.equal(await page.getByTestId('live-pause').getAttribute('aria-checked'), 'true');
  const retrying = page.getByTestId('delivery-status').filter({ hasText: 'retrying' }).first();
  assert.ok(((await retrying.getAttribute('title')) ?? '').length > 10, 'a status says what it means on hover');

  await page.getByTestId('nav-configure').click();
  await page.getByTestId('configure-ready').waitFor();
  await page.locator('[data-testid="destination-row"][data-name="Local receiver"]').getByTestId('destination-edit').click();
  await page.getByLabel('Webhook URL 2', { exact: true }).waitFor();
  assert.equal(await page.getByLabel('Webhook URL 1', { exact: true }).inputValue(), ok?.url);
  assert.deepEqual(problems, []);
  await page.close();
});

test('Deletions says what a purge removes, as the engine does it: the deliveries made from the messages go too', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ view: 'deletions', viewport: { width: 1440, height: 900 } });
  const hint = page.getByTestId('deletion-purge-hint');
  await hint.waitFor();
  const words = (await hint.textContent()) ?? '';
  assert.match(words, /the deliveries made from them/);
  assert.match(words, /all of them are removed/);
  assert.doesNotMatch(words, /deliveries already made stay/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a tab opened with the kept launch token works again after a restart on the same folder and port, without a reload', async () => {
  assert.ok(wb);
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-e2e-token-'));
  const data = join(dir, 'data');
  const env = { HOOKBENCH_UI_DIR: wb.uiDir };
  let serve: ServeProcess | null = null;
  try {
    serve = await startServe(['--port', '0', '--data-dir', data], { env });
    const url = serve.url;
    const token = readFileSync(join(data, 'launch-token'), 'utf8').trim();
    assert.equal(statSync(join(data, 'launch-token')).mode & 0o777, 0o600);
    // stderr may trail the stdout line by a moment.
    for (const deadline = Date.now() + 5_000; !serve.stderr().includes('?token=') && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    assert.match(serve.stderr(), new RegExp(`\\?token=${token}`));
    const page = await wb.browser.newPage({ viewport: { width: 1024, height: 700 } });
    await page.goto(`${url}/?token=${token}#/configure`);
    await waitConnected(page);
    serve.child.kill('SIGINT');
    await serve.exited;
    await page.getByTestId('stopped-banner').waitFor();

    serve = await startServe(['--port', new URL(url).port, '--data-dir', data], { env });
    await waitConnected(page);
    await page.getByTestId('configure-ready').waitFor();
    assert.equal(await page.getByTestId('stopped-banner').count(), 0);
    assert.equal(await page.getByTestId('error-banner').count(), 0);
    await page.close();
  } finally {
    if (serve) {
      serve.child.kill('SIGINT');
      await serve.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

const VIEWS = ['deliveries', 'inbound', 'compose', 'audiences', 'deletions', 'configure'] as const;
const SIZES = [
  { width: 640, height: 800 },
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
];

test('every view at 640, 1024 and 1440 px, light and dark, fits its width (screenshots into e2e/screenshots/view-*)', async () => {
  assert.ok(wb);
  for (const viewport of SIZES) {
    const { page, problems } = await wb.openPage({ viewport });
    await page.getByTestId('delivery-row').first().waitFor();
    for (const view of VIEWS) {
      await page.getByTestId(`nav-${view}`).click();
      // Let the view read what it shows before the picture; nothing is asserted on this wait.
      await page.waitForTimeout(500);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0, `${view} at ${viewport.width} px`);
      await shoot(page, `view-${view}-${viewport.width}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
});
