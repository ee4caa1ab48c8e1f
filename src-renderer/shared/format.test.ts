import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesOf, dateTimeOf, measuredMs, megabytesOf, spanOf, timeOf, untilOf, whenOf } from './format';

test('measured durations keep the precision they are worth', () => {
  const ms: [number | null, string][] = [
    [null, '—'],
    [0.42, '0.4 ms'],
    [3, '3 ms'],
    [12.6, '13 ms'],
    [999, '999 ms'],
    [1250, '1.25 s'],
    [12_500, '12.5 s'],
    [300_000, '300 s'],
  ];
  for (const [n, text] of ms) assert.equal(measuredMs(n), text);
});

test('configured durations read as spans', () => {
  const table: [number, string][] = [
    [500, '500 ms'],
    [1000, '1 s'],
    [1500, '1.5 s'],
    [5000, '5 s'],
    [60_000, '1 min'],
    [90_000, '1 min 30 s'],
    [600_000, '10 min'],
    [4 * 3_600_000, '4 h'],
    [5_400_000, '1 h 30 min'],
  ];
  for (const [ms, words] of table) assert.equal(spanOf(ms), words, `${ms} ms`);
});

test('time until a moment counts from the injected now', () => {
  const now = Date.parse('2024-05-01T12:00:00.000Z');
  assert.equal(untilOf('2024-05-01T11:59:00.000Z', now), 'due now');
  assert.equal(untilOf('2024-05-01T12:15:00.000Z', now), 'in 15 min');
  assert.equal(untilOf('not a time', now), 'not a time');
});

test('sizes in bytes, KB and MB', () => {
  const bytes: [number, string][] = [
    [0, '0 bytes'],
    [1, '1 byte'],
    [18, '18 bytes'],
    [2048, '2 KB'],
    [65_536, '64 KB'],
    [1_572_864, '1.5 MB'],
  ];
  for (const [n, text] of bytes) assert.equal(bytesOf(n), text);
  assert.equal(megabytesOf(512 * 1024), '0.5 MB');
});

test('a list time has its date when it is not today', () => {
  const now = new Date(2026, 10, 23, 15, 0, 0).getTime();
  const today = new Date(2026, 10, 23, 9, 5, 7, 12).toISOString();
  assert.equal(whenOf(today, now), '09:05:07.012');
  assert.equal(whenOf(today, now), timeOf(today));
  assert.equal(whenOf(new Date(2026, 10, 22, 23, 59, 58).toISOString(), now), '22 Nov 23:59:58');
  assert.equal(whenOf(new Date(2025, 0, 3, 8, 0, 0).toISOString(), now), '3 Jan 2025 08:00:00');
  assert.equal(whenOf(null, now), '—');
});

test("a detail's time is the date and the time of day with milliseconds, whatever the browser's locale", () => {
  assert.equal(dateTimeOf(new Date(2026, 10, 28, 13, 13, 16, 512).toISOString()), '28 Nov 2026 13:13:16.512');
  assert.equal(dateTimeOf(new Date(2025, 0, 3, 8, 0, 0).toISOString()), '3 Jan 2025 08:00:00.000');
  assert.equal(dateTimeOf(null), '—');
  assert.equal(dateTimeOf('not a time'), 'not a time');
});
