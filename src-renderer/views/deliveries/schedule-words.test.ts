import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliverySchedule } from '../../../src-shared/api';
import { plannedNote, scheduleLines, scheduleSummary, warpMark, warpNotice } from './schedule-words';

const at = (ms: number): string => new Date(Date.UTC(2026, 10, 23, 12) + ms).toISOString();

const warped: DeliverySchedule = {
  warp: 240,
  windowMs: 4 * 3_600_000,
  windowStart: at(0),
  windowEnd: at(60_000),
  rounds: [
    { round: 1, at: at(0), state: 'sent', outcome: '500', succeeded: false },
    { round: 2, at: at(4), state: 'sent', outcome: 'timeout / 503', succeeded: false },
    { round: 3, at: at(13), state: 'next', outcome: null, succeeded: false },
    { round: 4, at: at(30), state: 'planned', outcome: null, succeeded: false },
  ],
  plannedAreLatest: true,
  truncated: false,
};

test('warp marks: only a warped delivery carries one, and it says the times are compressed', () => {
  assert.equal(warpMark(1), null);
  assert.equal(warpNotice(1), null);
  assert.equal(warpMark(240), 'warped ×240');
  assert.match(warpNotice(240) ?? '', /^warped ×240: times are compressed\./);
});

test('schedule lines: each round with its offset, the real-schedule offset under a warp, and the window end in its place', () => {
  const lines = scheduleLines(warped);
  assert.deepEqual(
    lines.map((l) => [l.label, l.round, l.offset, l.realOffset, l.outcome]),
    [
      ['sent', 1, '+0 ms', '≈ +0 ms', '500'],
      ['sent', 2, '+4 ms', '≈ +960 ms', 'timeout / 503'],
      ['next', 3, '+13 ms', '≈ +3.1 s', null],
      ['planned', 4, '+30 ms', '≈ +7.2 s', null],
      ['window ends', null, '+1 min', '= +4 h', null],
    ],
  );
  const real = scheduleLines({ ...warped, warp: 1, windowEnd: at(10), rounds: warped.rounds.map((r) => ({ ...r })) });
  assert.deepEqual(real.map((l) => l.label), ['sent', 'sent', 'window ends', 'next', 'planned'], 'the window end sorts among the rounds');
  assert.ok(real.every((l) => l.realOffset === null), 'no second column in real time');
  assert.deepEqual(scheduleLines({ ...warped, windowStart: null, windowEnd: null, rounds: [] }), []);
  const over = scheduleLines({ ...warped, warp: 1, windowStart: null, windowEnd: null, rounds: warped.rounds.slice(0, 2) });
  assert.deepEqual(over.map((l) => [l.label, l.offset]), [['sent', '+0 ms'], ['sent', '+4 ms']], 'without a window, offsets count from the first round');
});

test('schedule summary and the note on planned times', () => {
  assert.equal(scheduleSummary(warped), '2 rounds sent, 1 next, 1 planned if every round fails; the 4 h retry window, warped ×240 to 1 min.');
  assert.equal(scheduleSummary({ ...warped, warp: 1, truncated: true }), '2 rounds sent, 1 next, 1+ planned if every round fails; the 4 h retry window.');
  assert.equal(scheduleSummary({ ...warped, windowEnd: null, rounds: warped.rounds.slice(0, 1) }), '1 round sent.');
  assert.match(plannedNote(warped) ?? '', /latest each retry can be/);
  assert.equal(plannedNote({ ...warped, rounds: warped.rounds.slice(0, 2) }), null);
});
