import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliverySummary } from '../../../src-shared/api';
import { appendOlder, applyUpdates, filterParams, foldedFilterCount, insertRows, isFilterActive, trimRows } from './rows';
import { windowOf } from './VirtualList';
import { summaryFixture } from '../../testing/summary';

const row = (id: number, status: DeliverySummary['status'] = 'pending'): DeliverySummary =>
  summaryFixture(id, { status, event: null, messageId: null });
const ids = (rows: DeliverySummary[]): number[] => rows.map((r) => r.id);

test('updates replace rows in place and keep the others (and the array) as they were', () => {
  const rows = [row(3), row(2), row(1)];
  assert.equal(applyUpdates(rows, new Map()), rows, 'nothing changed: the same array');
  assert.equal(applyUpdates(rows, new Map([[9, row(9)]])), rows, 'an id not shown changes nothing');
  const next = applyUpdates(rows, new Map([[2, row(2, 'failed')]]));
  assert.notEqual(next, rows);
  assert.equal(next[0], rows[0]);
  assert.equal(next[1]?.status, 'failed');
});

test('insertions keep newest first and each id once; newer rows go on top without a sort', () => {
  const rows = [row(5), row(3), row(1)];
  assert.equal(insertRows(rows, []), rows);
  assert.deepEqual(ids(insertRows(rows, [row(7), row(6), row(7)])), [7, 6, 5, 3, 1]);
  assert.deepEqual(ids(insertRows(rows, [row(4), row(2), row(8)])), [8, 5, 4, 3, 2, 1]);
  assert.equal(insertRows(rows, [row(3, 'failed')]).find((r) => r.id === 3)?.status, 'failed', 'an inserted row wins');
  assert.deepEqual(ids(appendOlder(rows, [row(3), row(0)])), [5, 3, 1, 0], 'an older page never repeats a row');
});

test('trimming keeps at least max rows and everything up to the screen', () => {
  const rows = Array.from({ length: 10 }, (_, i) => row(10 - i));
  assert.deepEqual(trimRows(rows, 20, 3), { rows, trimmed: false });
  assert.deepEqual(ids(trimRows(rows, 4, 2).rows), [10, 9, 8, 7]);
  assert.deepEqual(ids(trimRows(rows, 4, 5).rows), [10, 9, 8, 7, 6, 5]);
});

test('the filter as sent leaves out what narrows nothing', () => {
  assert.deepEqual(filterParams({}), {});
  assert.deepEqual(filterParams({ status: [], text: '', url: '', type: '' }), {});
  assert.deepEqual(filterParams({ status: ['failed', 'pending', 'failed'], text: 'a' }), { status: ['pending', 'failed'], text: 'a' });
  assert.deepEqual(filterParams({ status: 'retrying', type: 'track', url: '/hook' }), { status: ['retrying'], type: 'track', url: '/hook' });
  assert.equal(isFilterActive({ text: '' }), false);
  assert.equal(isFilterActive({ status: ['failed'] }), true);
});

test('the folded filters count every term but the text, a time range once', () => {
  assert.equal(foldedFilterCount({}), 0);
  assert.equal(foldedFilterCount({ text: 'alice', status: [], url: '' }), 0);
  assert.equal(foldedFilterCount({ status: ['failed', 'retrying'], text: 'alice' }), 1);
  assert.equal(foldedFilterCount({ type: 'track', url: '/hook', violations: 'any' }), 3);
  assert.equal(foldedFilterCount({ from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z' }), 1);
  assert.equal(foldedFilterCount({ to: '2026-01-02T00:00:00.000Z', status: 'pending' }), 2);
});

test('the window: rows in view and the overscan either side, clamped to the list', () => {
  const base = { headerHeight: 30, rowHeight: 34, overscan: 5 };
  assert.deepEqual(windowOf({ ...base, scrollTop: 0, height: 370, count: 0 }), { first: 0, last: -1, from: 0, to: -1 });
  assert.deepEqual(windowOf({ ...base, scrollTop: 0, height: 370, count: 100_000 }), { first: 0, last: 9, from: 0, to: 14 });
  assert.deepEqual(windowOf({ ...base, scrollTop: 34 * 500 + 10, height: 370, count: 100_000 }), { first: 500, last: 510, from: 495, to: 515 });
  assert.deepEqual(windowOf({ ...base, scrollTop: 34 * 100, height: 370, count: 103 }), { first: 100, last: 102, from: 95, to: 102 });
});
