import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startServe } from './testing/process';

const root = new URL('../../', import.meta.url).pathname;

interface Outcome {
  pid: number;
  listening: boolean;
  url: string | null;
  code: number | null;
  stderr: string;
}

/** One `hookbench serve` start: listening (then left running) or exited, with what it said. */
function start(child: ChildProcess): Promise<Outcome> {
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const url = /^Hookbench listening on (\S+)$/.exec(line)?.[1];
      if (url) resolve({ pid: child.pid as number, listening: true, url, code: null, stderr });
    });
    child.once('exit', (code) => resolve({ pid: child.pid as number, listening: false, url: null, code, stderr }));
  });
}

function spawnServe(dataDir: string): ChildProcess {
  return spawn(process.execPath, ['bin/hookbench.mjs', 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
}

test('4 or 8 hookbench serve started at once on one folder: exactly one listens, the others exit 2 naming its pid', async () => {
  // Four rounds of whole processes; the lock-level test in store/data-lock.test.ts races 25 rounds more sharply.
  const rounds = [4, 8, 4, 8];
  for (const [round, n] of rounds.entries()) {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-race-'));
    const children = Array.from({ length: n }, () => spawnServe(dataDir));
    try {
      const outcomes = await Promise.all(children.map(start));
      const owners = outcomes.filter((o) => o.listening);
      assert.equal(owners.length, 1, `round ${round} (${n} starts): ${owners.length} listening`);
      const owner = owners[0] as Outcome;
      for (const other of outcomes.filter((o) => !o.listening)) {
        assert.equal(other.code, 2, `round ${round}: a refused start exits 2 (${other.stderr})`);
        assert.match(other.stderr, new RegExp(`another Hookbench \\(pid ${owner.pid}\\) is using the data folder`));
      }
    } finally {
      await stopAll(children);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

test('a start right after kill -9 of the owner listens at once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-restart-'));
  try {
    for (let i = 0; i < 3; i++) {
      const owner = await startServe(['--port', '0', '--data-dir', dataDir]);
      owner.child.kill('SIGKILL');
      // Not waiting for the exit to be reaped: the next start races the kernel tearing the owner down.
      const next = spawnServe(dataDir);
      const outcome = await start(next);
      assert.equal(outcome.listening, true, `restart ${i} listens (${outcome.stderr})`);
      await stopAll([owner.child, next]);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('under umask 022 the data folder is 0700 and its files 0600; looser modes left by an older version are tightened', async () => {
  const base = mkdtempSync(join(tmpdir(), 'hookbench-modes-'));
  const fresh = join(base, 'fresh');
  const loose = join(base, 'loose');
  try {
    // An older version's folder: world-readable folder and database.
    const older = await startServe(['--port', '0', '--data-dir', loose]);
    older.child.kill('SIGTERM');
    await older.exited;
    chmodSync(loose, 0o755);
    chmodSync(join(loose, 'hookbench.sqlite'), 0o644);
    writeFileSync(join(loose, 'hookbench.sqlite-wal'), '', { mode: 0o644 });

    for (const dataDir of [fresh, loose]) {
      const child = spawn('sh', ['-c', 'umask 022 && exec "$NODE" bin/hookbench.mjs serve --port 0 --data-dir "$DIR"'], {
        cwd: root,
        env: { ...process.env, NODE: process.execPath, DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const outcome = await start(child);
      try {
        assert.equal(outcome.listening, true, outcome.stderr);
        const url = outcome.url as string;
        // A write, so that the WAL and shared-memory files exist too.
        const res = await fetch(`${url}/v1/batch`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from('wk_none:').toString('base64')}` },
          body: JSON.stringify({ batch: [{ type: 'track', userId: 'u', event: 'E' }] }),
        });
        await res.arrayBuffer();
        const mode = (name: string): string => (statSync(join(dataDir, name)).mode & 0o777).toString(8);
        assert.equal(mode('.'), '700', `${dataDir} itself`);
        for (const name of ['hookbench.sqlite', 'hookbench.sqlite-wal', 'hookbench.sqlite-shm', 'hookbench.lock', 'hookbench.pid']) {
          assert.equal(mode(name), '600', `${dataDir}: ${name}`);
        }
      } finally {
        await stopAll([child]);
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
