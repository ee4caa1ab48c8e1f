import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarness, WRITE_KEY } from '../engine/testing/harness';
import { analyticsNextDir } from './browser-sdk';
import { copyAnalyticsNext } from '../../scripts/copy-analytics-next.mjs';

/** A raw request, so that Host can be anything (fetch does not let a caller set it). */
function raw(url: string, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the SDK routes over HTTP: preflight, CORS on answers, Host check first, settings, bundle and chunks', async () => {
  const h = await startHarness({ sources: [{ name: 'web', writeKey: WRITE_KEY }], destinations: [] });
  try {
    const url = h.server.url;
    const host = new URL(url).host;
    const origin = 'http://localhost:3000';

    const preflight = await raw(url, 'OPTIONS', '/v1/t', { host, origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], origin);
    assert.equal(preflight.headers['access-control-allow-methods'], 'POST, OPTIONS');
    assert.equal(preflight.headers['access-control-allow-headers'], 'authorization,content-type');
    assert.equal(preflight.headers['access-control-allow-credentials'], undefined);
    const settingsPreflight = await raw(url, 'OPTIONS', `/v1/projects/${WRITE_KEY}/settings`, { host, origin, 'access-control-request-method': 'GET' });
    assert.equal(settingsPreflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
    assert.equal(h.inspect.count('requests'), 0, 'a preflight is not a call');

    // A DNS-rebound name is refused before anything else, preflight and settings included.
    for (const [method, path] of [['OPTIONS', '/v1/t'], ['GET', `/v1/projects/${WRITE_KEY}/settings`], ['GET', `/analytics.js/v1/${WRITE_KEY}/analytics.min.js`]] as const) {
      const rebound = await raw(url, method, path, { host: 'evil.example:4545', origin: 'http://evil.example:4545' });
      assert.equal(rebound.status, 403, `${method} ${path}`);
      assert.match(rebound.body, /forbidden_host/);
    }

    const call = await fetch(`${url}/v1/t`, {
      method: 'POST',
      headers: { origin, 'content-type': 'text/plain', authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}` },
      body: JSON.stringify({ type: 'track', userId: 'u', event: 'E' }),
    });
    assert.equal(call.status, 200);
    assert.equal(call.headers.get('access-control-allow-origin'), origin);
    assert.equal(call.headers.get('access-control-expose-headers'), 'Retry-After');

    const settings = await raw(url, 'GET', `/v1/projects/${WRITE_KEY}/settings`, { host: `localhost:${new URL(url).port}`, origin });
    assert.equal(settings.status, 200);
    assert.equal(settings.headers['access-control-allow-origin'], origin);
    const parsed = JSON.parse(settings.body) as { integrations: Record<string, { apiHost: string; apiKey: string; protocol: string }> };
    assert.deepEqual(parsed.integrations['Segment.io'], { ...parsed.integrations['Segment.io'], apiKey: WRITE_KEY, apiHost: `localhost:${new URL(url).port}/v1`, protocol: 'http' }, 'points back at the name the SDK used');
    assert.equal((await fetch(`${url}/v1/projects/${WRITE_KEY}/settings`, { method: 'POST' })).status, 405);

    const bundle = await fetch(`${url}/analytics.js/v1/${WRITE_KEY}/analytics.min.js`);
    assert.equal(bundle.status, 200);
    assert.match(bundle.headers.get('content-type') ?? '', /^text\/javascript/);
    const text = await bundle.text();
    assert.ok(text.includes(`window.analyticsWriteKey="${WRITE_KEY}"`), 'the write key is embedded');
    const head = await fetch(`${url}/analytics.js/v1/${WRITE_KEY}/analytics.min.js`, { method: 'HEAD' });
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(text)));
    const chunk = readdirSync(analyticsNextDir() ?? '').find((f) => /^auto-track\.bundle\.[0-9a-f]+\.js$/.test(f)) ?? 'auto-track.bundle.missing.js';
    assert.equal((await fetch(`${url}/analytics-next/bundles/${chunk}`)).status, 200, chunk);
    assert.equal((await fetch(`${url}/analytics-next/bundles/nothing.bundle.0.js`)).status, 404);
  } finally {
    await h.close();
  }
});

test('analyticsNextDir: the installed package, else the build copy, else none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-ajs-'));
  try {
    const notInstalled = (): string => {
      throw new Error('Cannot find module');
    };
    assert.equal(analyticsNextDir(notInstalled, join(dir, 'copy')), null);
    const names = copyAnalyticsNext(join(dir, 'copy'));
    assert.ok(names.includes('standalone.js') && names.some((n) => n.startsWith('auto-track.')), names.join(', '));
    assert.ok(!names.some((n) => n.endsWith('.map') || n.endsWith('.gz')));
    assert.equal(analyticsNextDir(notInstalled, join(dir, 'copy')), join(dir, 'copy'));
    writeFileSync(join(dir, 'standalone.js'), '');
    assert.equal(analyticsNextDir(() => dir, join(dir, 'copy')), dir, 'the installed package first');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
