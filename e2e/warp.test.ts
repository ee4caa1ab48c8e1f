/**
 * Time-warp, retry now and replays a person can trust, in a real Chromium against a real
 * `hookbench serve` and real receivers that fail: the warp switched on in Configure, a warped
 * delivery watched through its whole retry life in seconds, Retry now on a receiver that asks for
 * ten minutes of quiet, and the bulk replay that asks first and never replays an original twice
 * unless asked.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { Receiver, status } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type OpenedPage, type Workbench } from './support/workbench';

const KEYS = { warped: 'wk_warped', waiting: 'wk_waiting', broken: 'wk_broken' } as const;

let wb: Workbench | null = null;
const receivers = { failing: new Receiver(), patient: new Receiver(), broken: new Receiver(), local: new Receiver() };

before(async () => {
  await receivers.failing.start('/failing');
  await receivers.patient.start('/patient');
  await receivers.broken.start('/broken');
  await receivers.local.start('/local');
  receivers.failing.respond(status(500, { 'content-type': 'text/plain' }, 'down for maintenance'));
  // Asks for ten minutes of quiet after each failure: only Retry now brings the next round sooner.
  receivers.patient.respond(status(503, { 'retry-after': '600' }));
  receivers.broken.respond(status(404));
  const destination = (name: string, source: keyof typeof KEYS, url: string) => ({ name, enabled: true, sources: [source], sharedSecret: 'warp-e2e', webhooks: [{ url }] });
  wb = await startWorkbench({
    name: 'warp',
    config: {
      sources: Object.entries(KEYS).map(([name, writeKey]) => ({ name, writeKey })),
      destinations: [
        destination('Failing receiver', 'warped', receivers.failing.url),
        destination('Patient receiver', 'waiting', receivers.patient.url),
        destination('Broken receiver', 'broken', receivers.broken.url),
      ],
      // The real schedule: the standard preset's 4-hour window, which only the warp makes watchable.
      delivery: { preset: 'standard' },
    },
  });
});

after(async () => {
  await wb?.close();
  await Promise.all(Object.values(receivers).map((r) => r.close()));
});

async function track(source: keyof typeof KEYS, userId: string, event: string): Promise<void> {
  assert.ok(wb);
  const res = await wb.ingest('/v1/track', KEYS[source], { userId, event });
  assert.equal(res.status, 200);
}

function openPage(view?: string): Promise<OpenedPage> {
  assert.ok(wb);
  return wb.openPage({ viewport: { width: 1400, height: 1700 }, ...(view ? { view } : {}) });
}

function rowOf(page: Page, userId: string): Locator {
  return page.getByTestId('delivery-row').filter({ has: page.getByTestId('delivery-user').filter({ hasText: userId }) });
}

async function openDelivery(page: Page, userId: string): Promise<Locator> {
  const row = rowOf(page, userId).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
  const detail = page.getByTestId('delivery-detail');
  await detail.getByTestId('next-step').waitFor();
  return detail;
}

/** Edits a destination in Configure: `change` works on the open form, then it is saved. */
async function editDestination(page: Page, name: string, change: () => Promise<void>): Promise<void> {
  await page.goto(`${wb!.url}/?token=${wb!.token}#/configure`);
  const row = page.locator(`[data-testid="destination-row"][data-name="${name}"]`);
  await row.getByTestId('destination-edit').click();
  await change();
  await page.getByTestId('destination-save').click();
  await page.getByTestId('destination-saved').waitFor();
}

test('time-warp: switched on in Configure, a failing delivery runs its 4-hour life in seconds, marked warped everywhere', async () => {
  const { page, problems } = await openPage('configure');

  // The switch covers deliveries created while it is on, at ×240 unless another speed is chosen.
  await editDestination(page, 'Failing receiver', async () => {
    assert.equal(await page.getByTestId('destination-warp').isChecked(), false);
    await page.getByTestId('destination-warp').check();
    assert.equal(await page.getByTestId('destination-warp-factor').inputValue(), '240');
  });
  const configRow = page.locator('[data-testid="destination-row"][data-name="Failing receiver"]');
  assert.equal(await configRow.getByTestId('destination-row-warp').textContent(), 'warp ×240');
  assert.equal((await wb!.call('listDestinations')).find((d) => d.name === 'Failing receiver')?.warp, 240);

  // A delivery made now is warped ×240: the whole schedule, with the window's end one minute out.
  await track('warped', 'user_minute', 'Warped For A Minute');
  await page.goto(`${wb!.url}/?token=${wb!.token}#/deliveries`);
  const detail = await openDelivery(page, 'user_minute');
  assert.equal(await rowOf(page, 'user_minute').getByTestId('delivery-warp').textContent(), 'warped ×240');
  assert.match((await detail.getByTestId('detail-warp').textContent()) ?? '', /^warped ×240: times are compressed\./);
  const schedule = detail.getByTestId('schedule');
  await schedule.locator('[data-testid="schedule-row"][data-state="planned"]').first().waitFor();
  const endRow = schedule.locator('[data-testid="schedule-row"][data-state="window_end"]');
  assert.match((await endRow.textContent()) ?? '', /\+1 min= \+4 hwindow ends/);
  assert.match((await schedule.getByTestId('schedule-summary').textContent()) ?? '', /the 4 h retry window, warped ×240 to 1 min\.$/);
  await page.screenshot({ path: screenshotPath('warp-schedule'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('warp-schedule-dark'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });

  // Faster still (×3600: the 4-hour window in 4 s), to watch one life to its end in this test.
  await editDestination(page, 'Failing receiver', async () => {
    await page.getByTestId('destination-warp-factor').selectOption('3600');
  });
  await track('warped', 'user_seconds', 'Warped For Seconds');
  await page.goto(`${wb!.url}/?token=${wb!.token}#/deliveries`);
  await rowOf(page, 'user_seconds').waitFor({ timeout: 15_000 });
  assert.equal(await rowOf(page, 'user_seconds').getByTestId('delivery-warp').textContent(), 'warped ×3600');
  assert.equal(await rowOf(page, 'user_minute').getByTestId('delivery-warp').textContent(), 'warped ×240', 'a delivery keeps the warp it was made with');

  const started = Date.now();
  const ended = await openDelivery(page, 'user_seconds');
  // Its rounds go by in the detail as they happen, until the compressed window is over.
  await ended.locator('[data-testid="detail-status"]', { hasText: 'failed' }).waitFor({ timeout: 30_000 });
  const tookMs = Date.now() - started;
  assert.ok(tookMs < 20_000, `the 4-hour life ended in ${tookMs} ms`);
  assert.match((await ended.getByTestId('next-step').textContent()) ?? '', /^retries stopped: the 4 h retry window \(warped ×3600: 4 s of real time\)/);
  const rounds = await ended.locator('[data-testid="schedule-row"][data-state="sent"]').count();
  // A real life without jitter has 33 rounds; time on the wire counts ×3600 on a warped schedule, so
  // a busy machine loses some of the last ones (the engine test pins the exact count on its clock).
  assert.ok(rounds >= 15, `many rounds of a 4-hour life in seconds: ${rounds}`);
  assert.equal(await ended.locator('[data-testid="schedule-row"][data-state="planned"]').count(), 0, 'nothing is planned once it is over');
  assert.equal(receivers.failing.received.filter((r) => r.body.includes('user_seconds')).length, rounds, 'every round reached the receiver');
  await page.screenshot({ path: screenshotPath('warp-ended'), fullPage: true });

  // Off again: new deliveries are real, and carry no mark.
  await editDestination(page, 'Failing receiver', async () => {
    await page.getByTestId('destination-warp').uncheck();
  });
  assert.equal(await configRow.getByTestId('destination-row-warp').count(), 0);
  await track('warped', 'user_real', 'Real Time Again');
  await page.goto(`${wb!.url}/?token=${wb!.token}#/deliveries`);
  await rowOf(page, 'user_real').waitFor({ timeout: 15_000 });
  assert.equal(await rowOf(page, 'user_real').getByTestId('delivery-warp').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('retry now: a delivery told to wait ten minutes goes at once, from the button and the n key; the schedule goes on from there', async () => {
  const { page, problems } = await openPage();
  await track('waiting', 'user_patient', 'Waiting Game');
  const detail = await openDelivery(page, 'user_patient');
  // The wait is read when the detail is, so a slow machine may show "in 9 min 59 s".
  const tenMinutes = String.raw`\(in (10 min|9 min \d+ s)\)`;
  await detail.getByTestId('next-step').filter({ hasText: new RegExp(`^next attempt at .* ${tenMinutes}, round 2`) }).waitFor({ timeout: 15_000 });
  assert.equal(receivers.patient.received.length, 1);

  await detail.getByTestId('retry-now').click();
  await receivers.patient.waitFor(2);
  // Round 2 failed the same way, so the policy set the next one ten minutes out again.
  await detail.getByTestId('next-step').filter({ hasText: new RegExp(`${tenMinutes}, round 3`) }).waitFor({ timeout: 15_000 });
  const sent = detail.locator('[data-testid="schedule-row"][data-state="sent"]');
  assert.deepEqual(await sent.getByTestId('schedule-outcome').allTextContents(), ['503', '503']);

  // The receiver is fixed; the key does what the button does.
  receivers.patient.respond(status(200));
  await page.locator('body').press('n');
  await detail.locator('[data-testid="detail-status"]', { hasText: 'succeeded' }).waitFor({ timeout: 15_000 });
  assert.deepEqual(await sent.getByTestId('schedule-outcome').allTextContents(), ['503', '503', '200']);
  assert.equal(await detail.getByTestId('retry-now').count(), 0, 'nothing waits any more');
  assert.equal(receivers.patient.received.length, 3);
  assert.deepEqual(problems, []);
  await page.close();
});

test('bulk replay asks with the count, marks the originals with links, and replays none twice unless asked; replay to a URL typed without http://', async () => {
  const { page, problems } = await openPage();
  for (const n of [1, 2, 3]) await track('broken', `user_rep${n}`, 'Order Completed');
  await page.getByTestId('filter-text').fill('user_rep');
  await page.locator('[data-testid="deliveries-count"][data-matching="3"]').waitFor();
  for (const n of [1, 2, 3]) await rowOf(page, `user_rep${n}`).getByTestId('delivery-status').filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 });
  receivers.broken.respond(status(200));

  // Asked first, with the count; nothing goes before the answer.
  await page.getByTestId('replay-failed').click();
  const confirm = page.locator('[data-testid="bulk-confirm"][data-state="asking"]');
  await confirm.waitFor();
  assert.equal(await confirm.getByTestId('bulk-confirm-question').textContent(), 'Replay 3 failed deliveries in this filter, as they were?');
  assert.equal(await confirm.getByTestId('bulk-include-replayed').count(), 0, 'nothing was replayed before');
  assert.equal(receivers.broken.received.length, 3);
  await confirm.getByTestId('bulk-confirm-yes').click();
  const summary = page.locator('[data-testid="bulk-summary"][data-state="finished"]');
  await summary.waitFor({ timeout: 15_000 });
  assert.equal(await summary.getAttribute('data-replayed'), '3');
  await receivers.broken.waitFor(6);

  // Each original is marked in the list with a link to its replay, and the replay links back.
  const original = rowOf(page, 'user_rep1').filter({ has: page.getByTestId('delivery-replayed') });
  await original.waitFor({ timeout: 15_000 });
  const replayId = await original.getByTestId('delivery-replayed').getAttribute('data-id');
  const originalId = await original.getAttribute('data-id');
  await original.getByTestId('delivery-replayed').click();
  const detail = page.getByTestId('delivery-detail');
  await page.locator('[data-testid="delivery-detail"] h2', { hasText: `Delivery #${replayId}` }).waitFor();
  assert.equal(await detail.getByTestId('replay-of').textContent(), `#${originalId}`);
  await detail.getByTestId('replay-of').click();
  await detail.getByTestId('replayed-as').waitFor();
  assert.deepEqual(await detail.getByTestId('replayed-as-link').evaluateAll((els) => els.map((e) => e.getAttribute('data-id'))), [replayId]);
  await page.screenshot({ path: screenshotPath('warp-replayed'), fullPage: true });

  // Again: every failed one was replayed already, so nothing goes unless asked.
  await page.getByTestId('bulk-summary').locator('..').getByRole('button', { name: /dismiss/i }).click();
  await page.getByTestId('replay-failed').click();
  await confirm.waitFor();
  assert.equal(await confirm.getByTestId('bulk-confirm-question').textContent(), 'Every failed delivery in this filter was replayed already (3).');
  assert.equal(await confirm.getByTestId('bulk-confirm-yes').isDisabled(), true);
  await page.screenshot({ path: screenshotPath('warp-bulk-confirm'), fullPage: true });
  await confirm.getByTestId('bulk-include-replayed').check();
  assert.equal(await confirm.getByTestId('bulk-confirm-question').textContent(), 'Replay 3 failed deliveries in this filter, as they were?');
  await confirm.getByTestId('bulk-confirm-yes').click();
  await summary.waitFor({ timeout: 15_000 });
  await receivers.broken.waitFor(9);

  // Replay to URL: an example as placeholder, not a value; a bare host:port gets http://.
  await detail.getByTestId('replay-url').click();
  const field = detail.getByTestId('replay-target');
  assert.equal(await field.inputValue(), '');
  assert.equal(await field.getAttribute('placeholder'), 'http://localhost:9204/hook');
  assert.equal(await detail.getByTestId('replay-url-send').isDisabled(), true);
  await field.fill('ftp://files.test/hook');
  assert.equal(await detail.getByTestId('replay-target-error').textContent(), 'Replay to URL must use http or https, not ftp');
  const bare = receivers.local.url.replace(/^http:\/\//, '');
  await field.fill(bare);
  assert.equal(await detail.getByTestId('replay-target-resolved').textContent(), `Sends to http://${bare}`);
  await detail.getByTestId('replay-url-send').click();
  await receivers.local.waitFor(1);
  assert.equal(receivers.local.received[0]?.url, '/local');
  assert.deepEqual(problems, []);
  await page.close();
});
