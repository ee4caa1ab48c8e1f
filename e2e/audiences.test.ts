/**
 * One audience round trip and one deletion, done in the UI against a real `hookbench serve` and
 * real receivers: define "High Value Pro" (performed Order Completed at least twice in 30 days and
 * plan = pro) in space "backend", preview its two members, save, and watch the receiver get one
 * signed identify per member with context.personas; change the data, "Sync now", and watch exactly
 * one `false` and one `true` arrive. Then request a deletion with purge: one signed delete notice
 * for the one source whose destination is enabled, none for the disabled one, and the request
 * reaches forwarded and purged.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { Receiver, type Received } from '../src-main/engine/testing/receiver';
import { waitUntil } from '../src-main/engine/testing/wait';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const SECRET = 'personas-secret';
const BACKEND_KEY = 'wk_backend';
const OTHER_KEY = 'wk_other';
const KEY = 'high_value_pro';

let receiver: Receiver | null = null;
/** Behind the disabled destination of source "other": must get nothing. */
let disabled: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start('/backend');
  disabled = await new Receiver().start('/other');
  wb = await startWorkbench({
    name: 'personas',
    config: {
      sources: [
        { name: 'backend', writeKey: BACKEND_KEY },
        { name: 'other', writeKey: OTHER_KEY },
      ],
      destinations: [
        { name: 'Local receiver', enabled: true, sources: ['backend'], sharedSecret: SECRET, webhooks: [{ url: receiver.url }] },
        { name: 'Switched off', enabled: false, sources: ['other'], sharedSecret: SECRET, webhooks: [{ url: disabled.url }] },
      ],
    },
  });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
  await disabled?.close();
});

type Payload = Record<string, unknown> & { traits?: Record<string, unknown>; context?: Record<string, unknown> };
const payloadOf = (r: Received): Payload => JSON.parse(r.body.toString('utf8')) as Payload;

/** The identify calls the audience caused, in arrival order. */
function audienceCalls(r: Receiver): { received: Received; payload: Payload }[] {
  return r.received.map((received) => ({ received, payload: payloadOf(received) })).filter(({ payload }) => payload.type === 'identify' && payload.traits !== undefined && KEY in payload.traits);
}

function assertSigned(r: Received): void {
  assert.equal(r.headers['x-signature'], createHmac('sha1', SECRET).update(r.body).digest('hex'), 'X-Signature is the HMAC-SHA1 of the body');
  assert.equal(r.headers['user-agent'], 'Segment.io/1.0');
}

async function ingestBackend(batch: Record<string, unknown>[]): Promise<void> {
  assert.ok(wb);
  const res = await wb.ingest('/v1/batch', BACKEND_KEY, { batch });
  assert.equal(res.status, 200, await res.text());
}

const order = (userId: string): Record<string, unknown> => ({ type: 'track', userId, event: 'Order Completed', properties: { total: 120 } });
const plan = (userId: string, value: string): Record<string, unknown> => ({ type: 'identify', userId, traits: { plan: value, email: `${userId}@example.com` } });

async function fillAudience(page: Page): Promise<void> {
  await page.getByTestId('audience-new').click();
  await page.getByTestId('computation-name').fill('High Value Pro');
  assert.equal(await page.getByTestId('computation-key-preview').textContent(), KEY, 'the key is shown while typing');
  await page.getByTestId('computation-space').selectOption('backend');
  await page.getByTestId('condition-kind-0').selectOption('event');
  await page.getByTestId('condition-event-0').fill('Order Completed');
  await page.getByTestId('condition-atleast-0').fill('2');
  await page.getByTestId('condition-days-0').fill('30');
  await page.getByTestId('condition-add').click();
  await page.getByTestId('condition-kind-1').selectOption('trait');
  await page.getByTestId('condition-trait-1').fill('plan');
  await page.getByTestId('condition-op-1').selectOption('equals');
  await page.getByTestId('condition-value-1').fill('pro');
  await page.getByTestId('condition-combine').selectOption('and');
}

test('an audience in the UI: preview, save (every member sent), sync now (only the changes, both ways), then a deletion with purge', async () => {
  assert.ok(wb && receiver && disabled);
  const api = wb;

  // ada and bob qualify (pro, two orders); cyd is pro with one order. ada also has data in "other".
  await ingestBackend([plan('ada', 'pro'), plan('bob', 'pro'), plan('cyd', 'pro'), order('ada'), order('ada'), order('bob'), order('bob'), order('cyd')]);
  const other = await wb.ingest('/v1/batch', OTHER_KEY, { batch: [{ type: 'track', userId: 'ada', event: 'Signed In' }] });
  assert.equal(other.status, 200);
  // The ingest's own deliveries (8 identify/track calls of backend) arrive first; none is an audience call.
  await receiver.waitFor(8);

  const { page, problems } = await wb.openPage({ view: 'audiences', viewport: { width: 1500, height: 1100 } });
  await page.getByTestId('computations-empty').waitFor();

  // Profiles panel: the three users of backend (and ada's event in other).
  await page.getByTestId('profile-search').fill('ada');
  await page.locator('[data-testid="profile-row"][data-profile="ada"]').click();
  const profile = page.getByTestId('profile-detail');
  await profile.locator('[data-event="Order Completed"] [data-testid="profile-event-count"]').filter({ hasText: '2' }).waitFor();
  await profile.locator('[data-trait="plan"]').filter({ hasText: '"pro"' }).waitFor();
  await page.getByTestId('profiles-panel').screenshot({ path: screenshotPath('audiences-profile') });
  await page.getByTestId('profile-close').click();
  await page.getByTestId('profile-search').fill('');

  // Define, preview, save.
  await fillAudience(page);
  await page.getByTestId('computation-preview').click();
  await page.getByTestId('preview-total').filter({ hasText: /^2$/ }).waitFor();
  assert.deepEqual(await page.getByTestId('preview-member').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-profile'))), ['ada', 'bob']);
  assert.match((await page.getByTestId('computation-save').textContent()) ?? '', /send identify to every member/);
  await page.screenshot({ path: screenshotPath('audiences-define'), fullPage: true });
  await page.getByTestId('computation-save').click();
  await page.locator(`[data-testid="computation-saved"][data-key="${KEY}"]`).waitFor();

  // The receiver gets one identify per member, signed, with the audience's trait and context.personas.
  await waitUntil(() => audienceCalls(receiver!).length >= 2, 'two audience identify calls', 15_000);
  const computation = (await api.call('listComputations')).find((c) => c.name === 'High Value Pro');
  assert.ok(computation);
  assert.equal(computation.key, KEY);
  const initial = audienceCalls(receiver);
  assert.deepEqual(initial.map((c) => c.payload.userId).sort(), ['ada', 'bob']);
  for (const { received, payload } of initial) {
    assertSigned(received);
    assert.deepEqual(payload.traits, { [KEY]: true });
    const personas = payload.context?.personas as Record<string, unknown> | undefined;
    assert.ok(personas, 'context.personas is present');
    assert.equal(personas.computation_class, 'audience');
    assert.equal(personas.computation_key, KEY);
    assert.equal(String(personas.computation_id), String(computation.id));
    assert.ok(personas.namespace, 'a namespace');
    assert.ok(personas.space_id, 'a space_id');
  }
  const row = page.locator(`[data-testid="computation-row"][data-key="${KEY}"]`);
  await row.getByTestId('computation-size').filter({ hasText: '2 members' }).waitFor();
  const first = page.locator('[data-testid="sync-row"][data-kind="initial"]');
  await first.getByTestId('sync-entered').filter({ hasText: /^2$/ }).waitFor();
  assert.equal(await first.getByTestId('sync-exited').textContent(), '0');
  assert.equal(await first.getByTestId('sync-delivery-link').count(), 2);
  await first.locator('[data-testid="sync-delivery-link"][data-status="succeeded"]').nth(1).waitFor({ timeout: 15_000 });

  // A sync's delivery link opens that delivery in the Deliveries view.
  const linkId = await first.getByTestId('sync-delivery-link').first().getAttribute('data-id');
  await first.getByTestId('sync-delivery-link').first().click();
  await page.getByTestId('delivery-detail').getByRole('heading', { name: `Delivery #${linkId}`, exact: true }).waitFor();
  await page.getByTestId('nav-audiences').click();
  await first.waitFor();

  // bob leaves (plan free), cyd enters (a second order); Sync now sends exactly those two.
  await ingestBackend([plan('bob', 'free'), order('cyd')]);
  await receiver.waitFor(8 + 2 + 2);
  await page.getByTestId('computation-sync').click();
  const second = page.locator('[data-testid="sync-row"][data-kind="incremental"]');
  await second.getByTestId('sync-entered').filter({ hasText: /^1$/ }).waitFor();
  assert.equal(await second.getByTestId('sync-exited').textContent(), '1');
  await waitUntil(() => audienceCalls(receiver!).length >= 4, 'the incremental sync\'s two identify calls', 15_000);
  const changes = audienceCalls(receiver).slice(2);
  assert.deepEqual(
    changes.map((c) => [c.payload.userId, c.payload.traits?.[KEY]]).sort(),
    [
      ['bob', false],
      ['cyd', true],
    ],
  );
  for (const { received } of changes) assertSigned(received);
  await row.getByTestId('computation-size').filter({ hasText: '2 members' }).waitFor();
  await second.locator('[data-testid="sync-delivery-link"][data-status="succeeded"]').nth(1).waitFor({ timeout: 15_000 });
  await page.screenshot({ path: screenshotPath('audiences'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath('audiences-dark'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });

  // Deletions: ada, with purge. ada has data in backend and other; only backend's destination is enabled.
  const before = receiver.received.length;
  await page.getByTestId('nav-deletions').click();
  await page.getByTestId('deletions-empty').waitFor();
  await page.getByTestId('deletion-user').fill('ada');
  await page.getByTestId('deletion-purge').check();
  // What the purge removes, said as the engine does it: the deliveries made from the user's messages go too.
  const hint = (await page.getByTestId('deletion-purge-hint').textContent()) ?? '';
  assert.match(hint, /the deliveries made from them \(with their attempts\)/);
  assert.doesNotMatch(hint, /stay in the log/);
  await page.getByTestId('deletion-submit').click();
  await page.getByTestId('deletion-submit-confirm').click();
  const request = page.locator('[data-testid="deletion-row"][data-user="ada"]');
  await page.locator('[data-testid="deletion-row"][data-user="ada"][data-status="forwarded"]').waitFor({ timeout: 15_000 });
  await request.locator('[data-testid="deletion-purged"][data-state="purged"]').waitFor({ timeout: 15_000 });
  assert.equal(await request.getByTestId('deletion-status').textContent(), 'forwarded');
  assert.deepEqual((await request.getByTestId('deletion-sources').textContent())?.split(', ').sort(), ['backend', 'other']);
  assert.equal(await request.getByTestId('deletion-notice').count(), 1, 'one notice: only backend has the destination enabled');
  assert.equal(await request.getByTestId('deletion-notice').getAttribute('data-source'), 'backend');
  assert.equal(await request.getByTestId('deletion-notice').getAttribute('data-status'), 'succeeded');

  const notices = receiver.received.slice(before).filter((r) => payloadOf(r).type === 'delete');
  assert.equal(notices.length, 1, 'exactly one delete notice');
  const notice = notices[0]!;
  assertSigned(notice);
  const body = payloadOf(notice);
  assert.deepEqual(Object.keys(body).sort(), ['timestamp', 'type', 'userId']);
  assert.equal(body.userId, 'ada');
  assert.match(String(body.timestamp), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.equal(disabled.received.length, 0, 'nothing reaches the disabled destination');
  assert.equal(await api.call('getProfile', 'ada'), null, 'the purge left no profile');

  // The notice's link opens its delivery.
  const noticeId = await request.getByTestId('deletion-notice-link').getAttribute('data-id');
  await page.screenshot({ path: screenshotPath('deletions'), fullPage: true });
  await request.getByTestId('deletion-notice-link').click();
  await page.getByTestId('delivery-detail').getByRole('heading', { name: `Delivery #${noticeId}`, exact: true }).waitFor();

  assert.equal(audienceCalls(receiver).length, 4, 'no audience call beyond the two syncs');
  assert.deepEqual(problems, []);
  await page.close();
});

test('refusals land by field, ours before sending and the engine\'s after; a computed trait sends each profile\'s value', async () => {
  assert.ok(wb && receiver);
  // The engine's refusal is an HTTP 400 of the control API, which the browser logs.
  const { page, problems } = await wb.openPage({ view: 'audiences', viewport: { width: 1500, height: 1100 }, expectedConsole: /status of 400 \(Bad Request\)/ });
  await page.locator('[data-testid="computation-row"]').first().waitFor();

  // Ours: an event row without its event is refused before anything is sent.
  await page.getByTestId('audience-new').click();
  await page.getByTestId('computation-name').fill('!!!');
  assert.equal(await page.getByTestId('computation-key-preview').textContent(), '…', 'no key can be made from "!!!"');
  await page.getByTestId('computation-save').click();
  await page.locator('[data-testid="field-error"][data-field="condition.event"]').waitFor();
  // The engine's: a name with no letter or digit makes no key.
  await page.getByTestId('condition-event-0').fill('Order Completed');
  await page.getByTestId('computation-save').click();
  await page.locator('[data-testid="field-error"][data-field="audience.name"]').waitFor();
  assert.equal(await page.locator('[data-testid="computation-row"][data-name="!!!"]').count(), 0, 'nothing saved');

  // A computed trait: how many orders in the last 30 days (ada was deleted: bob and cyd have two each).
  const before = receiver.received.length;
  await page.getByTestId('trait-new').click();
  await page.getByTestId('computation-name').fill('Orders 30d');
  await page.getByTestId('computation-space').selectOption('backend');
  await page.getByTestId('trait-rule-kind').selectOption('event_count');
  await page.getByTestId('trait-event').fill('Order Completed');
  await page.getByTestId('trait-days').fill('30');
  await page.getByTestId('computation-interval').fill('60');
  await page.getByTestId('computation-preview').click();
  await page.getByTestId('preview-total').filter({ hasText: /^2$/ }).waitFor();
  await page.getByTestId('computation-editor').screenshot({ path: screenshotPath('audiences-trait') });
  await page.getByTestId('computation-save').click();
  await page.locator('[data-testid="computation-saved"][data-key="orders_30d"]').waitFor();
  const row = page.locator('[data-testid="computation-row"][data-key="orders_30d"]');
  assert.notEqual(await row.getByTestId('computation-next-sync').textContent(), 'on demand only', 'an interval gives a next sync');

  await waitUntil(() => receiver!.received.slice(before).filter((r) => payloadOf(r).traits?.orders_30d !== undefined).length >= 2, 'the trait\'s identify calls', 15_000);
  const sent = receiver.received.slice(before).map(payloadOf).filter((p) => p.traits?.orders_30d !== undefined);
  assert.deepEqual(sent.map((p) => [p.userId, p.traits?.orders_30d]).sort(), [
    ['bob', 2],
    ['cyd', 2],
  ]);
  for (const p of sent) assert.equal((p.context?.personas as Record<string, unknown>).computation_class, 'trait');
  assert.deepEqual(problems, []);
  await page.close();
});
