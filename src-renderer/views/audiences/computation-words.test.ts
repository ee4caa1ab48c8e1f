import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../../src-shared/personas';
import { changesInWords, conditionInWords, intervalInWords, previewCountInWords, ruleInWords, untilInWords } from './computation-words';

test('conditionInWords reads a definition as a sentence', () => {
  const cases: [Condition, string][] = [
    [{ kind: 'event', event: 'Signed Up' }, 'performed Signed Up'],
    [{ kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 }, 'performed Order Completed at least twice in the last 30 days'],
    [{ kind: 'event', event: 'A', atLeast: 3, atMost: 3 }, 'performed A exactly 3 times'],
    [{ kind: 'event', event: 'A', atLeast: 1, atMost: 5, withinDays: 1 }, 'performed A between 1 and 5 times in the last day'],
    [{ kind: 'event', event: 'A', where: [{ property: 'total', equals: 10 }] }, 'performed A where total = 10'],
    [{ kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }, 'plan equals "pro"'],
    [{ kind: 'trait', trait: 'email', op: 'exists' }, 'email is set'],
    [
      {
        kind: 'and',
        all: [
          { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 },
          { kind: 'or', any: [{ kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }, { kind: 'trait', trait: 'seats', op: 'gte', value: 10 }] },
        ],
      },
      'performed Order Completed at least twice in the last 30 days and (plan equals "pro" or seats is at least 10)',
    ],
  ];
  for (const [c, words] of cases) assert.equal(conditionInWords(c), words);
});

test('ruleInWords, intervalInWords, changesInWords', () => {
  assert.equal(ruleInWords({ kind: 'event_count', event: 'Order Completed', withinDays: 30 }), 'times Order Completed was performed in the last 30 days');
  assert.equal(ruleInWords({ kind: 'last_property', event: 'Order Completed', property: 'total' }), 'last total of Order Completed');
  const intervals: [number | null, string][] = [
    [null, 'on demand only'],
    [1, 'every minute'],
    [15, 'every 15 minutes'],
    [60, 'every hour'],
    [180, 'every 3 hours'],
    [1440, 'every day'],
    [2880, 'every 2 days'],
  ];
  for (const [m, words] of intervals) assert.equal(intervalInWords(m), words);
  assert.equal(changesInWords({ entered: 2, exited: 0, changed: 0 }), '+2 −0');
  assert.equal(changesInWords({ entered: 1, exited: 1, changed: 3 }), '+1 −1 ~3');
});

test('untilInWords counts from the injected now', () => {
  const now = Date.parse('2024-05-01T12:00:00.000Z');
  const cases: [string | null, string][] = [
    [null, 'on demand only'],
    ['2024-05-01T11:59:00.000Z', 'due now'],
    ['2024-05-01T12:00:20.000Z', 'in less than a minute'],
    ['2024-05-01T12:15:00.000Z', 'in 15 min'],
    ['2024-05-01T17:00:00.000Z', 'in 5 h'],
    ['2024-05-05T12:00:00.000Z', 'in 4 days'],
  ];
  for (const [iso, words] of cases) assert.equal(untilInWords(iso, now), words, String(iso));
});

test('a preview that stopped at its count limit reads "1,000+"; an exact one its number', () => {
  assert.equal(previewCountInWords({ total: 1000, capped: true }), '1,000+');
  assert.equal(previewCountInWords({ total: 1000 }), '1000');
  assert.equal(previewCountInWords({ total: 3, capped: false }), '3');
});
