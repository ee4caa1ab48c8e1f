/**
 * The window's layout in a real Chromium at 390, 640, 1024 and 1440 px, light and dark: the top bar
 * never overflows (the tabs take a row under the name, scrolling sideways when they do not fit; the
 * Live badge stays in view), the list keeps its
 * key columns beside an open detail, and the split between them is resized by drag and by keys,
 * and remembered across a reload.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { oneReceiverConfig, screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const WRITE_KEY = 'wk_layout';
let receiver: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({ name: 'layout', config: oneReceiverConfig(receiver.url, { writeKey: WRITE_KEY, sharedSecret: 'layout-secret' }) });
  const batch = ['alice', 'bob', 'carol'].map((userId) => ({ type: 'track', userId, event: 'Order Completed', properties: { total: 1 } }));
  const res = await wb.ingest('/v1/batch', WRITE_KEY, { batch });
  assert.equal(res.status, 200);
  await receiver.waitFor(3);
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

/** Whether the element's box lies wholly inside the window horizontally. */
async function inView(page: Page, testId: string): Promise<boolean> {
  const box = await page.getByTestId(testId).first().boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  return box !== null && box.x >= 0 && box.x + box.width <= width + 0.5;
}

/** Status, user, event and time of the row lie inside the list beside the detail, the event's name with room to read, the time whole. */
async function assertKeyCellsInView(page: Page, row: Locator): Promise<void> {
  const list = await page.locator('.watch').boundingBox();
  assert.ok(list);
  for (const cell of ['delivery-status', 'delivery-user', 'delivery-event', 'delivery-time']) {
    const box = await row.getByTestId(cell).boundingBox();
    assert.ok(box && box.width > 0 && box.x + box.width <= list.x + list.width + 0.5, `${cell} is in view beside the detail`);
  }
  const event = await row.getByTestId('delivery-event').boundingBox();
  assert.ok(event && event.width >= 40, `the event's name has room (${event?.width} px)`);
  const time = row.getByTestId('delivery-time');
  assert.ok(await time.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the time is not cut');
}

async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(`${name}-light`) });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: screenshotPath(`${name}-dark`) });
  await page.emulateMedia({ colorScheme: 'light' });
}

test('at 640 px the top bar does not overflow: every tab and the Live badge are in view, in every view', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 640, height: 800 } });
  await page.getByTestId('delivery-row').first().waitFor();
  for (const view of ['deliveries', 'inbound', 'compose', 'audiences', 'deletions', 'receivers', 'configure']) {
    await page.getByTestId(`nav-${view}`).click();
    assert.equal(await pageOverflow(page), 0, `${view}: the page is no wider than the window`);
    for (const tab of ['nav-deliveries', 'nav-configure', 'connection-state']) assert.ok(await inView(page, tab), `${view}: ${tab} in view`);
  }
  await page.getByTestId('nav-deliveries').click();
  await page.getByTestId('delivery-row').first().waitFor();
  await shoot(page, 'layout-640');
  // With the detail open the list keeps a third of the window: status, user, event and time stay whole.
  const first = page.getByTestId('delivery-row').first();
  await first.click();
  await page.getByTestId('delivery-detail').waitFor();
  await assertKeyCellsInView(page, first);
  await shoot(page, 'layout-640-detail');
  assert.deepEqual(problems, []);
  await page.close();
});

test("at a phone's 390 px the tabs keep one row, scrolled so that the view shown is in sight, and the page never grows wider than the window", async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 390, height: 844 } });
  await page.getByTestId('delivery-row').first().waitFor();
  const tops = async (): Promise<number[]> =>
    page.locator('.tabs .tab').evaluateAll((tabs) => [...new Set(tabs.map((t) => Math.round(t.getBoundingClientRect().top)))]);
  assert.equal((await tops()).length, 1, 'one row of tabs');
  for (const view of ['configure', 'receivers', 'deliveries']) {
    // Keyboard users reach a view by its link too: the link is brought into sight however it was chosen.
    await page.evaluate((v) => (location.hash = `#/${v}`), view);
    await page.waitForFunction((v) => document.querySelector(`[data-testid="nav-${v}"]`)?.getAttribute('aria-current') === 'page', view);
    await page.waitForFunction((v) => {
      const tab = document.querySelector(`[data-testid="nav-${v}"]`)!.getBoundingClientRect();
      return tab.left >= 0 && tab.right <= window.innerWidth + 0.5;
    }, view);
    assert.equal(await pageOverflow(page), 0, `${view}: the page is no wider than the window`);
    assert.ok(await inView(page, 'connection-state'), `${view}: the connection badge in view`);
  }
  await shoot(page, 'layout-390');

  // The filters fold behind a button that says how many terms it hides; the list keeps the screen.
  const bar = page.getByRole('search', { name: 'Filter deliveries' });
  const folded = await bar.boundingBox();
  assert.ok(folded && folded.height <= 100, `the folded filters bar is ${folded?.height} px tall`);
  assert.equal(await page.getByTestId('filter-status-failed').isVisible(), false);
  assert.ok(await page.getByTestId('filter-text').isVisible(), 'the search stays in sight');
  const toggle = page.getByTestId('filters-toggle');
  assert.equal(await toggle.textContent(), 'Filters');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await page.getByTestId('filter-status-failed').click();
  await page.getByTestId('filter-type').selectOption('track');
  await page.getByTestId('filter-status-failed').waitFor();
  assert.equal(await toggle.textContent(), 'Filters · 2');
  assert.equal(await pageOverflow(page), 0, 'unfolded, the page is no wider than the window');
  await shoot(page, 'layout-390-filters');
  await toggle.click();
  assert.equal(await page.getByTestId('filter-type').isVisible(), false);

  // Every view's content fits the phone's width: nothing is cut off at the right edge, except
  // inside something that scrolls sideways on purpose (the tabs, a code block, a table).
  for (const view of ['compose', 'configure', 'inbound', 'audiences', 'deletions', 'receivers']) {
    await page.evaluate((v) => (location.hash = `#/${v}`), view);
    await page.waitForFunction((v) => document.querySelector(`[data-testid="nav-${v}"]`)?.getAttribute('aria-current') === 'page', view);
    await page.waitForTimeout(150);
    // A string: tsx would wrap the inner function in a helper the page does not have.
    const cut = (await page.evaluate(`(() => {
      // Something that scrolls sideways on purpose (a table's list, a card's table, the code
      // blocks) may hold wider content; a view's own region scrolling sideways is the page cut
      // off, with nothing to say so.
      const scrolls = (el) => {
        for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
          const o = getComputedStyle(e).overflowX;
          if ((o === 'auto' || o === 'scroll') && e.scrollWidth > e.clientWidth) return !(e.parentElement && e.parentElement.classList.contains('app'));
        }
        return false;
      };
      return [...document.querySelectorAll('.app > :not(header) *')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && r.right > window.innerWidth + 1 && !scrolls(el);
        })
        .slice(0, 5)
        .map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' ' + (el.textContent || '').trim().slice(0, 30));
    })()`)) as string[];
    await page.screenshot({ path: screenshotPath(`layout-390-${view}`) });
    assert.deepEqual(cut, [], `${view}: cut off at 390 px`);
  }
  await page.evaluate(() => (location.hash = '#/deliveries'));
  assert.equal(await toggle.textContent(), 'Filters · 2', 'folded again, it still says what narrows the list');
  assert.deepEqual(problems, []);
  await page.close();
});

test('at 1024 px with the detail open the list keeps status, user, event and time; the split resizes by drag and keys and is remembered', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 1024, height: 800 } });
  const first = page.getByTestId('delivery-row').first();
  await first.waitFor();
  await first.click();
  await page.getByTestId('delivery-detail').waitFor();
  await assertKeyCellsInView(page, first);
  // Beside the detail the list is about 600 px wide: its filters fold behind the Filters button.
  assert.ok(await page.getByTestId('filters-toggle').isVisible(), 'the filters fold beside the detail');
  assert.equal(await page.getByTestId('filter-type').isVisible(), false);
  await shoot(page, 'layout-1024-detail');

  const handle = page.getByTestId('split-handle');
  assert.equal(await handle.getAttribute('role'), 'separator');
  const widthOf = async (): Promise<number> => Number(await handle.getAttribute('data-width'));
  const start = await widthOf();
  // Keys: ← widens the detail, → narrows it.
  await handle.focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await widthOf(), start + 32);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await widthOf(), start - 32);
  // Drag: the detail's edge follows the pointer.
  const box = await handle.boundingBox();
  assert.ok(box);
  await page.mouse.move(box.x + box.width / 2, box.y + 100);
  await page.mouse.down();
  await page.mouse.move(1024 - 500, box.y + 100, { steps: 5 });
  await page.mouse.up();
  const dragged = await widthOf();
  assert.ok(Math.abs(dragged - 500) <= 4, `dragged to ${dragged}`);
  const detailBox = await page.getByTestId('delivery-detail').boundingBox();
  assert.ok(detailBox && Math.abs(detailBox.width - dragged) <= 2);
  // Remembered: a reload opens the split where it was left.
  await page.reload();
  await page.getByTestId('delivery-row').first().click();
  await handle.waitFor();
  assert.equal(await widthOf(), dragged);
  assert.deepEqual(problems, []);
  await page.close();
});

test('at 1440 px the whole bar sits on one row and the list shows every column beside the detail', async () => {
  assert.ok(wb);
  const { page, problems } = await wb.openPage({ viewport: { width: 1440, height: 900 } });
  await page.getByTestId('delivery-row').first().waitFor();
  const bar = await page.locator('.topbar').boundingBox();
  assert.ok(bar && bar.height < 60, `one row: ${bar?.height}`);
  assert.equal(await pageOverflow(page), 0);
  await shoot(page, 'layout-1440');
  await page.getByTestId('delivery-row').first().click();
  await page.getByTestId('delivery-detail').waitFor();
  const row = page.getByTestId('delivery-row').first();
  for (const cell of ['delivery-status', 'delivery-entries', 'delivery-rounds', 'delivery-latency', 'delivery-time']) {
    const box = await row.getByTestId(cell).boundingBox();
    assert.ok(box && box.width > 0, `${cell} shown beside the detail`);
  }
  await shoot(page, 'layout-1440-detail');
  assert.deepEqual(problems, []);
  await page.close();
});
