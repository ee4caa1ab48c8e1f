import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { endianness, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { backgroundWriteMayGo, checkpointDue, checkpointStep, walIndexFrames, walIndexState, CHECKPOINT_CADENCE, type CheckpointObservation } from './checkpoint-cadence';
import { openDatabase } from './database';
import * as fs from 'node:fs';
import { walIndexReader, walWatch } from './wal-watch';

const options = { busyIntervalMs: 10, copyAtFrames: 512, idleIntervalMs: 500, activeForMs: 1000 };
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

test('the wal-index header read as the checkpointer reads it gives the frames SQLite reports, and nothing for other bytes', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-wal-index-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'log.sqlite'));
  // Nothing copies the WAL here (no checkpointer, the inline one far off), so every frame stays.
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (x TEXT)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  for (let i = 0; i < 40; i++) insert.run('x'.repeat(3000));
  const little = endianness() === 'LE';
  const frames = walIndexFrames(readFileSync(join(dir, 'log.sqlite-shm')).subarray(0, 20), little);
  // A PASSIVE checkpoint reports the frames in the WAL as "log" (and copies them, which is fine now).
  const [r] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
  assert.ok(frames !== null && frames >= 40, `frames ${frames}`);
  assert.equal(frames, r?.log);
  db.close();
  assert.equal(walIndexFrames(new Uint8Array(20), little), null);
  assert.equal(walIndexFrames(new Uint8Array(8), little), null);
});

test('a background write goes while the WAL is small or wholly copied, and waits otherwise', () => {
  const cases: [string, { frames: number; backfilled: number } | null, boolean][] = [
    ['no wal-index', null, true],
    ['small WAL, nothing copied', { frames: 2047, backfilled: 0 }, true],
    ['2,048 frames, all copied: this commit starts it over', { frames: 2048, backfilled: 2048 }, true],
    ['2,048 frames, one left to copy', { frames: 2048, backfilled: 2047 }, false],
    ['4,000 frames, half copied', { frames: 4000, backfilled: 2000 }, false],
  ];
  for (const [name, state, expected] of cases) assert.equal(backgroundWriteMayGo(state, 2048), expected, name);
});

test('the wal-index read for the frames copied gives what SQLite reports; a background writer waits until they are all copied', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-wal-watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'log.sqlite');
  const db = openDatabase(path);
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (x TEXT)');
  const insert = db.prepare('INSERT INTO t (x) VALUES (?)');
  db.transaction(() => { for (let i = 0; i < 60; i++) insert.run('x'.repeat(3000)); })();
  const watch = walWatch(path, { belowFrames: 40, maxWaitMs: 60_000, pollMs: 1 });
  t.after(() => watch.close());
  const before = watch.state();
  assert.ok(before !== null && before.frames >= 60 && before.backfilled === 0, JSON.stringify(before));
  // The reader's source runs on its own, as the checkpointer thread embeds it.
  const embedded = (new Function(`return (${walIndexReader.toString()})`)() as typeof walIndexReader)(path, 20, fs);
  assert.equal(walIndexFrames(embedded.read() ?? new Uint8Array(0), endianness() === 'LE'), before.frames);
  embedded.close();
  assert.equal(walIndexState(new Uint8Array(100), endianness() === 'LE'), null);
  // Nothing copied yet: the writer waits, and goes once another connection (the checkpointer's) has copied the WAL.
  const checkpointer = new Database(path);
  t.after(() => checkpointer.close());
  let went = false;
  const waiting = watch.roomForBackgroundWrite().then(() => (went = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(went, false, 'waits while the WAL is full and uncopied');
  const [r] = checkpointer.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
  await waiting;
  assert.deepEqual(watch.state(), { frames: r?.log, backfilled: r?.checkpointed });
  // Its commit now starts the WAL over.
  insert.run('y');
  assert.ok((watch.state()?.frames ?? Infinity) < 10, JSON.stringify(watch.state()));
  // And it never waits longer than told.
  db.transaction(() => { for (let i = 0; i < 60; i++) insert.run('x'.repeat(3000)); })();
  const impatient = walWatch(path, { belowFrames: 40, maxWaitMs: 0 });
  await impatient.roomForBackgroundWrite();
  impatient.close();
  db.close();
});
