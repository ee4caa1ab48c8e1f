/**
 * Watch in a real Chromium against a real `hookbench serve` and a real receiver: filters and the
 * hidden count, the live pause, the keys, and "Replay failed in this filter" after the receiver
 * is fixed. The short retry preset with a 2 s window makes failures final quickly; every wait is
 * on what the page shows, never a sleep.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Receiver, status } from '../src-main/engine/testing/receiver';
import { oneReceiverConfig, screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const WRITE_KEY = 'wk_watch';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;
let page: Page | null = null;
let problems: string[] = [];

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({
    name: 'watch',
    config: { ...oneReceiverConfig(receiver.url, { writeKey: WRITE_KEY, sharedSecret: 'watch-secret' }), delivery: { preset: 'short', retryWindowMs: 2000 } },
  });
  ({ page, problems } = await wb.openPage({ viewport: { width: 1400, height: 860 } }));
  await page.getByTestId('empty-state').waitFor();
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

async function send(batch: Record<string, unknown>[]): Promise<void> {
  assert.ok(wb);
  const res = await wb.ingest('/v1/batch', WRITE_KEY, { batch });
  assert.equal(res.status, 200);
}

const rows = (p: Page) => p.getByTestId('delivery-row');
const rowsOf = (p: Page, user: string) => rows(p).filter({ has: p.getByTestId('delivery-user').filter({ hasText: user }) });
const userCells = async (p: Page): Promise<string[]> => (await p.getByTestId('delivery-user').allTextContents()).sort();

/** Waits until the list shows exactly these users (in any order). */
async function waitForUsers(p: Page, users: string[]): Promise<void> {
  const expected = [...users].sort();
  await p.waitForFunction(
    (want) => {
      const got = [...document.querySelectorAll('[data-testid="delivery-user"]')].map((e) => e.textContent ?? '').sort();
      return JSON.stringify(got) === JSON.stringify(want);
    },
    expected,
    { timeout: 15_000 },
  );
}

async function waitForCounts(p: Page, total: number, matching: number): Promise<void> {
  await p.locator(`[data-testid="deliveries-count"][data-total="${total}"][data-matching="${matching}"]`).waitFor({ timeout: 15_000 });
}

test('filters by status, type, URL and text narrow the rows, and the hidden count says how many are left out', async () => {
  assert.ok(page && receiver && wb);
  const p = page;
  await send([
    { type: 'track', userId: 'alice', event: 'Order Completed' },
    { type: 'identify', userId: 'bob', traits: { plan: 'pro' } },
    { type: 'track', userId: 'carol', event: 'Signed Up' },
    { type: 'page', anonymousId: 'anon-dave', name: 'Pricing' },
  ]);
  await rows(p).filter({ has: p.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) }).nth(3).waitFor({ timeout: 15_000 });
  await waitForCounts(p, 4, 4);
  assert.equal(await p.getByTestId('deliveries-count').textContent(), '4 deliveries');
  assert.equal(await p.getByTestId('hidden-count').count(), 0, 'no filter, nothing hidden');
  const alice = rowsOf(p, 'alice');
  assert.equal(await alice.getByTestId('delivery-entries').textContent(), '1');
  assert.equal(await alice.getByTestId('delivery-http').textContent(), '200');
  // Milliseconds on a quiet machine; a loaded one has shown "1.18 s" for the first attempt.
  assert.match((await alice.getByTestId('delivery-latency').textContent()) ?? '', /^\d+(\.\d+)? (ms|s)$/);

  await p.getByTestId('filter-type').selectOption('track');
  await waitForUsers(p, ['alice', 'carol']);
  await waitForCounts(p, 4, 2);
  assert.equal(await p.getByTestId('hidden-count').textContent(), '2 hidden by the filter');
  assert.equal(await p.getByTestId('deliveries-count').textContent(), '2 of 4 deliveries');

  await p.getByTestId('filter-text').fill('ALI');
  await waitForUsers(p, ['alice']);
  await waitForCounts(p, 4, 1);
  assert.equal(await p.getByTestId('hidden-count').getAttribute('data-hidden'), '3');

  await p.getByTestId('filter-type').selectOption('');
  await p.getByTestId('filter-text').fill('dave');
  await waitForUsers(p, ['anon-dave']);

  await p.getByTestId('filter-text').fill('');
  await p.getByTestId('filter-url').fill(new URL(receiver.url).pathname);
  await waitForUsers(p, ['alice', 'anon-dave', 'bob', 'carol']);
  await waitForCounts(p, 4, 4);
  await p.getByTestId('filter-url').fill('no-such-host');
  await p.getByTestId('no-match').waitFor();

  await p.getByTestId('filter-url').fill('');
  await p.getByTestId('filter-status-failed').click();
  await p.getByTestId('no-match').waitFor();
  await waitForCounts(p, 4, 0);
  assert.match((await p.getByTestId('no-match').textContent()) ?? '', /All 4 deliveries are hidden by it/);
  await p.getByTestId('filter-status-succeeded').click();
  await waitForUsers(p, ['alice', 'anon-dave', 'bob', 'carol']);
  assert.equal(await p.getByTestId('filter-status-succeeded').getAttribute('aria-pressed'), 'true');

  await p.getByTestId('filter-status-succeeded').click();
  await p.getByTestId('clear-filters').click();
  await waitForUsers(p, ['alice', 'anon-dave', 'bob', 'carol']);
  assert.equal(await p.getByTestId('filter-status-failed').getAttribute('aria-pressed'), 'false');
  assert.deepEqual(await wb.call('countDeliveries', {}), { total: 4, matching: 4 });
});

test('pause holds new rows and counts them; show and unpause put them in the list', async () => {
  assert.ok(page);
  const p = page;
  // The switch is "Live": checked while live, unchecked while paused.
  assert.equal(await p.getByTestId('live-pause').getAttribute('aria-checked'), 'true');
  await p.getByTestId('live-pause').click();
  assert.equal(await p.getByTestId('live-pause').getAttribute('aria-checked'), 'false');
  await send([1, 2, 3].map((n) => ({ type: 'track', userId: `paused-${n}`, event: 'While Paused' })));
  await p.locator('[data-testid="new-while-paused"][data-count="3"]').waitFor({ timeout: 15_000 });
  assert.equal(await p.getByTestId('new-while-paused').textContent(), '3 new — show');
  assert.equal(await rowsOf(p, 'paused-').count(), 0, 'nothing inserted while paused');
  await waitForCounts(p, 7, 7);

  await p.getByTestId('new-while-paused').click();
  await waitForUsers(p, ['alice', 'anon-dave', 'bob', 'carol', 'paused-1', 'paused-2', 'paused-3']);
  assert.equal(await p.getByTestId('live-pause').getAttribute('aria-checked'), 'false', 'show leaves the switch paused');

  await send([{ type: 'track', userId: 'paused-4', event: 'While Paused' }]);
  await p.locator('[data-testid="new-while-paused"][data-count="1"]').waitFor({ timeout: 15_000 });
  await p.getByTestId('live-pause').click();
  await rowsOf(p, 'paused-4').waitFor();
  assert.equal(await p.getByTestId('new-while-paused').count(), 0);
  // Rows keep updating once shown: the held ones reach succeeded.
  await rowsOf(p, 'paused-4').filter({ has: p.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) }).waitFor({ timeout: 15_000 });
});

test('j/k move the cursor, Enter opens the detail, r replays, / goes to the search box; keys typed in a box do nothing', async () => {
  assert.ok(page && receiver);
  const p = page;
  await p.locator('body').click({ position: { x: 5, y: 5 } });
  const cursorId = async (): Promise<string | null> => p.locator('[data-testid="delivery-row"][data-cursor="true"]').getAttribute('data-id');
  const ids = await rows(p).evaluateAll((els) => els.map((e) => e.getAttribute('data-id')));
  await p.keyboard.press('j');
  assert.equal(await cursorId(), ids[0]);
  await p.keyboard.press('j');
  await p.keyboard.press('j');
  assert.equal(await cursorId(), ids[2]);
  await p.keyboard.press('k');
  assert.equal(await cursorId(), ids[1]);
  // The arrow keys do the same as j and k.
  await p.keyboard.press('ArrowDown');
  assert.equal(await cursorId(), ids[2]);
  await p.keyboard.press('ArrowUp');
  assert.equal(await cursorId(), ids[1]);
  assert.equal(await p.getByTestId('delivery-detail').count(), 0, 'moving does not open the detail');

  await p.keyboard.press('Enter');
  await p.getByTestId('delivery-detail').getByRole('heading', { name: `Delivery #${ids[1]}` }).waitFor();

  await p.keyboard.press('/');
  assert.equal(await p.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'filter-text');
  await p.keyboard.type('jj');
  await p.getByTestId('filter-text').fill('');
  // The box filters the list as it is typed into, so the cursor's row may be gone for a moment
  // (a locator waiting for it then times out); once the list is whole again the cursor must be
  // where it was: two j's taken as shortcuts would have moved it two rows down for good.
  await p.waitForFunction(
    (id) => document.querySelector('[data-testid="delivery-row"][data-cursor="true"]')?.getAttribute('data-id') === id,
    ids[1] ?? null,
    { timeout: 10_000 },
  );
  await p.locator('body').click({ position: { x: 5, y: 5 } });

  const before = receiver.received.length;
  await p.keyboard.press('r');
  const replayRow = rows(p).filter({ has: p.locator(`[data-testid="delivery-replay-of"][data-of="${ids[1]}"]`) });
  await replayRow.filter({ has: p.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) }).waitFor({ timeout: 15_000 });
  assert.ok(receiver.received.length > before, 'the replay reached the receiver');
  const replayId = await replayRow.getAttribute('data-id');
  await p.getByTestId('delivery-detail').getByRole('heading', { name: `Delivery #${replayId}` }).waitFor();
  assert.equal(await cursorId(), replayId, 'the cursor follows the replay the key made');
  await p.keyboard.press('Escape');
  await p.getByTestId('delivery-detail').waitFor({ state: 'detached' });

  // ? lists the shortcuts; Esc closes the list only.
  await p.keyboard.press('?');
  const help = p.getByTestId('shortcuts');
  await help.waitFor();
  assert.match((await help.textContent()) ?? '', /j \/ ↓next delivery/);
  await p.screenshot({ path: screenshotPath('shortcuts') });
  await p.keyboard.press('Escape');
  await help.waitFor({ state: 'detached' });
  // A status says what it means on hover.
  assert.match((await rows(p).first().getByTestId('delivery-status').getAttribute('title')) ?? '', /^(Succeeded|Retrying|Pending|In flight|Failed|Discarded): /);
});

test('a receiver answering 500 fails the deliveries; once fixed, "Replay failed in this filter" replays each with progress, and they succeed', async () => {
  assert.ok(page && receiver && wb);
  const p = page;
  receiver.respond(status(500, {}, 'receiver is broken'));
  await send([1, 2, 3].map((n) => ({ type: 'track', userId: `bulk-${n}`, event: 'Checkout Started' })));
  await send([{ type: 'track', userId: 'other-4', event: 'Checkout Started' }]);

  await p.getByTestId('filter-text').fill('bulk-');
  await waitForUsers(p, ['bulk-1', 'bulk-2', 'bulk-3']);
  // Retrying with the next attempt time, then failed once the 2 s window is over.
  await p.getByTestId('delivery-next').first().waitFor({ timeout: 15_000 });
  await p.getByTestId('filter-status-failed').click();
  const failed = rows(p).filter({ has: p.getByTestId('delivery-status').filter({ hasText: 'failed' }) });
  await failed.nth(2).waitFor({ timeout: 20_000 });
  await waitForUsers(p, ['bulk-1', 'bulk-2', 'bulk-3']);
  const totalBefore = (await wb.call('countDeliveries', {})).total;
  await waitForCounts(p, totalBefore, 3);
  assert.equal(await p.getByTestId('hidden-count').getAttribute('data-hidden'), String(totalBefore - 3));
  assert.ok(Number(await rowsOf(p, 'bulk-1').getByTestId('delivery-rounds').textContent()) >= 2, 'retried before failing');
  assert.equal(await rowsOf(p, 'bulk-1').getByTestId('delivery-http').textContent(), '500');
  await p.screenshot({ path: screenshotPath('watch-failed') });

  receiver.respond(status(200));
  const before = receiver.received.length;
  await p.getByTestId('replay-failed').click();
  await p.locator('[data-testid="bulk-confirm"][data-state="asking"][data-count="3"]').waitFor();
  await p.getByTestId('bulk-confirm-yes').click();
  await p.locator('[data-testid="bulk-progress"][data-done="3"][data-total="3"]').waitFor({ timeout: 15_000 });
  await p.locator('[data-testid="bulk-summary"][data-state="finished"]').waitFor();
  assert.equal(await p.getByTestId('bulk-summary').textContent(), 'Replayed 3, failed 0.');

  // The replays are not failed, so the filter hides them; with the status chip off they show, succeeded.
  await p.getByTestId('filter-status-failed').click();
  const replays = rows(p).filter({ has: p.getByTestId('delivery-replay-of') });
  await replays.filter({ has: p.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) }).nth(2).waitFor({ timeout: 15_000 });
  assert.equal(await replays.count(), 3);
  const replayedUsers = (await replays.getByTestId('delivery-user').allTextContents()).sort();
  assert.deepEqual(replayedUsers, ['bulk-1', 'bulk-2', 'bulk-3'], 'other-4 was outside the filter and was not replayed');
  assert.equal(receiver.received.length - before, 3);
  const all = await wb.call('countDeliveries', {});
  assert.equal(all.total, totalBefore + 3);
  assert.equal((await wb.call('countDeliveries', { status: 'failed', text: 'other' })).matching, 1, 'the one outside the filter stays failed');

  await p.getByTestId('filter-text').fill('');
  await waitForCounts(p, all.total, all.total);
  await rows(p).first().click();
  await p.getByTestId('delivery-detail').waitFor();
  await p.screenshot({ path: screenshotPath('watch') });
  await p.emulateMedia({ colorScheme: 'dark' });
  await p.screenshot({ path: screenshotPath('watch-dark') });
  await p.emulateMedia({ colorScheme: 'light' });
  assert.ok((await userCells(p)).includes('other-4'));
  assert.deepEqual(problems, []);
});
