/** Retention's and the refused log's decisions, pure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DAY_MS, idleDelay, MAX_IDLE_MS, MB, planSlice, RELEASE_PAGES_PER_SLICE, sliceWaitsForWal } from './plan';
import { nextSliceRows, TIMED_SLICES } from './service';
import { clip, decideRefused, echo, REFUSED_ROWS_PER_SECOND, type RefusedWindow } from '../store/refused-log';

const settings = { days: 30, megabytes: 100 };
const pages = (mb: number): number => (mb * MB) / 4096;

test('planSlice: the age cutoff, pressing on the cap above 90 % until back under 80 %, and free pages given back near the cap or past the slack', () => {
  const now = Date.UTC(2026, 10, 23);
  const base = { now, settings, pageSize: 4096, pressing: false };
  assert.deepEqual(planSlice({ ...base, pageCount: pages(50), freePages: 0 }), { cutoff: now - 30 * DAY_MS, pressing: false, releasePages: 0 });
  const over = planSlice({ ...base, pageCount: pages(95), freePages: 0 });
  assert.equal(over.pressing, true);
  assert.equal(over.cutoff, Number.MAX_SAFE_INTEGER, 'over the cap every finished row may go, oldest first');
  assert.equal(planSlice({ ...base, pressing: true, pageCount: pages(85), freePages: 0 }).pressing, true, 'keeps pressing down to 80 %');
  assert.equal(planSlice({ ...base, pressing: true, pageCount: pages(85), freePages: pages(10) }).pressing, false, 'free pages are not data');
  assert.equal(planSlice({ ...base, pageCount: pages(50), freePages: pages(2) }).releasePages, 0, 'a little slack is kept for new rows');
  assert.equal(planSlice({ ...base, pageCount: pages(50), freePages: pages(5) }).releasePages, RELEASE_PAGES_PER_SLICE);
  assert.equal(planSlice({ ...base, pageCount: pages(85), freePages: 3 }).releasePages, 3, 'near the cap every free page goes');
});

test('idleDelay: until the oldest row is strictly over the limit, at least the minimum, at most an hour', () => {
  const now = 1_000_000_000_000;
  assert.equal(idleDelay(now, { days: 1, megabytes: 1 }, null, 5000), MAX_IDLE_MS);
  assert.equal(idleDelay(now, { days: 1, megabytes: 1 }, now - DAY_MS + 60_000, 5000), 60_001);
  assert.equal(idleDelay(now, { days: 1, megabytes: 1 }, now - 2 * DAY_MS, 5000), 5000, 'old rows that must stay are looked at again at the minimum pace');
  assert.equal(idleDelay(now, { days: 30, megabytes: 1 }, now, 5000), MAX_IDLE_MS);
});

test('refused calls: 20 rows a second, then one summary per second that counts the rest; texts clipped and keys echoed short', () => {
  let w: RefusedWindow | null = null;
  const decisions: string[] = [];
  for (let i = 0; i < REFUSED_ROWS_PER_SECOND + 3; i++) {
    const { decision, window } = decideRefused(w, 5_000_100 + i);
    decisions.push(decision.store);
    w = decision.store === 'new_summary' ? { ...window, summaryId: 77 } : window;
  }
  assert.deepEqual(decisions.slice(REFUSED_ROWS_PER_SECOND - 1), ['row', 'new_summary', 'add_to_summary', 'add_to_summary']);
  assert.equal(w?.summarized, 3);
  const late = decideRefused(w, 4_999_999);
  assert.deepEqual(late.decision, { store: 'add_to_summary', summaryId: 77 }, 'a call stamped in the second before (a slow body) counts in the current window, never starts it again');
  assert.equal(late.window.second, 5_000);
  assert.deepEqual(decideRefused(w, 5_001_000).decision, { store: 'row' }, 'a new second starts over');

  assert.equal(clip('abc', 5), 'abc');
  assert.equal(clip('x'.repeat(1500), 1024), `${'x'.repeat(1024)}… (476 more characters not stored)`);
  assert.equal(clip(null, 3), null);
  assert.equal(echo('wk_short'), 'wk_short');
  assert.equal(echo('k'.repeat(490_000)), `${'k'.repeat(64)}… (490000 characters)`);
});

test('sliceWaitsForWal: a slice waits while the WAL has no room, for at most the bound since it first waited', () => {
  assert.equal(sliceWaitsForWal({ room: true, waitingSince: null, now: 1000 }, 200), false);
  assert.equal(sliceWaitsForWal({ room: true, waitingSince: 900, now: 1000 }, 200), false, 'room again: it goes at once');
  assert.equal(sliceWaitsForWal({ room: false, waitingSince: null, now: 1000 }, 200), true, 'no room: it starts waiting');
  assert.equal(sliceWaitsForWal({ room: false, waitingSince: 1000, now: 1199 }, 200), true);
  assert.equal(sliceWaitsForWal({ room: false, waitingSince: 1000, now: 1200 }, 200), false, 'bounded: it goes anyway');
});

test('nextSliceRows: sized from what the last slice removed and how long it took, within bounds; unchanged after one that removed nothing', () => {
  const target = TIMED_SLICES.targetMs;
  assert.equal(nextSliceRows(50, { messages: 50, requests: 3 }, target), 50, 'on target: the same');
  assert.equal(nextSliceRows(50, { messages: 50, requests: 0 }, target * 2), 25, 'twice as long: half');
  assert.equal(nextSliceRows(50, { messages: 50, requests: 0 }, 100), TIMED_SLICES.min, 'never under the minimum');
  assert.equal(nextSliceRows(50, { messages: 50, requests: 0 }, 0.01), TIMED_SLICES.max, 'never over the maximum');
  assert.equal(nextSliceRows(50, { messages: 5, requests: 0 }, 0.5), 20, 'by what it removed, at most four times that');
  assert.equal(nextSliceRows(80, { messages: 0, requests: 0 }, 0.1), 80, 'nothing removed: unchanged');
});
