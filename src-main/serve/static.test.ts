import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveUiFile, serveUi } from './static';

test('UI paths map inside the root only', () => {
  const root = '/srv/ui';
  assert.equal(resolveUiFile(root, '/'), '/srv/ui/index.html');
  assert.equal(resolveUiFile(root, '/?token=abc'), '/srv/ui/index.html');
  assert.equal(resolveUiFile(root, '/assets/index-1.js'), '/srv/ui/assets/index-1.js');
  for (const bad of ['/assets/../../etc/passwd', '/assets/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fsecret', '/assets/a\\..\\b', '/assets/%00x', '/assets/', '/assets//x', '/other.js', '/assets/%zz']) {
    assert.equal(resolveUiFile(root, bad), null, bad);
  }
});

function get(base: string, path: string): Promise<{ status: number; type: string; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    // node:http sends the path as written, where fetch would normalize the dots away.
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves index and assets with their types, refuses traversal, and explains a missing build', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-ui-'));
  const root = join(dir, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><p>ui</p>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'top secret');
  let uiRoot = root;
  const server = createServer((req, res) => void serveUi(uiRoot, req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const index = await get(base, '/?token=t');
    assert.equal(index.status, 200);
    assert.match(index.type, /^text\/html/);
    assert.match(index.body, /<p>ui<\/p>/);
    const js = await get(base, '/assets/app.js');
    assert.equal(js.status, 200);
    assert.match(js.type, /^text\/javascript/);
    for (const path of ['/assets/../../secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/assets/..%2F..%2Fsecret.txt', '/assets/missing.js', '/assets']) {
      const r = await get(base, path);
      assert.equal(r.status, 404, path);
      assert.doesNotMatch(r.body, /top secret/);
    }
    uiRoot = join(dir, 'not-built');
    const missing = await get(base, '/');
    assert.equal(missing.status, 200);
    assert.match(missing.body, /npm run build/);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  }
});
