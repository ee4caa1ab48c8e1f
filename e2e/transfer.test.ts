/**
 * Export and import from the UI in a real Chromium against real `hookbench serve` processes: an
 * NDJSON export of the Deliveries filter downloads exactly the matching messages, a HAR export
 * validates against HAR 1.2, and the NDJSON file imported through Inbound into a fresh data folder
 * gives the same messages, with the summary shown.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';
import type { AssertedMessage } from '../src-shared/assertions';
import { oneReceiverConfig, screenshotPath, startWorkbench, waitConnected, type Workbench } from './support/workbench';

const require = createRequire(import.meta.url);
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> };

let receiver: Receiver | null = null;
let wb: Workbench | null = null;
let fresh: ServeProcess | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({ name: 'transfer', config: oneReceiverConfig(receiver.url, { writeKey: 'wk_transfer', sharedSecret: 's' }) });
});

after(async () => {
  fresh?.child.kill('SIGINT');
  await fresh?.exited;
  await wb?.close();
  await receiver?.close();
});

/**
 * The save picker answered with a file of the page's own private file system (the real File System
 * Access API, its dialog left out): the export streams its pages into it. A string, so that tsx
 * does not wrap the functions in a helper the page lacks.
 */
const PRIVATE_FILE_PICKER = `window.showSaveFilePicker = async (options) => {
  window.__picked = options.suggestedName;
  const dir = await navigator.storage.getDirectory();
  return dir.getFileHandle(options.suggestedName, { create: true });
}`;

/** Runs the export as set up in the open panel and returns the saved file's name and text. */
async function download(page: Page): Promise<{ name: string; text: string }> {
  await page.evaluate(`window.__picked = null; ${PRIVATE_FILE_PICKER}`);
  await page.getByTestId('export-start').click();
  await page.waitForFunction(() => {
    const picked = (window as unknown as { __picked: string | null }).__picked;
    return picked !== null && (document.querySelector('[data-testid="export-done"]')?.textContent ?? '').includes(picked);
  });
  return (await page.evaluate(`(async () => {
    const name = window.__picked;
    const dir = await navigator.storage.getDirectory();
    const file = await (await dir.getFileHandle(name)).getFile();
    const text = await file.text();
    await dir.removeEntry(name);
    return { name, text };
  })()`)) as { name: string; text: string };
}

/** Where there is no picker (Firefox, Safari): the export is downloaded, each page a Blob. */
async function downloadWithoutPicker(page: Page): Promise<{ name: string; text: string }> {
  await page.evaluate('delete window.showSaveFilePicker; delete Window.prototype.showSaveFilePicker');
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-start').click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
}

test('export the Deliveries filter as NDJSON and HAR, import the NDJSON into a fresh data folder through Inbound', async () => {
  assert.ok(wb && receiver);
  const batch = [
    ...Array.from({ length: 3 }, (_, i) => ({ type: 'track', event: 'Order Completed', userId: `u-${i}`, messageId: `ord-${i}` })),
    { type: 'identify', userId: 'u-9', messageId: 'who-9', traits: { plan: 'pro' } },
  ];
  assert.equal((await wb.ingest('/v1/batch', 'wk_transfer', { batch })).status, 200);
  await receiver.waitFor(4);

  const { page, problems } = await wb.openPage({ view: 'deliveries', viewport: { width: 1400, height: 900 } });
  await page.getByTestId('delivery-row').nth(3).waitFor();
  await page.getByTestId('filter-type').selectOption('track');
  await page.locator('[data-testid="deliveries-count"][data-matching="3"]').waitFor();
  await page.getByTestId('export-open').click();
  assert.match((await page.getByTestId('export-scope').textContent()) ?? '', /Applies: type track/);

  const ndjson = await download(page);
  assert.match(ndjson.name, /^hookbench-\d{4}-\d{2}-\d{2}-\d{6}\.ndjson$/);
  await page.getByTestId('export-done').waitFor();
  await page.screenshot({ path: screenshotPath('transfer-export') });
  const lines = ndjson.text.trimEnd().split('\n');
  const matching = await wb.call('exportMessages', { format: 'ndjson', filter: { type: 'track' } });
  assert.equal(ndjson.text, matching.text, 'the downloaded file is the matching messages');
  assert.deepEqual(lines.map((l) => (JSON.parse(l) as { messageId: string }).messageId), ['ord-0', 'ord-1', 'ord-2']);

  await page.getByTestId('export-format').selectOption('har');
  await page.getByTestId('export-all').check();
  const har = await downloadWithoutPicker(page);
  assert.match(har.name, /\.har$/);
  const doc = JSON.parse(har.text) as { log: { entries: unknown[] } };
  assert.equal(doc.log.entries.length, 4);
  await assert.doesNotReject(harValidator.har(doc));
  assert.deepEqual(problems, []);

  // A fresh data folder: another serve, the same UI, the file imported through Inbound.
  const file = join(wb.dir, 'orders.ndjson');
  writeFileSync(file, `${ndjson.text}not json\n`);
  const config = join(wb.dir, 'fresh.json');
  writeFileSync(config, JSON.stringify({ sources: [{ name: 'imported', writeKey: 'wk_fresh' }], destinations: [] }));
  fresh = await startServe(['--port', '0', '--data-dir', join(wb.dir, 'fresh'), '--config', config], { env: { HOOKBENCH_TOKEN: wb.token, HOOKBENCH_UI_DIR: wb.uiDir } });
  const second = await wb.browser.newPage({ viewport: { width: 1400, height: 900 } });
  await second.goto(`${fresh.url}/?token=${wb.token}#/inbound`);
  await waitConnected(second);
  await second.getByTestId('import-open').click();
  await second.locator('[data-testid="import-source"] option[value="wk_fresh"]').waitFor({ state: 'attached' });
  await second.getByTestId('import-file').setInputFiles(file);
  await second.getByTestId('import-start').click();
  await second.locator('[data-testid="import-run"][data-state="done"]').waitFor();
  assert.equal(
    await second.getByTestId('import-summary').textContent(),
    'Imported orders.ndjson into imported: 3 messages accepted, 0 dropped (0 invalid, 0 duplicates), 0 refused, 1 lines skipped',
  );
  assert.match((await second.getByTestId('import-details').textContent()) ?? '', /line 4 skipped: not valid JSON/);
  await second.getByTestId('inbound-row').first().waitFor();
  await second.screenshot({ path: screenshotPath('transfer-import') });

  const listed = async (url: string): Promise<AssertedMessage[]> =>
    ((await (await fetch(`${url}/api/messages?type=track`, { headers: { authorization: `Bearer ${wb?.token ?? ''}` } })).json()) as { messages: AssertedMessage[] }).messages;
  // The same messages: ids, fields and times as sent; only the receipt (time, address) is the new server's.
  // A message sent without a timestamp was given one at ingest; sent again, that one is also kept as its originalTimestamp.
  const strip = (m: AssertedMessage) => {
    const { receivedAt: _r, originalTimestamp, context, ...rest } = m.message as Record<string, unknown> & { context: Record<string, unknown> };
    if (originalTimestamp !== undefined) assert.equal(originalTimestamp, rest.timestamp);
    return { ...rest, context: { ...context, ip: undefined } };
  };
  assert.deepEqual((await listed(fresh.url)).map(strip), (await listed(wb.url)).map(strip));
});
