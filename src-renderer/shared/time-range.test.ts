import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoOfLocal, localOfIso, rangeOf } from './time-range';

test('quick choices are a from this far back; any time clears the range', () => {
  const now = Date.parse('2026-11-23T12:00:00.000Z');
  assert.deepEqual(rangeOf('15m', now), { from: '2026-11-23T11:45:00.000Z' });
  assert.deepEqual(rangeOf('1h', now), { from: '2026-11-23T11:00:00.000Z' });
  assert.deepEqual(rangeOf('24h', now), { from: '2026-11-22T12:00:00.000Z' });
  assert.deepEqual(rangeOf('any', now), {});
});

test('a datetime-local value and ISO 8601 convert both ways; empty or unreadable is no bound', () => {
  const iso = isoOfLocal('2026-11-23T12:30');
  assert.ok(iso);
  assert.equal(localOfIso(iso), '2026-11-23T12:30');
  assert.equal(isoOfLocal(''), undefined);
  assert.equal(isoOfLocal('not a time'), undefined);
  assert.equal(localOfIso(undefined), '');
});
