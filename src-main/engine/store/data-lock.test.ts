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
    // Its main thread shows Z a moment before its other threads have let go of its files: the
    // zombie's pid counts as dead, so the start waits out that moment instead of being refused.
    const release = lockDataDir(dir);
    assert.equal(state(), 'Z', 'taken while the holder is still a zombie');
    release();
  } finally {
    parent.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A contender: loads the lock module, says it is ready, and then, for each folder, calls
 * lockDataDir at the instant the test gives (spinning the last milliseconds, so that every
 * contender calls within the same few microseconds) and reports what happened. A lock it got is
 * held until the test says `release` for that round, once every contender has reported: a
 * contender slowed down by a busy machine then still meets a held lock, so a second owner can only
 * mean two at once.
 */
const CONTENDER = `
import('./src-main/engine/store/data-lock.ts').then(async (m) => {
  const dirs = JSON.parse(process.argv[1]);
  const step = Number(process.argv[2]);
  const lines = [];
  let wake = null;
  require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => { lines.push(l); if (wake) wake(); });
  const next = async () => { while (lines.length === 0) await new Promise((res) => { wake = res; }); return lines.shift(); };
  process.stdout.write('ready' + String.fromCharCode(10));
  const t0 = Number(await next());
  for (let round = 0; round < dirs.length; round++) {
    const at = t0 + round * step;
    await new Promise((res) => setTimeout(res, Math.max(0, at - Date.now() - 15)));
    while (Date.now() < at) {}
    let release = null;
    let outcome;
    try {
      release = m.lockDataDir(dirs[round]);
      outcome = 'owner';
    } catch (e) {
      outcome = e.pid !== undefined ? 'refused ' + e.pid : 'error ' + e.message;
    }
    process.stdout.write(JSON.stringify({ round, pid: process.pid, outcome }) + String.fromCharCode(10));
    if (release) {
      while ((await next()) !== 'release ' + round) {}
      release();
    }
  }
  process.exit(0);
});`;

async function contend(processes: number, rounds: number): Promise<{ round: number; pid: number; outcome: string }[][]> {
  const dirs = Array.from({ length: rounds }, tempDir);
  // Far enough apart that a round's owner has been told to release before the next round starts.
  const step = 400;
  const results: { round: number; pid: number; outcome: string }[] = [];
  const children: ChildProcess[] = [];
  try {
    let ready = 0;
    await new Promise<void>((allReady, failed) => {
      for (let i = 0; i < processes; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', '-e', CONTENDER, JSON.stringify(dirs), String(step)], {
          cwd: root,
          stdio: ['pipe', 'pipe', 'inherit'],
        });
        children.push(child);
        // A contender may exit between the check above and the write reaching it.
        child.stdin?.on('error', () => {});
        child.once('exit', (code) => code !== 0 && failed(new Error(`a contender exited with ${code}`)));
        createInterface({ input: child.stdout! }).on('line', (line) => {
          if (line === 'ready') {
            if (++ready === processes) allReady();
            return;
          }
          const result = JSON.parse(line) as (typeof results)[number];
          results.push(result);
          const round = results.filter((r) => r.round === result.round);
          if (round.length < processes) return;
          // Everyone has tried: the owners may let go. A contender that lost the last round has
          // already exited, so only live ones are told.
          for (const child of children) if (child.exitCode === null && child.stdin?.writable) child.stdin.write(`release ${result.round}\n`);
        });
      }
    });
    const t0 = Date.now() + 200;
    for (const child of children) child.stdin?.write(`${t0}\n`);
    await Promise.all(children.map((c) => new Promise((done) => c.once('exit', done))));
    return dirs.map((_, round) => results.filter((r) => r.round === round));
  } finally {
    for (const c of children) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

for (const processes of [4, 8]) {
  test(`${processes} processes taking the lock in the same instant: exactly one owner, the others refused naming it, 25 times over`, async () => {
    const rounds = await contend(processes, 25);
    rounds.forEach((outcomes, round) => {
      assert.equal(outcomes.length, processes, `round ${round}: every contender reported`);
      const owners = outcomes.filter((o) => o.outcome === 'owner');
      assert.equal(owners.length, 1, `round ${round}: ${outcomes.map((o) => o.outcome).join(', ')}`);
      for (const other of outcomes.filter((o) => o.outcome !== 'owner')) assert.equal(other.outcome, `refused ${owners[0]?.pid}`, `round ${round}`);
    });
  });
}

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
