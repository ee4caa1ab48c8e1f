/**
 * The Event cell of a deliveries row when its tags pile up (warp mark, test tag, replay links,
 * plan violations), in a real Chromium at 640, 1024 and 1440 px: no tag spills out of the cell, the event
 * name keeps at least a letter, and the violations tag keeps its count (it never wears the replay arrow).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { Receiver } from '../src-main/engine/testing/receiver';
import { screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const WRITE_KEY = 'wk_tags';
const EVENT = 'Checkout Started With A Rather Long Event Name';
let wb: Workbench | null = null;
const failing = new Receiver();
const replayTarget = new Receiver();

before(async () => {
  await failing.start('/failing');
  failing.respond((_req, res) => {
    res.statusCode = 503;
    res.end('down');
  });
  await replayTarget.start('/replays');
  wb = await startWorkbench({
    name: 'row-tags',
    config: {
      sources: [{ name: 'app', writeKey: WRITE_KEY }],
      destinations: [{ name: 'Warped', enabled: true, sources: ['app'], sharedSecret: 's', warp: 3600, webhooks: [{ url: failing.url }] }],
    },
  });
  await wb.call('saveTrackingPlan', {
    events: { [EVENT]: { type: 'object', required: ['total', 'currency'] } },
    unplannedEvents: 'allow',
  });
  const batch = ['alice', 'bob'].map((userId) => ({ type: 'track', userId, event: EVENT, properties: {} }));
  assert.equal((await wb.ingest('/v1/batch', WRITE_KEY, { batch })).status, 200);
  // ×3600 runs the 4-hour window in 4 s: wait (bounded) until the deliveries have failed, then replay one.
  const deadline = Date.now() + 60_000;
  let failed: number[] = [];
  while (Date.now() < deadline) {
    failed = (await wb.call('listDeliveries', { status: 'failed', limit: 10 })).items.map((r) => r.id);
    if (failed.length === 2) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.equal(failed.length, 2, 'both warped deliveries failed');
  await wb.call('replayDelivery', { id: failed[0]!, targetUrl: replayTarget.url });
  await wb.call('sendTestEvent', { destination: 'Warped', type: 'track' });
});

after(async () => {
  await wb?.close();
  await failing.close();
  await replayTarget.close();
});

interface CellReport {
  overflow: number;
  nameWidth: number;
  spill: string[];
  violations: string | null;
}

async function eventCells(page: Page): Promise<CellReport[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[data-testid="delivery-row"]')].map((row) => {
      const cell = row.querySelector('.wevent') as HTMLElement;
      const box = cell.getBoundingClientRect();
      const spill = [...cell.children]
        .filter((el) => {
          const b = el.getBoundingClientRect();
          return b.width > 0 && (b.right > box.right + 0.5 || b.left < box.left - 0.5);
        })
        .map((el) => el.className);
      const name = cell.querySelector('[data-testid="delivery-event"]') as HTMLElement;
      const tag = cell.querySelector('[data-testid="delivery-violations"]') as HTMLElement | null;
      // The tag may end in an ellipsis ("2 pl…") but its count, the first text in it, is whole.
      const range = document.createRange();
      if (tag?.firstChild) range.selectNodeContents(tag.firstChild);
      const countEnd = range.getBoundingClientRect().right;
      return {
        overflow: cell.scrollWidth - cell.clientWidth,
        nameWidth: name.getBoundingClientRect().width,
        spill,
        violations: tag === null ? null : countEnd <= tag.getBoundingClientRect().right + 0.5 ? tag.innerText : `clipped: ${tag.innerText}`,
      };
    }),
  );
}

for (const width of [640, 1024, 1440]) {
  test(`at ${width} px every Event cell holds its tags, keeps the event name and the violation count`, async () => {
    assert.ok(wb);
    const { page, problems } = await wb.openPage({ viewport: { width, height: 800 } });
    await page.getByTestId('delivery-row').nth(3).waitFor();
    await page.getByTestId('delivery-replayed').first().waitFor();
    await page.getByTestId('delivery-test').first().waitFor();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.screenshot({ path: screenshotPath(`row-tags-${width}-${scheme}`) });
    }
    const cells = await eventCells(page);
    assert.ok(cells.length >= 4, `rows: ${cells.length}`);
    for (const [i, c] of cells.entries()) {
      assert.ok(c.overflow <= 1, `row ${i}: the Event cell overflows by ${c.overflow} px`);
      assert.deepEqual(c.spill, [], `row ${i}: tags past the cell's edge`);
      assert.ok(c.nameWidth >= 6, `row ${i}: the event name keeps at least its first letter (${c.nameWidth} px)`);
      if (c.violations !== null) {
        assert.match(c.violations, /\b2\b/, `row ${i}: the violations tag shows its count`);
        assert.doesNotMatch(c.violations, /↻|clipped/, `row ${i}: the violations tag is whole and not marked as a replay`);
      }
    }
    assert.ok(cells.some((c) => c.violations !== null), 'some row shows its violations');
    assert.deepEqual(problems, []);
    await page.close();
  });
}
