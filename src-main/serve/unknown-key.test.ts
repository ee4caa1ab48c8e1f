import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Analytics } from '@segment/analytics-node';
import type { ApiResponse, InboundRequest, PageResult } from '../../src-shared/api';
import { startServe } from './testing/process';

/**
 * A write key no source has, sent by real clients to a real `hookbench serve`: answered 200 as
 * Segment answers it, so an SDK neither retries nor blocks its close, while the body says what
 * happened (curl shows it) and Inbound lists every such call as refused. (The browser SDK's path,
 * a 404 from the settings endpoint, is in browser-sdk.test.ts.)
 */
test('an unknown write key: analytics-node closes at once without errors, curl reads the reason, Inbound lists the calls as refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-unknown-key-'));
  const token = 'unknown-key-test-token-0123456789';
  const config = join(dir, 'hookbench.json');
  writeFileSync(config, JSON.stringify({ sources: [{ name: 'backend', writeKey: 'wk_backend' }], destinations: [] }));
  const serve = await startServe(['--config', config, '--data-dir', join(dir, 'data'), '--port', '0'], { env: { HOOKBENCH_TOKEN: token } });
  try {
    const analytics = new Analytics({ writeKey: 'wk_bakcend', host: serve.url, flushAt: 2, flushInterval: 100 });
    const errors: unknown[] = [];
    analytics.on('error', (e) => errors.push(e));
    analytics.identify({ userId: 'u-1', traits: { plan: 'pro' } });
    analytics.track({ userId: 'u-1', event: 'Order Completed' });
    const started = performance.now();
    await analytics.closeAndFlush({ timeout: 10_000 });
    const closeMs = performance.now() - started;
    assert.deepEqual(errors, []);
    assert.ok(closeMs < 3000, `closeAndFlush took ${closeMs.toFixed(0)} ms: nothing was retried`);

    const curl = spawnSync(
      'curl',
      ['-s', '-w', '\n%{http_code}', '-u', 'wk_bakcend:', `${serve.url}/v1/track`, '-d', '{"userId":"u1","event":"Order Completed"}'],
      { encoding: 'utf8', timeout: 10_000 },
    );
    assert.equal(curl.status, 0, curl.stderr);
    const [body, code] = curl.stdout.split('\n');
    assert.equal(code, '200');
    const answer = JSON.parse(body ?? '') as { success: boolean; code: string; message: string };
    assert.equal(answer.success, false);
    assert.equal(answer.code, 'unknown_write_key');
    assert.match(answer.message, /write key "wk_bakcend" belongs to no source, so nothing was stored/);

    const res = await fetch(`${serve.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'listRequests', params: { limit: 50 } }),
    });
    const listed = (await res.json()) as ApiResponse<PageResult<InboundRequest>>;
    assert.ok(listed.ok);
    const refused = listed.result.items.filter((r) => r.errorCode === 'unknown_write_key');
    assert.deepEqual(refused.map((r) => r.path).sort(), ['/v1/batch', '/v1/track']);
    for (const r of refused) {
      assert.equal(r.httpStatus, 200);
      assert.equal(r.accepted, 0);
      assert.match(r.errorText ?? '', /wk_bakcend/);
    }
    assert.match(refused.find((r) => r.path === '/v1/track')?.userAgent ?? '', /^curl\//);
  } finally {
    serve.child.kill('SIGINT');
    await serve.exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
