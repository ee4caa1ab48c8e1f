import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clampDetailWidth, defaultDetailWidth, DETAIL_MIN_PX, LIST_MIN_PX, parseStoredWidth, SPLIT_STEP_PX, widthAfterKey } from './split';

test('the detail width stays between its minimum and what leaves the list its key columns', () => {
  assert.equal(clampDetailWidth(100, 1440), DETAIL_MIN_PX);
  assert.equal(clampDetailWidth(5000, 1440), 1440 - LIST_MIN_PX);
  assert.equal(clampDetailWidth(600.4, 1440), 600);
  assert.equal(clampDetailWidth(Number.NaN, 1000), 420, 'garbage falls back to the default share');
  assert.equal(clampDetailWidth(500, 500), DETAIL_MIN_PX, 'a window too small for both still shows a usable detail');
  assert.equal(defaultDetailWidth(1024), 430);
});

test('keys on the handle: ← widens the detail, → narrows it, Home and End go to the ends, others do nothing', () => {
  assert.equal(widthAfterKey('ArrowLeft', 400, 1440), 400 + SPLIT_STEP_PX);
  assert.equal(widthAfterKey('ArrowRight', 400, 1440), 400 - SPLIT_STEP_PX);
  assert.equal(widthAfterKey('ArrowRight', DETAIL_MIN_PX, 1440), DETAIL_MIN_PX);
  assert.equal(widthAfterKey('Home', 400, 1440), 1440 - LIST_MIN_PX);
  assert.equal(widthAfterKey('End', 400, 1440), DETAIL_MIN_PX);
  assert.equal(widthAfterKey('j', 400, 1440), null);
});

test('a remembered width is read back only when it is a plain number', () => {
  assert.equal(parseStoredWidth('512'), 512);
  for (const bad of [null, '', 'abc', '-5', '1e3', '9999999']) assert.equal(parseStoredWidth(bad), null, String(bad));
});
