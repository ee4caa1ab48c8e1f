/**
 * Configure and Inbound in a real Chromium against a real `hookbench serve` (no config file: the
 * UI does all the configuring) and two real receivers: a source and a destination with two URLs,
 * static headers and a secret are made in the UI; a track sent with the generated write key
 * reaches both receivers signed; invalid input is refused inline and nothing is saved; Inbound
 * shows the raw calls with their dropped items and reasons.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type OpenedPage, type Workbench } from './support/workbench';

const SECRET = 'e2e-configure-secret';

let first: Receiver | null = null;
let second: Receiver | null = null;
let wb: Workbench | null = null;
/** Set by the first test: the write key the UI generated. */
let writeKey = '';

before(async () => {
  first = await new Receiver().start('/first');
  second = await new Receiver().start('/second');
  wb = await startWorkbench({ name: 'configure' });
});

after(async () => {
  await wb?.close();
  await first?.close();
  await second?.close();
});

function openPage(view: string): Promise<OpenedPage> {
  assert.ok(wb);
  return wb.openPage({
    view,
    viewport: { width: 1400, height: 1000 },
    permissions: ['clipboard-read', 'clipboard-write'],
    // A refused call answers 400, which Chromium logs as a failed resource: that is the test's point, not a problem.
    expectedConsole: /status of 400/,
  });
}

const fieldError = (page: Page, field: string) => page.locator(`[data-testid="field-error"][data-field="${field}"]`);

test('configure in the UI: a source with a generated write key, a destination with two URLs, headers and a secret; a track reaches both, signed', async () => {
  assert.ok(wb && first && second);
  const { page, problems } = await openPage('configure');
  await page.getByTestId('configure-ready').waitFor();
  await page.getByTestId('sources-empty').waitFor();
  await page.getByTestId('destinations-empty').waitFor();

  // A source: the write key is generated in the browser, and can be copied.
  await page.getByTestId('source-name').fill('web-app');
  writeKey = await page.getByTestId('source-writekey').inputValue();
  assert.match(writeKey, /^wk_[A-Za-z0-9]{24}$/);
  await page.getByTestId('source-save').click();
  await page.getByTestId('source-saved').waitFor();
  const row = page.locator('[data-testid="source-row"][data-name="web-app"]');
  assert.equal(await row.getByTestId('source-row-writekey').textContent(), writeKey);
  await row.getByTestId('source-row-copy').click();
  await page.locator('[data-testid="source-row-copy"][data-state="copied"]').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), writeKey);

  // The ingest address comes from the engine, and the snippets carry it and the key.
  assert.equal(await page.getByTestId('ingest-url').textContent(), wb.url);
  const node = (await page.getByTestId('snippet-node').textContent()) ?? '';
  assert.ok(node.includes(`new Analytics({ writeKey: "${writeKey}", host: "${wb.url}" })`), node);
  const go = (await page.getByTestId('snippet-go').textContent()) ?? '';
  assert.ok(go.includes(`analytics.NewWithConfig("${writeKey}", analytics.Config{Endpoint: "${wb.url}"})`), go);
  const curl = (await page.getByTestId('snippet-curl').textContent()) ?? '';
  assert.ok(curl.startsWith(`curl '${wb.url}/v1/track' \\\n  -u '${writeKey}:'`), curl);
  // The browser and mobile setup, next to them, point at the same address.
  const browserSnippet = (await page.getByTestId('snippet-browser').textContent()) ?? '';
  assert.ok(browserSnippet.includes(`t.src="${wb.url}/analytics.js/v1/" + key + "/analytics.min.js"`), browserSnippet);
  assert.ok(browserSnippet.includes(`analytics.load("${writeKey}");`), browserSnippet);
  const swift = (await page.getByTestId('snippet-swift').textContent()) ?? '';
  assert.ok(swift.includes(`.cdnHost("${wb.url.replace('http://', '')}/v1")`), swift);
  const kotlin = (await page.getByTestId('snippet-kotlin').textContent()) ?? '';
  assert.ok(kotlin.includes(`apiHost = "${wb.url.replace('http://', '')}/v1"`), kotlin);

  // The engine's own refusal, shown by the field it names: a write key already in use.
  await page.getByTestId('source-name').fill('copycat');
  await page.getByTestId('source-writekey').fill(writeKey);
  await page.getByTestId('source-save').click();
  await fieldError(page, 'source.writeKey').filter({ hasText: 'is already the write key of source "web-app"' }).waitFor();
  assert.equal((await wb.call('listSources')).length, 1, 'the refused source was not saved');

  // A destination with two URLs, a static header on each, and a secret (masked until revealed).
  await page.getByTestId('destination-new').click();
  await page.getByTestId('destination-name').fill('Two receivers');
  assert.equal(await page.getByTestId('destination-source-web-app').isChecked(), true, 'the only source is attached from the start');
  assert.equal(await page.getByTestId('destination-enabled').isChecked(), true);
  await page.getByTestId('webhook-url-0').fill(first.url);
  await page.getByTestId('webhook-add-url').click();
  await page.getByTestId('webhook-url-1').fill(second.url);
  for (const i of [0, 1]) {
    await page.getByTestId(`webhook-add-header-${i}`).click();
    await page.getByTestId(`webhook-header-name-${i}-0`).fill('X-Env');
    await page.getByTestId(`webhook-header-value-${i}-0`).fill(`e2e-${i}`);
  }
  await page.getByTestId('destination-secret').fill(SECRET);
  assert.equal(await page.getByTestId('destination-secret').getAttribute('type'), 'password');
  await page.getByTestId('destination-secret-reveal').click();
  assert.equal(await page.getByTestId('destination-secret').getAttribute('type'), 'text');
  // Headless mode has no keychain: the editor says the secret is kept as plain text, and where.
  assert.match((await page.getByTestId('destination-secret-at-rest').textContent()) ?? '', /stored as plain text in hookbench\.sqlite, a file only your user account can read/);
  // A tab switch before saving loses nothing of the half-edited destination.
  await page.getByTestId('nav-deliveries').click();
  await page.getByTestId('deliveries-view').waitFor();
  await page.getByTestId('nav-configure').click();
  await page.getByTestId('configure-ready').waitFor();
  assert.equal(await page.getByTestId('destination-name').inputValue(), 'Two receivers');
  assert.equal(await page.getByTestId('webhook-url-1').inputValue(), second.url);
  assert.equal(await page.getByTestId('webhook-header-value-1-0').inputValue(), 'e2e-1');
  assert.equal(await page.getByTestId('destination-secret').inputValue(), SECRET);
  await page.getByTestId('destination-save').click();
  await page.getByTestId('destination-saved').waitFor();
  await page.locator('[data-testid="destination-row"][data-name="Two receivers"]').waitFor();
  const [saved] = await wb.call('listDestinations');
  assert.deepEqual(
    { name: saved?.name, enabled: saved?.enabled, sources: saved?.sources, sharedSecret: saved?.sharedSecret, webhooks: saved?.webhooks },
    {
      name: 'Two receivers',
      enabled: true,
      sources: ['web-app'],
      sharedSecret: SECRET,
      webhooks: [
        { url: first.url, headers: { 'X-Env': 'e2e-0' }, enabled: true },
        { url: second.url, headers: { 'X-Env': 'e2e-1' }, enabled: true },
      ],
    },
  );
  assert.equal(await page.getByTestId('destination-secret').getAttribute('type'), 'password', 'the revealed secret is hidden again once saved');
  assert.equal(await page.getByTestId('destination-secret-reveal').getAttribute('aria-pressed'), 'false');
  // Each URL input has a real label, not only its placeholder.
  assert.equal(await page.getByLabel('Webhook URL 2', { exact: true }).inputValue(), second.url);
  await page.screenshot({ path: screenshotPath('configure'), fullPage: true });

  // A track with the generated write key, as curl would send it, reaches both receivers, signed.
  const res = await wb.ingest('/v1/track', writeKey, { userId: 'user_cfg', event: 'Signed Up', messageId: 'e2e-cfg-1', properties: { plan: 'pro' } });
  assert.equal(res.status, 200);
  await Promise.all([first.waitFor(1), second.waitFor(1)]);
  for (const [i, receiver] of [first, second].entries()) {
    const got = receiver.received[0]!;
    assert.equal(got.headers['x-env'], `e2e-${i}`);
    assert.equal(got.headers['x-signature'], createHmac('sha1', SECRET).update(got.body).digest('hex'));
    assert.equal((JSON.parse(got.body.toString('utf8')) as { event: string }).event, 'Signed Up');
  }

  // Invalid input is refused inline, by field, with the reason; nothing is saved.
  const before = JSON.stringify(await wb.call('listDestinations'));
  await page.getByTestId('webhook-url-1').fill('not a url');
  await page.getByTestId('webhook-header-name-0-0').fill('Bad Header');
  await page.getByTestId('destination-save').click();
  await fieldError(page, 'destination.webhooks[1].url').filter({ hasText: '"not a url" is not a valid URL' }).waitFor();
  await fieldError(page, 'destination.webhooks[0].headers.Bad Header').filter({ hasText: 'header name must be a token' }).waitFor();
  await page.getByTestId('destination-not-saved').waitFor();
  await page.getByTestId('webhook-header-name-0-0').fill('User-Agent');
  await page.getByTestId('destination-save').click();
  await fieldError(page, 'destination.webhooks[0].headers.User-Agent').filter({ hasText: 'User-Agent is set by Hookbench and cannot be overridden' }).waitFor();
  assert.equal(JSON.stringify(await wb.call('listDestinations')), before, 'nothing was saved');
  await page.getByTestId('destination-form').screenshot({ path: screenshotPath('configure-refusals') });

  // Up to five URLs: at five, "Add URL" is refused with the reason, and no sixth can be sent.
  await page.getByTestId('webhook-url-1').fill(second.url);
  await page.getByTestId('webhook-header-name-0-0').fill('X-Env');
  for (const i of [2, 3, 4]) {
    await page.getByTestId('webhook-add-url').click();
    await page.getByTestId(`webhook-url-${i}`).fill(`${second.url}?n=${i}`);
  }
  assert.equal(await page.getByTestId('webhook-add-url').isDisabled(), true);
  assert.match((await page.getByTestId('webhook-add-url-reason').textContent()) ?? '', /at most 5 webhook URLs/);
  await page.getByTestId('webhook-add-url').click({ force: true });
  assert.equal(await page.getByTestId('webhook-url-5').count(), 0, 'a disabled button adds nothing');
  assert.equal(JSON.stringify(await wb.call('listDestinations')), before, 'nothing was saved');
  // The engine refuses a sixth sent by any other way, naming the field the UI shows it by.
  const secondUrl = second.url;
  const sixth = await wb.callRaw('saveDestination', {
    ...saved,
    webhooks: [1, 2, 3, 4, 5, 6].map((n) => ({ url: `${secondUrl}?n=${n}`, headers: {} })),
  });
  const refusal = (await sixth.json()) as { error: { fields: { field: string }[] } };
  assert.equal(sixth.status, 400);
  assert.deepEqual(refusal.error.fields.map((f) => f.field), ['destination.webhooks[5]']);
  assert.equal(JSON.stringify(await wb.call('listDestinations')), before, 'nothing was saved');

  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('configure-limit-dark'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  assert.deepEqual(problems, []);
  await page.close();
});

test('Inbound shows each call live, newest first, with its messages and its dropped items and their reasons', async () => {
  assert.ok(wb && writeKey, 'runs after the configure test, with its write key');
  const { page, problems } = await openPage('inbound');
  await page.getByTestId('inbound-row').first().waitFor();
  const before = await page.getByTestId('inbound-row').count();
  // The keys work as soon as the view is shown, without a click first; ↓ is j.
  await page.keyboard.press('ArrowDown');
  await page.locator('[data-testid="inbound-row"][aria-selected="true"]').first().waitFor();
  assert.equal(await page.getByTestId('inbound-row').first().getAttribute('aria-selected'), 'true');
  assert.match((await page.getByTestId('inbound-status').first().getAttribute('title')) ?? '', /^Answered with success/);

  const res = await wb.ingest(
    '/v1/batch',
    writeKey,
    {
      batch: [
        { type: 'track', userId: 'user_cfg', event: 'Order Completed', messageId: 'e2e-cfg-2', properties: { total: 42 }, traits: ['vip'] },
        { type: 'track', userId: 'user_cfg', messageId: 'e2e-cfg-bad' },
        { type: 'track', userId: 'user_cfg', event: 'Signed Up', messageId: 'e2e-cfg-1' },
      ],
    },
    { 'user-agent': 'e2e-agent/1.0' },
  );
  assert.equal(res.status, 200);

  // Live: the new call arrives on top without a reload.
  await page.locator('[data-testid="inbound-row"]').nth(before).waitFor();
  const batchId = await page.getByTestId('inbound-row').first().getAttribute('data-id');
  const newest = page.locator(`[data-testid="inbound-row"][data-id="${batchId}"]`);
  assert.equal(await newest.getByTestId('inbound-path').textContent(), '/v1/batch');
  assert.equal(await newest.getByTestId('inbound-source').textContent(), 'web-app');
  assert.equal(await newest.getByTestId('inbound-status').textContent(), '200');
  assert.equal(await newest.getByTestId('inbound-dropped').textContent(), '1');
  assert.equal(await newest.getByTestId('inbound-duplicates').textContent(), '1');

  await newest.click();
  const detail = page.getByTestId('inbound-detail');
  await detail.getByTestId('inbound-message').first().waitFor();
  assert.equal(await detail.getByTestId('inbound-message').count(), 1);
  assert.equal(await detail.getByTestId('inbound-message').getAttribute('data-message-id'), 'e2e-cfg-2');
  const json = JSON.parse((await detail.getByTestId('inbound-message-json').textContent()) ?? '{}') as { properties?: unknown };
  assert.deepEqual(json.properties, { total: 42 });
  // A wrongly typed optional field is left out of the message and shown next to it.
  const warning = detail.getByTestId('inbound-warning');
  assert.equal(await warning.count(), 1);
  assert.equal(await warning.getByTestId('inbound-warning-field').textContent(), 'batch[0].traits');
  assert.equal(await warning.getByTestId('inbound-warning-problem').textContent(), 'must be an object; got an array; left out');
  assert.equal(await detail.getByTestId('inbound-warned-count').textContent(), ' · 1 with warnings');
  const dropped = detail.getByTestId('dropped-item');
  assert.equal(await dropped.count(), 2);
  assert.equal(await dropped.nth(0).getAttribute('data-kind'), 'invalid');
  assert.equal(await dropped.nth(0).getByTestId('dropped-reason').textContent(), 'batch[1].event: is required for track (a non-empty string)');
  assert.equal(await dropped.nth(1).getAttribute('data-kind'), 'duplicate');
  assert.match((await dropped.nth(1).getByTestId('dropped-reason').textContent()) ?? '', /messageId "e2e-cfg-1"/);

  // A refused call shows its error code and text.
  const bad = await wb.ingest('/v1/track', 'wk_nobody', { userId: 'u', event: 'E' });
  // An unknown key is answered 200 (as Segment does), yet the row shows the call as refused.
  assert.equal(bad.status, 200);
  assert.equal(((await bad.json()) as { code?: string }).code, 'unknown_write_key');
  await page.locator('[data-testid="inbound-row"].refused').first().getByTestId('inbound-status').filter({ hasText: '200' }).waitFor();
  await page.getByTestId('inbound-refusal').first().waitFor();

  await page.screenshot({ path: screenshotPath('inbound'), fullPage: true });

  // The delivery link opens it in the Deliveries view.
  await newest.click();
  const link = detail.getByTestId('inbound-delivery-link').first();
  const deliveryId = ((await link.textContent()) ?? '').replace('#', '');
  await link.click();
  await page.getByTestId('deliveries-view').waitFor();
  await page.locator(`[data-testid="delivery-row"][data-id="${deliveryId}"][aria-selected="true"]`).waitFor();
  await page.getByTestId('delivery-detail').waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('Log retention and Clear log: settings refused by field and saved; the confirmation says what goes and what stays; Inbound is empty after', async () => {
  assert.ok(wb && writeKey, 'runs after the Inbound test, with requests in the log');
  const { page, problems } = await openPage('configure');
  const section = page.getByTestId('retention-section');
  await section.waitFor();
  assert.equal(await page.getByTestId('retention-days').inputValue(), '30');
  assert.equal(await page.getByTestId('retention-megabytes').inputValue(), '1024');

  await page.getByTestId('retention-days').fill('0');
  await page.getByTestId('retention-save').click();
  await fieldError(page, 'retention.days').filter({ hasText: 'must be a whole number of days from 1 to 3650' }).waitFor();
  await page.getByTestId('retention-days').fill('7');
  await page.getByTestId('retention-save').click();
  await page.getByTestId('retention-saved').waitFor();

  await page.getByTestId('clear-log').click();
  const confirm = page.getByTestId('clear-log-confirm');
  await confirm.waitFor();
  const words = (await confirm.textContent()) ?? '';
  assert.match(words, /Sources, destinations, settings, templates, profiles, audiences and deletion requests stay/);
  assert.match(words, /pending, in flight or retrying stay too/);
  await section.screenshot({ path: screenshotPath('configure-retention') });
  await page.getByTestId('clear-log-yes').click();
  await page.getByTestId('clear-log-done').filter({ hasText: /^Removed [1-9]\d* requests/ }).waitFor();

  await page.goto(page.url().replace(/#.*$/, '#/inbound'));
  await page.getByTestId('inbound-empty').waitFor();
  await page.goto(page.url().replace(/#.*$/, '#/configure'));
  await page.getByTestId('source-row').first().waitFor();
  assert.deepEqual(problems, []);
  await page.close();
});

test('write-key rotation is its own confirmed action: an existing name in "New source" is refused; Rotate write key warns which key stops working', async () => {
  assert.ok(wb && writeKey, 'runs after the first test made web-app');
  const { page, problems } = await openPage('configure');
  const row = page.locator('[data-testid="source-row"][data-name="web-app"]');
  await row.waitFor();

  // Typing an existing name keeps the form a "New source" form, and saving it changes nothing.
  await page.getByTestId('source-name').fill('web-app');
  assert.equal(await page.getByTestId('source-form').locator('h3').textContent(), 'New source');
  await page.getByTestId('source-save').click();
  await fieldError(page, 'source.name').filter({ hasText: 'Rotate write key' }).waitFor();
  assert.equal((await wb.call('listSources'))[0]?.writeKey, writeKey, 'the key is unchanged');

  // Rotation asks first, naming the key that will be refused.
  await row.getByTestId('source-rotate').click();
  const warning = (await row.getByTestId('source-rotate-warning').textContent()) ?? '';
  assert.ok(warning.includes(writeKey) && /refused/.test(warning), warning);
  await row.screenshot({ path: screenshotPath('configure-rotate-confirm') });
  await row.getByTestId('source-rotate-confirm').click();
  await page.getByTestId('source-rotated').waitFor();
  const [source] = await wb.call('listSources');
  assert.ok(source && source.writeKey !== writeKey);
  assert.equal(await row.getByTestId('source-row-writekey').textContent(), source.writeKey);
  const old = (await (await wb.ingest('/v1/track', writeKey, { userId: 'u', event: 'After rotation' })).json()) as { code?: string };
  assert.equal(old.code, 'unknown_write_key', 'the old key is refused');
  writeKey = source.writeKey;
  assert.deepEqual(problems, []);
  await page.close();
});

test('a destination is renamed in place and a URL switched off without deleting it: nothing reaches that URL until it is on again', async () => {
  assert.ok(wb && first && second && writeKey, 'runs after the first test made "Two receivers"');
  const { page, problems } = await openPage('configure');
  await page.locator('[data-testid="destination-row"][data-name="Two receivers"]').waitFor();
  const [before] = await wb.call('listDestinations');
  assert.ok(before);
  await page.locator('[data-testid="destination-row"][data-name="Two receivers"]').getByTestId('destination-edit').click();
  await page.getByTestId('destination-name').fill('Staging pair');
  await page.getByTestId('destination-rename-note').waitFor();
  const urlSwitch = page.getByTestId('webhook-enabled-1');
  assert.equal(await urlSwitch.getAttribute('aria-checked'), 'true');
  await urlSwitch.uncheck();
  assert.equal(await urlSwitch.getAttribute('aria-checked'), 'false');
  await page.getByTestId('webhook-off-note-1').waitFor();
  await page.getByTestId('destination-form').screenshot({ path: screenshotPath('configure-url-off') });
  await page.getByTestId('destination-save').click();
  await page.getByTestId('destination-saved').waitFor();
  await page.locator('[data-testid="destination-row"][data-name="Staging pair"]').waitFor();
  assert.equal(await page.locator('[data-testid="destination-row"][data-name="Two receivers"]').count(), 0);
  const [after] = await wb.call('listDestinations');
  assert.equal(after?.id, before.id, 'renamed, not replaced');
  assert.deepEqual(after?.webhooks.map((w) => [w.url, w.enabled, w.headers['X-Env']]), [
    [first.url, true, 'e2e-0'],
    [second.url, false, 'e2e-1'],
  ]);

  const firstBefore = first.received.length;
  const secondBefore = second.received.length;
  const res = await wb.ingest('/v1/track', writeKey, { userId: 'user_cfg', event: 'Only First', messageId: 'e2e-cfg-off' });
  assert.equal(res.status, 200);
  await first.waitFor(firstBefore + 1);
  const done = Date.now() + 10_000;
  let status = '';
  while (status !== 'succeeded' && Date.now() < done) {
    const page1 = await wb.call('listDeliveries', { limit: 5 });
    status = page1.items.find((d) => d.messageId === 'e2e-cfg-off')?.status ?? '';
    if (status !== 'succeeded') await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 'succeeded');
  assert.equal(second.received.length, secondBefore, 'the URL switched off got nothing');
  assert.deepEqual(problems, []);
  await page.close();
});
