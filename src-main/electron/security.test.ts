import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RendererLocation } from './ipc-guard';
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy, externalUrl, permissionGranted, webPreferences, windowOptions, withContentSecurityPolicy } from './security';

const directives = (policy: string): Map<string, string[]> =>
  new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name = '', ...values]) => [name, values]));

describe('window options', () => {
  test('isolation, sandbox and web security on; Node, webviews and insecure content off', () => {
    const options = windowOptions('/app/out/preload/preload.cjs');
    const prefs = options.webPreferences;
    assert.equal(prefs.preload, '/app/out/preload/preload.cjs');
    assert.equal(prefs.contextIsolation, true);
    assert.equal(prefs.sandbox, true);
    assert.equal(prefs.webSecurity, true);
    assert.equal(prefs.nodeIntegration, false);
    assert.equal(prefs.nodeIntegrationInWorker, false);
    assert.equal(prefs.nodeIntegrationInSubFrames, false);
    assert.equal(prefs.webviewTag, false);
    assert.equal(prefs.allowRunningInsecureContent, false);
    assert.equal(prefs.experimentalFeatures, false);
    assert.deepEqual(webPreferences('/p'), { ...prefs, preload: '/p' });
  });
});

describe('content security policy', () => {
  for (const [name, policy] of [
    ['built', CONTENT_SECURITY_POLICY],
    ['dev server', devContentSecurityPolicy('http://localhost:5173/')],
  ] as const) {
    test(`${name}: scripts only from the app itself, never inline or eval'd; no plugins, no base, no forms`, () => {
      const d = directives(policy);
      assert.deepEqual(d.get('script-src'), ["'self'"]);
      assert.deepEqual(d.get('default-src'), ["'self'"]);
      assert.deepEqual(d.get('object-src'), ["'none'"]);
      assert.deepEqual(d.get('base-uri'), ["'none'"]);
      assert.deepEqual(d.get('form-action'), ["'none'"]);
      assert.ok(!policy.includes("'unsafe-inline'") && !policy.includes("'unsafe-eval'"), policy);
    });
  }

  test('the dev server may push updates over its own WebSocket, nothing else is added', () => {
    assert.deepEqual(directives(devContentSecurityPolicy('http://localhost:5173/')).get('connect-src'), ["'self'", 'ws://localhost:5173']);
    assert.equal(
      devContentSecurityPolicy('http://localhost:5173/').replace(" ws://localhost:5173", ''),
      CONTENT_SECURITY_POLICY,
    );
  });

  test('the header policy agrees with the meta tag the built renderer carries', () => {
    const html = readFileSync(new URL('../../src-renderer/index.html', import.meta.url), 'utf8');
    const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1];
    assert.ok(meta, 'index.html has a CSP meta tag');
    const header = directives(CONTENT_SECURITY_POLICY);
    // frame-ancestors is ignored in a meta tag, so the header alone carries it.
    header.delete('frame-ancestors');
    assert.deepEqual(directives(meta), header);
  });

  test('our policy replaces any the server sent, whatever the header name case; other headers stay', () => {
    const out = withContentSecurityPolicy({ 'content-security-policy': ["default-src *"], 'Content-Type': ['text/html'] });
    assert.deepEqual(out, { 'Content-Type': ['text/html'], 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] });
    assert.deepEqual(withContentSecurityPolicy(undefined, 'x'), { 'Content-Security-Policy': ['x'] });
  });
});

describe('links opened outside', () => {
  const cases: [string, string | null][] = [
    ['https://segment.com/docs/', 'https://segment.com/docs/'],
    ['http://127.0.0.1:4545/healthz', 'http://127.0.0.1:4545/healthz'],
    ['HTTPS://Example.COM/a b', 'https://example.com/a%20b'],
    ['file:///etc/passwd', null],
    ['javascript:alert(1)', null],
    ['smb://share/x', null],
    ['ms-settings:privacy', null],
    ['data:text/html,hi', null],
    ['https://user:pass@example.com/', null],
    ['/relative', null],
    ['', null],
  ];
  for (const [url, expected] of cases) {
    test(`${JSON.stringify(url)} → ${expected ?? 'dropped'}`, () => assert.equal(externalUrl(url), expected));
  }
});

describe('permissions', () => {
  const renderer: RendererLocation = { kind: 'file', indexUrl: 'file:///app/out/renderer/index.html' };
  const ours = 'file:///app/out/renderer/index.html';
  const cases: [string, string | undefined, boolean][] = [
    ['clipboard-sanitized-write', ours, true],
    ['clipboard-sanitized-write', 'https://evil.example/', false],
    ['clipboard-sanitized-write', undefined, false],
    ['clipboard-read', ours, false],
    ['media', ours, false],
    ['geolocation', ours, false],
    ['notifications', ours, false],
    ['openExternal', ours, false],
    ['fullscreen', ours, false],
    ['unknown', ours, false],
  ];
  for (const [permission, url, expected] of cases) {
    test(`${permission} from ${url ?? 'nowhere'} → ${expected ? 'granted' : 'refused'}`, () => {
      assert.equal(permissionGranted(permission, url, renderer), expected);
    });
  }
});
