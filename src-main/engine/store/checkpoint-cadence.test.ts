import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkpointDue, checkpointStep, finishDue, walIndexState, CHECKPOINT_CADENCE, type CheckpointObservation, type WalIndexState } from './checkpoint-cadence';
import { openDatabase } from './database';
import { walFinisher } from './wal-finisher';

const options = { busyIntervalMs: 10, copyAtFrames: 512, finishAtFrames: 1000, finishWithinFrames: 128, finishAnywayAtFrames: 3072, idleIntervalMs: 500, activeForMs: 1000 };
const at = (o: Partial<CheckpointObservation>): CheckpointObservation => ({ now: 10_000, lastChangeAt: null, copiedAll: true, walFrames: 20, walBytes: 4096, ...o });

test('checkpoint cadence: fast while commits arrive, slow once quiet, the WAL cut only after a quiet spell with every frame copied', () => {
  const cases: [string, CheckpointObservation, { delayMs: number; truncate: boolean; finish: boolean }][] = [
    ['never changed, WAL left from start-up', at({}), { delayMs: 500, truncate: true, finish: false }],
    ['never changed, WAL empty', at({ walBytes: 0 }), { delayMs: 500, truncate: false, finish: false }],
    ['a commit just now', at({ lastChangeAt: 10_000 }), { delayMs: 10, truncate: false, finish: false }],
    ['a commit 999 ms ago', at({ lastChangeAt: 9_001 }), { delayMs: 10, truncate: false, finish: false }],
    ['quiet for exactly activeForMs', at({ lastChangeAt: 9_000 }), { delayMs: 500, truncate: true, finish: false }],
    ['quiet, but frames still to copy (a reader held them)', at({ lastChangeAt: 5_000, copiedAll: false }), { delayMs: 500, truncate: false, finish: false }],
    ['quiet and already cut', at({ lastChangeAt: 5_000, walBytes: 0 }), { delayMs: 500, truncate: false, finish: false }],
    // A gap between two commits under load is not quiet: a TRUNCATE there would be an fsync on the engine's thread.
    ['a 20 ms gap between commits, all copied', at({ lastChangeAt: 9_980 }), { delayMs: 10, truncate: false, finish: false }],
    // Under load, a WAL of finishAtFrames copied whole is handed to the engine's thread to finish.
    ['commits arriving, 999 frames, all copied', at({ lastChangeAt: 10_000, walFrames: 999 }), { delayMs: 10, truncate: false, finish: false }],
    ['commits arriving, 1,000 frames, all copied', at({ lastChangeAt: 10_000, walFrames: 1000 }), { delayMs: 10, truncate: false, finish: true }],
    ['commits arriving, 5,000 frames, a reader held some', at({ lastChangeAt: 10_000, walFrames: 5000, copiedAll: false }), { delayMs: 10, truncate: false, finish: false }],
    // Quiet: the TRUNCATE does it, between tasks.
    ['quiet, 5,000 frames, all copied', at({ lastChangeAt: 5_000, walFrames: 5000 }), { delayMs: 500, truncate: true, finish: false }],
  ];
  for (const [name, observation, expected] of cases) assert.deepEqual(checkpointStep(observation, options), expected, name);
});

test('checkpoint cadence: the engine steps at least every 10 ms while busy and backs off to 500 ms', () => {
  assert.equal(checkpointStep(at({ lastChangeAt: 10_000 }), CHECKPOINT_CADENCE).delayMs, 10);
  assert.equal(checkpointStep(at({ lastChangeAt: 0 }), CHECKPOINT_CADENCE).delayMs, 500);
});

test('checkpoint cadence: its source runs on its own, as the worker embeds it', () => {
  const step = new Function(`return (${checkpointStep.toString()})`)() as typeof checkpointStep;
  assert.deepEqual(step(at({ lastChangeAt: 10_000 }), options), { delayMs: 10, truncate: false, finish: false });
  assert.deepEqual(step(at({ lastChangeAt: 0 }), options), { delayMs: 500, truncate: true, finish: false });
  assert.deepEqual(step(at({ lastChangeAt: 10_000, walFrames: 1000 }), options), { delayMs: 10, truncate: false, finish: true });
  const state = new Function(`return (${walIndexState.toString()})`)() as typeof walIndexState;
  assert.equal(state(new Uint8Array(100), true), null);
});

test('checkpoint cadence: while commits arrive a round copies only once the WAL holds copyAtFrames frames; quiet, always', () => {
  const cases: [string, { now: number; lastChangeAt: number | null; walFrames: number | null }, boolean][] = [
    ['a commit just now, 10 frames', { now: 10_000, lastChangeAt: 10_000, walFrames: 10 }, false],
    ['a commit just now, 511 frames', { now: 10_000, lastChangeAt: 10_000, walFrames: 511 }, false],
    ['a commit just now, 512 frames', { now: 10_000, lastChangeAt: 10_000, walFrames: 512 }, true],
    ['a commit just now, frames not known', { now: 10_000, lastChangeAt: 10_000, walFrames: null }, true],
    ['quiet for a second, 10 frames', { now: 10_000, lastChangeAt: 9_000, walFrames: 10 }, true],
    ['never changed', { now: 10_000, lastChangeAt: null, walFrames: 0 }, true],
  ];
  for (const [name, observation, expected] of cases) assert.equal(checkpointDue(observation, options), expected, name);
  const due = new Function(`return (${checkpointDue.toString()})`)() as typeof checkpointDue;
  assert.equal(due({ now: 10_000, lastChangeAt: 10_000, walFrames: 600 }, CHECKPOINT_CADENCE), true);
});

test('the engine thread finishes only a big WAL with little left to copy', () => {
  const cases: [string, { frames: number; backfilled: number } | null, boolean][] = [
    ['no wal-index', null, false],
    ['small WAL, all copied', { frames: 999, backfilled: 999 }, false],
    ['1,000 frames, all copied', { frames: 1000, backfilled: 1000 }, true],
    ['1,000 frames, 128 to copy', { frames: 1000, backfilled: 872 }, true],
    // A purge's commit of hundreds of pages landed after the round: the next round copies it, not the engine's thread.
    ['1,000 frames, 129 to copy', { frames: 1000, backfilled: 871 }, false],
    ['3,071 frames, 600 to copy', { frames: 3071, backfilled: 2471 }, false],
    // A run of big commits kept every round behind: short of the old inline limit the engine's thread copies the rest anyway.
    ['3,072 frames, 600 to copy', { frames: 3072, backfilled: 2472 }, true],
  ];
  const inCycle = (o: { frames: number; backfilled: number } | null, cycle = 7): WalIndexState | null => (o === null ? null : { ...o, cycle });
  for (const [name, state, expected] of cases) assert.equal(finishDue(inCycle(state), null, options), expected, name);
  assert.equal(finishDue(inCycle({ frames: CHECKPOINT_CADENCE.finishAtFrames, backfilled: CHECKPOINT_CADENCE.finishAtFrames }), null, CHECKPOINT_CADENCE), true);
  // Once a cycle: after a finish at 1,200 frames a reader kept the WAL from starting over.
  const finished = { cycle: 7, frames: 1200 };
  assert.equal(finishDue(inCycle({ frames: 1210, backfilled: 1205 }), finished, options), false);
  assert.equal(finishDue(inCycle({ frames: 2199, backfilled: 2199 }), finished, options), false);
  assert.equal(finishDue(inCycle({ frames: 2200, backfilled: 2199 }), finished, options), true);
  // It started over (a new cycle) and grew again, past where the last finish was too.
  assert.equal(finishDue(inCycle({ frames: 1500, backfilled: 1450 }, 8), finished, options), true);
  assert.equal(finishDue(inCycle({ frames: 900, backfilled: 900 }, 8), finished, options), false);
});

test('the wal-index read as the checkpointer and the engine thread read it gives the frames and the copied frames SQLite reports, and nothing for other bytes', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-wal-index-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'log.sqlite'));
  // Nothing copies the WAL here (no checkpointer, the inline one off), so every frame stays.
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (x TEXT)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  for (let i = 0; i < 40; i++) insert.run('x'.repeat(3000));
  const little = endianness() === 'LE';
  const shm = (): Uint8Array => readFileSync(join(dir, 'log.sqlite-shm')).subarray(0, 100);
  const before = walIndexState(shm(), little);
  assert.ok(before !== null && before.frames >= 40, `frames ${before?.frames}`);
  assert.equal(before.backfilled, 0);
  // A PASSIVE checkpoint reports the frames in the WAL as "log" and the ones copied as "checkpointed".
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
  assert.equal(before.frames, r?.log);
  assert.deepEqual(walIndexState(shm(), little), { frames: r?.log, backfilled: r?.checkpointed, cycle: before.cycle });
  db.close();
  assert.equal(walIndexState(new Uint8Array(100), little), null);
  assert.equal(walIndexState(new Uint8Array(20), little), null);
});

test('asked after a copy, the engine thread copies the frames committed since and its next commit starts the WAL over', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-wal-finish-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'log.sqlite');
  const db = openDatabase(path);
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (x TEXT)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  const commit = (n: number): void => db.transaction(() => { for (let i = 0; i < n; i++) insert.run('x'.repeat(3000)); })();
  const small = { ...options, finishAtFrames: 60, finishWithinFrames: 10, finishAnywayAtFrames: 10_000 };
  const finisher = walFinisher(db, path, small);
  t.after(() => finisher.close());
  const little = endianness() === 'LE';
  const state = (): WalIndexState | null => walIndexState(readFileSync(`${path}-shm`).subarray(0, 100), little);
  // Under load the checkpointer's round is a commit behind: here a reader's snapshot holds its
  // copy back, as a commit that lands during the round would.
  const checkpointer = new Database(path);
  const reader = new Database(path);
  t.after(() => { checkpointer.close(); reader.close(); });
  const roundBehind = (landing: number): void => {
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM t').get();
    commit(landing);
    checkpointer.pragma('wal_checkpoint(PASSIVE)');
    reader.exec('COMMIT');
  };
  commit(70);
  roundBehind(2);
  const behind = state();
  assert.ok(behind !== null && behind.frames >= 60 && behind.frames > behind.backfilled, JSON.stringify(behind));
  // Left alone, the next commit cannot start the WAL over: it only grows.
  commit(1);
  assert.ok((state()?.frames ?? 0) > behind.frames);
  // Too much left to copy: the engine's thread leaves it to the next round.
  commit(20);
  assert.equal(finisher.finish(), false);
  assert.ok((state()?.backfilled ?? 0) < (state()?.frames ?? 0));
  roundBehind(1);
  const grown = state();
  assert.ok(grown !== null);
  assert.equal(finisher.finish(), true);
  assert.deepEqual(state(), { ...grown, backfilled: grown.frames });
  // Once a cycle: asked again before anything changed, it does nothing.
  assert.equal(finisher.finish(), false);
  commit(1);
  const after = state();
  assert.ok(after !== null && after.frames < 10 && after.cycle !== grown.cycle, `after the finish the WAL started over: ${JSON.stringify(after)}`);
  db.close();
});
