import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createEngine } from '../index';
import { DataDirLockedError, LOCK_FILE, PID_FILE, lockDataDir } from './data-lock';

const root = new URL('../../../', import.meta.url).pathname;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'hookbench-lock-'));
}

/** A script that takes the folder's lock, prints its pid, and holds the lock until killed. */
const HOLDER = `
import('./src-main/engine/store/data-lock.ts').then((m) => {
  m.lockDataDir(process.argv[1]);
  process.stdout.write(process.pid + '\\n');
  setInterval(() => {}, 60000);
});`;

/** Resolves with the first line the child prints (the holder's pid once it holds the lock). */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before locking`)));
  });
}

function holdLock(dir: string): { child: ChildProcess; pid: Promise<number> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', HOLDER, dir], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return { child, pid: firstLine(child).then(Number) };
}

const lockedBy = (pid: number) => (err: unknown) => err instanceof DataDirLockedError && err.pid === pid;

test('a second engine on the same data folder is refused, naming the owner; after stop the folder is free', async () => {
  const dir = tempDir();
  try {
    const first = createEngine({ dataDir: dir });
    assert.throws(
      () => createEngine({ dataDir: dir }),
      (err: unknown) => err instanceof DataDirLockedError && err.pid === process.pid && err.message.includes(dir),
    );
    assert.equal(readFileSync(join(dir, PID_FILE), 'utf8'), String(process.pid));
    await first.stop();
    assert.equal(existsSync(join(dir, PID_FILE)), false, 'stop removes the pid file');
    const second = createEngine({ dataDir: dir });
    await second.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('another process holding the lock is named; once it is killed (-9) the lock is free at once', async () => {
  const dir = tempDir();
  const holder = holdLock(dir);
  try {
    const pid = await holder.pid;
    assert.throws(() => lockDataDir(dir), lockedBy(pid));
    const exited = new Promise((resolve) => holder.child.once('exit', resolve));
    holder.child.kill('SIGKILL');
    await exited;
    // Its pid file is still there, naming a dead process: it decides nothing.
    assert.equal(readFileSync(join(dir, PID_FILE), 'utf8'), String(pid));
    const release = lockDataDir(dir);
    assert.equal(readFileSync(join(dir, PID_FILE), 'utf8'), String(process.pid));
    release();
  } finally {
    holder.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a killed owner that is still a zombie (not yet reaped) holds nothing', async () => {
  const dir = tempDir();
  // `exec sleep` turns the shell into a parent that never reaps the holder: killed, it stays a zombie.
  const parent = spawn('sh', ['-c', `"${process.execPath}" --import tsx -e "$HOLDER" "$DIR" & exec sleep 60`], {
    cwd: root,
    env: { ...process.env, HOLDER, DIR: dir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const pid = Number(await firstLine(parent));
    assert.throws(() => lockDataDir(dir), lockedBy(pid));
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 5_000;
    const state = (): string => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').charAt(0);
    while (state() !== 'Z' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.equal(state(), 'Z', 'the holder is a zombie');
    // Its main thread is reaped-ready a moment before its other threads have let go of its files.
    const until = Date.now() + 1_000;
    let release: (() => void) | null = null;
    while (release === null) {
      try {
        release = lockDataDir(dir);
      } catch (err) {
        if (!(err instanceof DataDirLockedError) || Date.now() > until) throw err;
        await new Promise((r) => setTimeout(r, 2));
      }
    }
    assert.equal(state(), 'Z', 'taken while the holder is still a zombie');
    release();
  } finally {
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock file left by an older Hookbench (its pid as text) is honoured while that pid lives, replaced once it is gone', () => {
  const dir = tempDir();
  const alive = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  try {
    writeFileSync(join(dir, LOCK_FILE), String(alive.pid));
    assert.throws(() => lockDataDir(dir), lockedBy(alive.pid as number));
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(join(dir, LOCK_FILE), gone.stdout);
    lockDataDir(dir)();
    writeFileSync(join(dir, LOCK_FILE), 'not a pid, not a database, and longer than a hundred bytes '.repeat(3));
    lockDataDir(dir)();
  } finally {
    alive.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the lock and pid files are private (0600)', () => {
  const dir = tempDir();
  try {
    const release = lockDataDir(dir);
    assert.equal(statSync(join(dir, LOCK_FILE)).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, PID_FILE)).mode & 0o777, 0o600);
    release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hookbench serve on a folder another process holds exits 2 with one clear line naming it', async () => {
  const dir = tempDir();
  const holder = holdLock(dir);
  try {
    const pid = await holder.pid;
    const run = spawnSync(process.execPath, ['bin/hookbench.mjs', 'serve', '--port', '0', '--data-dir', dir], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, new RegExp(`another Hookbench \\(pid ${pid}\\) is using the data folder`));
    assert.doesNotMatch(run.stderr, /at .*\.ts:\d+/, 'no stack trace');
  } finally {
    holder.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
