/**
 * A flood of refused calls cannot grow the data folder: 200 calls each carrying a 490 KB unknown
 * write key, against a real `hookbench serve`, measured on disk before and after.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServe } from './testing/process';
import { REFUSED_ROWS_PER_SECOND, SUMMARY_CODE } from '../engine/store/refused-log';
import { LogInspector } from '../engine/store/inspect';

const folderBytes = (dir: string): number => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
const CALLS = 200;
const PARALLEL = 8;

test(`${CALLS} calls with a 490 KB unknown write key grow the folder by well under the WAL limit, and every one is accounted for`, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-flood-'));
  const serve = await startServe(['--data-dir', dir, '--port', '0']);
  try {
    const body = JSON.stringify({ writeKey: 'k'.repeat(490_000), batch: [] });
    const before = folderBytes(dir);
    const started = performance.now();
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < CALLS) {
          next++;
          const res = await fetch(`${serve.url}/v1/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          statuses.push(res.status);
          const answer = (await res.json()) as { message?: string };
          assert.ok((answer.message ?? '').length < 300, 'the answer does not echo the whole key');
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const after = folderBytes(dir);
    assert.deepEqual([...new Set(statuses)], [200], 'an unknown key is answered 200, as Segment answers it');
    const grown = after - before;
    t.diagnostic(`${CALLS} calls in ${seconds.toFixed(1)} s; folder ${before} → ${after} bytes (+${grown})`);
    assert.ok(grown < 4 * 1024 * 1024, `the folder grew by ${grown} bytes`);
    serve.child.kill('SIGINT');
    assert.equal((await serve.exited).code, 0);

    const db = LogInspector.of(dir, { readonly: true });
    try {
      const rows = db.all<{ error_code: string; error_text: string; len: number }>('SELECT error_code, error_text, length(error_text) AS len FROM requests');
      const single = rows.filter((r) => r.error_code === 'unknown_write_key');
      const summaries = rows.filter((r) => r.error_code === SUMMARY_CODE);
      const counted = summaries.reduce((n, r) => n + Number(/^(\d+) more refused/.exec(r.error_text)?.[1] ?? 0), 0);
      assert.equal(single.length + counted, CALLS, 'every call is a row or counted in a summary');
      assert.ok(single.length <= REFUSED_ROWS_PER_SECOND * (Math.ceil(seconds) + 1), `${single.length} single rows`);
      assert.ok(Math.max(...rows.map((r) => r.len)) < 1200, 'each stored text is at most about 1 KB');
      t.diagnostic(`${single.length} rows stored one by one, ${counted} counted in ${summaries.length} summary rows`);
    } finally {
      db.close();
    }
  } finally {
    serve.child.kill('SIGINT');
    await serve.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
