import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from './database';
import { createGroupCommit, writesInNextCommit } from './group-commit';

test('group commit: the next transaction takes whole writes up to the cap, and always at least one', () => {
  const cases: [number[], number, number][] = [
    [[], 50, 0],
    [[10], 50, 1],
    [[10, 10, 10, 10, 10], 50, 5],
    [[10, 10, 10, 10, 10, 10], 50, 5],
    [[30, 30], 50, 1],
    [[500, 1], 50, 1],
    [[1, 500], 50, 1],
    [[0, 0, 50, 1], 50, 3],
  ];
  for (const [weights, cap, expected] of cases) assert.equal(writesInNextCommit(weights, cap), expected, `${JSON.stringify(weights)} under ${cap}`);
});

test('group commit: writes queued together share one transaction up to the cap; the rest commit in the next turn, after the first are acknowledged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-group-commit-'));
  const path = join(dir, 'hookbench.sqlite');
  const db = openDatabase(path);
  const other = new Database(path, { readonly: true });
  try {
    db.exec('CREATE TABLE IF NOT EXISTS gc_probe (name TEXT)');
    const insert = db.prepare('INSERT INTO gc_probe (name) VALUES (?)');
    const committed = (): string[] => (other.prepare('SELECT name FROM gc_probe ORDER BY rowid').all() as { name: string }[]).map((r) => r.name);
    const commit = createGroupCommit(db, { maxWeight: 50 });
    const write = (name: string, weight: number): Promise<string> =>
      commit(() => {
        insert.run(name);
        return name;
      }, weight);

    // Under the cap: when the first is acknowledged, all three are on disk (one transaction).
    const small = [write('a', 10), write('b', 10), write('c', 10)];
    assert.equal(await small[0], 'a');
    assert.deepEqual(committed(), ['a', 'b', 'c']);
    await Promise.all(small);

    // Over it: the first two are acknowledged while the third is not yet written.
    const big = [write('d', 30), write('e', 20), write('f', 30)];
    assert.equal(await big[0], 'd');
    assert.deepEqual(committed(), ['a', 'b', 'c', 'd', 'e']);
    assert.equal(await big[2], 'f');
    assert.deepEqual(committed(), ['a', 'b', 'c', 'd', 'e', 'f']);

    // One failing write rolls back alone, in either transaction.
    const mixed = [
      write('g', 40),
      commit(() => {
        insert.run('lost');
        throw new Error('bad item');
      }, 5),
      write('h', 40),
    ];
    const settled = await Promise.allSettled(mixed);
    assert.deepEqual(
      settled.map((s) => s.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(committed(), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
  } finally {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('group commit: a write that throws rolls back the shared transaction, and the others of its batch commit again, each alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-group-commit-'));
  const db = openDatabase(join(dir, 'hookbench.sqlite'));
  try {
    db.exec('CREATE TABLE IF NOT EXISTS gc_probe (name TEXT)');
    const insert = db.prepare('INSERT INTO gc_probe (name) VALUES (?)');
    const runs = new Map<string, number>();
    const commit = createGroupCommit(db, { maxWeight: 50 });
    const write = (name: string, fail = false): Promise<string> =>
      commit(() => {
        runs.set(name, (runs.get(name) ?? 0) + 1);
        insert.run(name);
        if (fail) throw new Error(`bad ${name}`);
        return name;
      });
    const settled = await Promise.allSettled([write('a'), write('b', true), write('c')]);
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
      ['a', 'bad b', 'c'],
    );
    // a ran, then b threw (c never ran in the shared transaction); then each ran alone.
    assert.deepEqual(Object.fromEntries(runs), { a: 2, b: 2, c: 1 });
    assert.deepEqual(
      (db.prepare('SELECT name FROM gc_probe ORDER BY rowid').all() as { name: string }[]).map((r) => r.name),
      ['a', 'c'],
    );
    // A batch that commits runs each write once.
    runs.clear();
    await Promise.all([write('d'), write('e')]);
    assert.deepEqual(Object.fromEntries(runs), { d: 1, e: 1 });
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
