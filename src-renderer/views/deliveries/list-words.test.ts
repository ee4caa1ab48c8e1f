import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyAction, moveCursor, type KeyInput } from './keyboard';
import { bulkSummaryWords, countWords, noMatchWords, hiddenWords, lastStatusWords, nextAttemptWords } from './list-words';

test('keys: j/k/Enter/r/ / / Escape act, never while typing or with a modifier', () => {
  const cases: [KeyInput, ReturnType<typeof keyAction>][] = [
    [{ key: 'j' }, { kind: 'move', by: 1 }],
    [{ key: 'j', targetTag: 'DIV' }, { kind: 'move', by: 1 }],
    [{ key: 'ArrowDown' }, null],
    [{ key: 'Enter', targetTag: 'BUTTON' }, null],
    [{ key: 'Enter', targetTag: 'A' }, null],
    [{ key: 'k' }, { kind: 'move', by: -1 }],
    [{ key: 'Enter', targetTag: 'DIV' }, { kind: 'open' }],
    [{ key: 'r', targetTag: 'BODY' }, { kind: 'replay' }],
    [{ key: '/' }, { kind: 'search' }],
    [{ key: 'Escape' }, { kind: 'close' }],
    [{ key: 'x' }, null],
    [{ key: 'R' }, null],
    [{ key: 'j', targetTag: 'INPUT' }, null],
    [{ key: 'r', targetTag: 'TEXTAREA' }, null],
    [{ key: 'k', targetTag: 'SELECT' }, null],
    [{ key: '/', targetTag: 'DIV', targetEditable: true }, null],
    [{ key: 'r', ctrlKey: true }, null],
    [{ key: 'r', metaKey: true }, null],
    [{ key: 'j', altKey: true }, null],
  ];
  for (const [input, expected] of cases) assert.deepEqual(keyAction(input), expected, JSON.stringify(input));
});

test('the cursor moves within the rows and starts at the top', () => {
  assert.equal(moveCursor(-1, 1, 5), 0);
  assert.equal(moveCursor(-1, -1, 5), 0);
  assert.equal(moveCursor(0, 1, 5), 1);
  assert.equal(moveCursor(4, 1, 5), 4);
  assert.equal(moveCursor(0, -1, 5), 0);
  assert.equal(moveCursor(9, -1, 5), 0, 'a cursor past the rows (after a filter) restarts at the top');
  assert.equal(moveCursor(2, 1, 0), -1);
});

test('numbers in words', () => {
  assert.equal(countWords(null, false), '…');
  assert.equal(countWords({ total: 100000, matching: 100000 }, false), '100,000 deliveries');
  assert.equal(countWords({ total: 1, matching: 1 }, false), '1 delivery');
  assert.equal(countWords({ total: 1200, matching: 3 }, true), '3 of 1,200 deliveries');
  assert.equal(hiddenWords({ total: 1200, matching: 3 }), '1,197 hidden by the filter');
  assert.equal(hiddenWords(null), '');
  // A count that stopped at its limit says so: "10,000+", and the hidden ones as an upper bound.
  assert.equal(countWords({ total: 1_000_000, matching: 10_000, capped: true }, true), '10,000+ of 1,000,000 deliveries');
  assert.equal(hiddenWords({ total: 1_000_000, matching: 10_000, capped: true }), 'at most 990,000 hidden by the filter');
  assert.equal(noMatchWords({ total: 2001, matching: 0 }), 'All 2,001 deliveries are hidden by it. Loosen the filter, or clear it to see every delivery.');
  assert.equal(noMatchWords({ total: 1, matching: 0 }), 'The only delivery is hidden by it. Loosen the filter, or clear it to see every delivery.');
  assert.equal(noMatchWords(null), 'Loosen the filter, or clear it to see every delivery.');
  assert.equal(lastStatusWords({ lastHttpStatus: 500, lastError: 'HTTP 500' }), '500');
  assert.equal(lastStatusWords({ lastHttpStatus: null, lastError: 'connect ECONNREFUSED' }), 'error');
  assert.equal(lastStatusWords({ lastHttpStatus: null, lastError: null }), '—');
  assert.equal(nextAttemptWords({ status: 'succeeded', nextAttemptAt: null }), null);
  assert.match(nextAttemptWords({ status: 'retrying', nextAttemptAt: '2026-01-01T10:11:12.345Z' }) ?? '', /^next \d\d:\d\d:\d\d$/);
  assert.equal(bulkSummaryWords({ state: 'finished', done: 3, total: 3, replayed: 3, failed: 0, firstError: null }), 'Replayed 3, failed 0.');
  assert.equal(
    bulkSummaryWords({ state: 'finished', done: 3, total: 3, replayed: 2, failed: 1, firstError: '#4: refused' }),
    'Replayed 2, failed 1. First error: #4: refused',
  );
  assert.equal(bulkSummaryWords({ state: 'cancelled', done: 1, total: 3, replayed: 1, failed: 0, firstError: null }), 'Cancelled after 1 of 3: replayed 1, failed 0.');
  assert.equal(bulkSummaryWords({ state: 'finished', done: 0, total: 0, replayed: 0, failed: 0, firstError: null }), 'No failed delivery in this filter.');
});
