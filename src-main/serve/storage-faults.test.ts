import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../engine';
import { Receiver } from '../engine/testing/receiver';
import { SmallDisk } from '../engine/testing/small-disk';
import { runServeToExit, startServe } from './testing/process';
import { LogInspector } from '../engine/store/inspect';

const auth = `Basic ${Buffer.from('wk_faults:').toString('base64')}`;

function writeConfig(dir: string, receiverUrl: string): string {
  const path = join(dir, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      sources: [{ name: 'faults', writeKey: 'wk_faults' }],
      destinations: [{ name: 'r', enabled: true, sources: ['faults'], webhooks: [{ url: receiverUrl }] }],
      delivery: { preset: 'short' },
    }),
  );
  return path;
}

/** A real log with a few rows in it, written and closed by an engine. */
async function makeLog(dataDir: string): Promise<string> {
  const engine = createEngine({ dataDir, log: () => {} });
  engine.applyConfig({ sources: [{ name: 'faults', writeKey: 'wk_faults' }], destinations: [] });
  await engine.stop();
  return join(dataDir, 'hookbench.sqlite');
}

function overwrite(path: string, offset: number, length: number): void {
  const fd = openSync(path, 'r+');
  writeSync(fd, Buffer.alloc(length, 0xa5), 0, length, offset);
  closeSync(fd);
}

/** One line on stderr, no stack trace, exit code 2. */
function assertOneLineExit(run: { code: number | null; stderr: string; stdout: string }, pattern: RegExp): string {
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, '');
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `expected one line, got:\n${run.stderr}`);
  const line = lines[0] as string;
  assert.doesNotMatch(line, /\bat .*\.(ts|js|mjs):\d+/, 'no stack trace');
  assert.match(line, pattern);
  return line;
}

/** Polls /healthz every 10 ms until it says ok (bounded); returns the time it did. */
async function untilHealthy(url: string, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const health = (await (await fetch(`${url}/healthz`)).json()) as { status: string };
    if (health.status === 'ok') return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not healthy within ${timeoutMs} ms`);
}

const post = (url: string, batch: unknown[]): Promise<Response> =>
  fetch(`${url}/v1/batch`, { method: 'POST', headers: { authorization: auth }, body: JSON.stringify({ batch }) });

describe('hookbench serve: a damaged, full or locked data folder at start-up is one line and exit 2', () => {
  test('a file that is not a database (header overwritten): one line naming it, with the exact mv command, exit 2', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-corrupt-'));
    try {
      const file = await makeLog(dataDir);
      overwrite(file, 0, 100);
      const run = await runServeToExit(['--port', '0', '--data-dir', dataDir]);
      const line = assertOneLineExit(run, /database_corrupt|is damaged/);
      assert.match(line, new RegExp(`mv '${file}' '${file}\\.damaged-[0-9TZ-]+'`));
      // The advice works: after the mv, the same command starts on a new, empty log.
      const mv = /(mv '[^']+' '[^']+')/.exec(line)?.[1] as string;
      const [, from, to] = /mv '([^']+)' '([^']+)'/.exec(mv) as RegExpExecArray;
      const { renameSync } = await import('node:fs');
      renameSync(from as string, to as string);
      const again = await startServe(['--port', '0', '--data-dir', dataDir]);
      await untilHealthy(again.url);
      again.child.kill('SIGTERM');
      assert.equal((await again.exited).code, 0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('damaged pages behind an intact header: one line, exit 2, no stack trace', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-corrupt-'));
    try {
      const file = await makeLog(dataDir);
      const pageSize = new LogInspector(file, { readonly: true }).pragma('page_size') as number;
      overwrite(file, pageSize, statSync(file).size - pageSize);
      const run = await runServeToExit(['--port', '0', '--data-dir', dataDir]);
      assertOneLineExit(run, /is damaged.*mv '/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a full disk at start-up (a real tmpfs, filled): one line saying to free space, exit 2; starts once freed', async () => {
    const disk = SmallDisk.mount(16 * 1024 * 1024);
    try {
      const dataDir = join(disk.dir, 'data');
      await makeLog(dataDir);
      disk.fill();
      const run = await runServeToExit(['--port', '0', '--data-dir', dataDir]);
      assertOneLineExit(run, /full.*free disk space on the disk that holds/);
      const fresh = await runServeToExit(['--port', '0', '--data-dir', join(disk.dir, 'fresh')]);
      assertOneLineExit(fresh, /full|cannot/);
      disk.free();
      const started = await startServe(['--port', '0', '--data-dir', dataDir]);
      // Answered only once the start-up code (signal handlers included) has run.
      assert.equal((await untilHealthy(started.url)) > 0, true);
      started.child.kill('SIGTERM');
      const exit = await started.exited;
      assert.equal(exit.code, 0, `${JSON.stringify(exit)} ${started.stderr()}`);
    } finally {
      disk.unmount();
    }
  });

  test('a lock held by another program past a short wait: one line naming it, exit 2 after about 2 s', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-locked-'));
    try {
      const file = await makeLog(dataDir);
      const other = new LogInspector(file);
      other.exec('BEGIN EXCLUSIVE');
      other.run("INSERT INTO settings (key, value) VALUES ('other.program', 'x')");
      let run;
      try {
        run = await runServeToExit(['--port', '0', '--data-dir', dataDir]);
      } finally {
        other.exec('ROLLBACK');
        other.close();
      }
      assertOneLineExit(run, /database_locked|holds a lock on/);
      assert.ok(run.ms < 10_000, `took ${run.ms} ms`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('hookbench serve under storage faults: stays up, recovers by itself (figures printed)', () => {
  test('a second connection holds BEGIN EXCLUSIVE for 3 s: /healthz and ingest answer fast, what was acknowledged is delivered after release', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-lock-'));
    const receiver = await new Receiver().start();
    // The first round fails with Retry-After: 1, so the retry falls due while the lock is held.
    let failures = 3;
    receiver.respond((_req, res) => {
      if (failures-- > 0) {
        res.writeHead(503, { 'retry-after': '1' });
        res.end();
      } else res.end('ok');
    });
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--config', writeConfig(dataDir, receiver.url)]);
    const other = new LogInspector(join(dataDir, 'hookbench.sqlite'));
    try {
      const acked = ['l-1', 'l-2', 'l-3'];
      assert.equal((await post(serve.url, acked.map((messageId) => ({ type: 'track', userId: 'u', event: 'E', messageId })))).status, 200);
      await receiver.waitFor(3);

      other.exec('BEGIN EXCLUSIVE');
      other.run("INSERT INTO settings (key, value) VALUES ('other.program', 'x')");
      const heldAt = Date.now();
      let t0 = Date.now();
      const refused = await post(serve.url, [{ type: 'track', userId: 'u', event: 'E', messageId: 'l-4' }]);
      const ingestMs = Date.now() - t0;
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '5');
      assert.equal(((await refused.json()) as { code: string }).code, 'database_locked');
      const healthTimes: number[] = [];
      while (Date.now() - heldAt < 3000) {
        t0 = Date.now();
        const health = (await (await fetch(`${serve.url}/healthz`)).json()) as { status: string; problem: { code: string } | null };
        healthTimes.push(Date.now() - t0);
        assert.equal(health.status, 'degraded');
        assert.equal(health.problem?.code, 'database_locked');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const worstHealth = Math.max(...healthTimes);
      assert.ok(ingestMs < 1000, `ingest under the lock took ${ingestMs} ms`);
      assert.ok(worstHealth < 300, `/healthz under the lock took up to ${worstHealth} ms`);
      assert.equal(receiver.received.length, 3, 'nothing claimed while locked');

      other.exec('COMMIT');
      const released = Date.now();
      const healthyMs = (await untilHealthy(serve.url)) - released;
      await receiver.waitFor(6);
      const deliveredMs = Date.now() - released;
      t.diagnostic(
        `lock held 3 s: ingest answered 503 in ${ingestMs} ms, /healthz in at most ${worstHealth} ms (${healthTimes.length} calls); after release: healthy in ${healthyMs} ms, all 3 acknowledged delivered in ${deliveredMs} ms`,
      );
      assert.equal((await post(serve.url, [{ type: 'track', userId: 'u', event: 'E', messageId: 'l-4' }])).status, 200);
      await receiver.waitFor(7);
      assert.doesNotMatch(serve.stderr(), /Unhandled|unhandled|\n\s+at /);
      serve.child.kill('SIGTERM');
      assert.equal((await serve.exited).code, 0);
    } finally {
      other.close();
      serve.child.kill('SIGKILL');
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the disk fills up under a running serve (a real tmpfs): 503 disk_full, still up; once space is freed it is healthy and delivers every acknowledged message', async (t) => {
    const disk = SmallDisk.mount(32 * 1024 * 1024);
    const receiver = await new Receiver().start();
    const dataDir = join(disk.dir, 'data');
    mkdirSync(dataDir);
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--config', writeConfig(disk.dir, receiver.url)]);
    try {
      assert.equal((await post(serve.url, [{ type: 'track', userId: 'u', event: 'E', messageId: 'd-0' }])).status, 200);
      await receiver.waitFor(1);
      disk.fill();
      const big = Array.from({ length: 250 }, (_, i) => ({ type: 'track', userId: 'u', event: 'Big', messageId: `d-big-${i}`, properties: { pad: 'x'.repeat(1000) } }));
      const refused = await post(serve.url, big);
      assert.equal(refused.status, 503);
      assert.equal(((await refused.json()) as { code: string }).code, 'disk_full');
      const health = (await (await fetch(`${serve.url}/healthz`)).json()) as { status: string; problem: { code: string; advice: string } };
      assert.equal(health.status, 'degraded');
      assert.match(health.problem.advice, /free disk space/);

      disk.free();
      const freed = Date.now();
      const healthyMs = (await untilHealthy(serve.url)) - freed;
      // The SDK's retry of the refused batch.
      assert.equal((await post(serve.url, big)).status, 200);
      await receiver.waitFor(1 + 250);
      const deliveredMs = Date.now() - freed;
      t.diagnostic(`disk full: after freeing space, healthy in ${healthyMs} ms; the retried 250-message batch delivered ${deliveredMs} ms after freeing`);
      assert.doesNotMatch(serve.stderr(), /Unhandled|unhandled|\n\s+at /);
      serve.child.kill('SIGTERM');
      assert.equal((await serve.exited).code, 0);
    } finally {
      serve.child.kill('SIGKILL');
      await receiver.close();
      disk.unmount();
    }
  });
});
