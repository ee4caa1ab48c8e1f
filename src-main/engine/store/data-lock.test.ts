import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../index';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from './data-lock';

const root = new URL('../../../', import.meta.url).pathname;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'hookbench-lock-'));
}

test('a second engine on the same data folder is refused, naming the owner; after stop the folder is free', async () => {
  const dir = tempDir();
  try {
    const first = createEngine({ dataDir: dir });
    assert.throws(
      () => createEngine({ dataDir: dir }),
      (err: unknown) => err instanceof DataDirLockedError && err.pid === process.pid && err.message.includes(dir),
    );
    await first.stop();
    assert.equal(existsSync(join(dir, LOCK_FILE)), false, 'stop removes the lock');
    const second = createEngine({ dataDir: dir });
    await second.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that is gone (kill -9) is stale and taken over', () => {
  const dir = tempDir();
  try {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, LOCK_FILE), gone.stdout);
    const release = lockDataDir(dir);
    release();
    writeFileSync(join(dir, LOCK_FILE), 'not a pid');
    lockDataDir(dir)();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hookbench serve on a folder another process holds exits with one clear line', async () => {
  const dir = tempDir();
  // A live process that is not us holds the lock.
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    writeFileSync(join(dir, LOCK_FILE), String(holder.pid));
    const run = spawnSync(process.execPath, ['bin/hookbench.mjs', 'serve', '--port', '0', '--data-dir', dir], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.notEqual(run.status, 0);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`another Hookbench \\(pid ${holder.pid}\\) is using the data folder`));
    assert.doesNotMatch(run.stderr, /at .*\.ts:\d+/, 'no stack trace');
  } finally {
    holder.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});
