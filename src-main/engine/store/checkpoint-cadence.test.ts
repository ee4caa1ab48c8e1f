import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkpointStep, CHECKPOINT_CADENCE, type CheckpointObservation } from './checkpoint-cadence';

const options = { busyIntervalMs: 10, idleIntervalMs: 500, activeForMs: 1000 };
const at = (o: Partial<CheckpointObservation>): CheckpointObservation => ({ now: 10_000, lastChangeAt: null, copiedAll: true, walBytes: 4096, ...o });

test('checkpoint cadence: fast while commits arrive, slow once quiet, the WAL cut only after a quiet spell with every frame copied', () => {
  const cases: [string, CheckpointObservation, { delayMs: number; truncate: boolean }][] = [
    ['never changed, WAL left from start-up', at({}), { delayMs: 500, truncate: true }],
    ['never changed, WAL empty', at({ walBytes: 0 }), { delayMs: 500, truncate: false }],
    ['a commit just now', at({ lastChangeAt: 10_000 }), { delayMs: 10, truncate: false }],
    ['a commit 999 ms ago', at({ lastChangeAt: 9_001 }), { delayMs: 10, truncate: false }],
    ['quiet for exactly activeForMs', at({ lastChangeAt: 9_000 }), { delayMs: 500, truncate: true }],
    ['quiet, but frames still to copy (a reader held them)', at({ lastChangeAt: 5_000, copiedAll: false }), { delayMs: 500, truncate: false }],
    ['quiet and already cut', at({ lastChangeAt: 5_000, walBytes: 0 }), { delayMs: 500, truncate: false }],
    // A gap between two commits under load is not quiet: a TRUNCATE there would be an fsync on the engine's thread.
    ['a 20 ms gap between commits, all copied', at({ lastChangeAt: 9_980 }), { delayMs: 10, truncate: false }],
  ];
  for (const [name, observation, expected] of cases) assert.deepEqual(checkpointStep(observation, options), expected, name);
});

test('checkpoint cadence: the engine steps at least every 10 ms while busy and backs off to 500 ms', () => {
  assert.equal(checkpointStep(at({ lastChangeAt: 10_000 }), CHECKPOINT_CADENCE).delayMs, 10);
  assert.equal(checkpointStep(at({ lastChangeAt: 0 }), CHECKPOINT_CADENCE).delayMs, 500);
});

test('checkpoint cadence: its source runs on its own, as the worker embeds it', () => {
  const step = new Function(`return (${checkpointStep.toString()})`)() as typeof checkpointStep;
  assert.deepEqual(step(at({ lastChangeAt: 10_000 }), options), { delayMs: 10, truncate: false });
  assert.deepEqual(step(at({ lastChangeAt: 0 }), options), { delayMs: 500, truncate: true });
});
