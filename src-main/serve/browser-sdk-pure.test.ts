import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiHostOf, bundleFor, corsHeaders, preflightHeaders, sdkRouteOf } from './browser-sdk';
import { sdkSettingsFor } from '../engine/ingest/sdk-settings';
import { ingestPath } from '../engine/ingest/handler';

test('sdkRouteOf: the settings, the snippet bundle and chunk names; nothing else, never a path out', () => {
  const rows: [string, ReturnType<typeof sdkRouteOf>][] = [
    ['/v1/projects/wk_1/settings', { kind: 'settings', writeKey: 'wk_1' }],
    ['/v1/projects/wk_1/settings?x=1', { kind: 'settings', writeKey: 'wk_1' }],
    ['//v1/projects/wk%20a/settings/', { kind: 'settings', writeKey: 'wk a' }],
    ['/v1/projects/%2F/settings', null],
    ['/v1/projects/%E0%A4%A/settings', null],
    ['/v1/projects//settings', null],
    ['/analytics.js/v1/wk_1/analytics.min.js', { kind: 'bundle', writeKey: 'wk_1' }],
    ['/analytics.js/v1/wk_1/analytics.js', { kind: 'bundle', writeKey: 'wk_1' }],
    ['/analytics.js/v1/wk_1/other.js', null],
    ['/analytics-next/bundles/auto-track.bundle.f131ce01a05e3a33a8c1.js', { kind: 'chunk', file: 'auto-track.bundle.f131ce01a05e3a33a8c1.js' }],
    ['/analytics-next/bundles/../../etc/passwd.js', null],
    ['/analytics-next/bundles/..js', null],
    ['/analytics-next/bundles/%2e%2e%2fx.js', null],
    ['/analytics-next/bundles/a/b.js', null],
    ['/analytics-next/bundles/x.js.map', null],
    ['/v1/track', null],
  ];
  for (const [url, expected] of rows) assert.deepEqual(sdkRouteOf(url), expected, url);
});

test('corsHeaders: echoes a serialized origin (and null), never credentials; nothing without an Origin', () => {
  assert.deepEqual(corsHeaders(undefined), {});
  assert.deepEqual(corsHeaders('http://localhost:3000'), {
    'access-control-allow-origin': 'http://localhost:3000',
    'access-control-expose-headers': 'Retry-After',
    vary: 'Origin',
  });
  assert.equal(corsHeaders('null')['access-control-allow-origin'], 'null');
  assert.equal(corsHeaders('https://app.example.com')['access-control-allow-origin'], 'https://app.example.com');
  for (const bad of ['http://a.com/path', 'http://a.com\r\nx: y', 'javascript:alert(1)', '', 'http://u@a.com']) {
    assert.deepEqual(corsHeaders(bad), {}, bad);
  }
  assert.ok(!Object.keys(corsHeaders('http://a.com')).includes('access-control-allow-credentials'));
});

test('preflightHeaders: the route methods, the asked headers when well formed, else the ones analytics.js sends', () => {
  const asked = preflightHeaders('http://localhost:3000', 'authorization, content-type, x-retry-count', 'POST, OPTIONS');
  assert.equal(asked['access-control-allow-headers'], 'authorization, content-type, x-retry-count');
  assert.equal(asked['access-control-allow-methods'], 'POST, OPTIONS');
  assert.equal(asked['access-control-allow-origin'], 'http://localhost:3000');
  assert.equal(asked['access-control-max-age'], '600');
  const odd = preflightHeaders('http://localhost:3000', 'a\r\nb', 'POST, OPTIONS');
  assert.equal(odd['access-control-allow-headers'], 'Authorization, Content-Type, Content-Encoding, X-Retry-Count');
  assert.equal(preflightHeaders(undefined, undefined, 'GET')['access-control-allow-origin'], undefined);
});

test('apiHostOf: the Host as given when it is a plain host[:port], else the fallback', () => {
  assert.equal(apiHostOf('localhost:4545', '127.0.0.1:4545'), 'localhost:4545');
  assert.equal(apiHostOf('[::1]:4545', 'x'), '[::1]:4545');
  assert.equal(apiHostOf(undefined, '127.0.0.1:4545'), '127.0.0.1:4545');
  assert.equal(apiHostOf('a.com/evil', '127.0.0.1:4545'), '127.0.0.1:4545');
  assert.equal(apiHostOf('a.com"x', '127.0.0.1:4545'), '127.0.0.1:4545');
});

test('bundleFor: the write key embedded as the CDN does, safely quoted, after the preamble that names the CDN', () => {
  const standalone = 'try{window.analyticsWriteKey="__WRITE_KEY__"}catch(t){}';
  assert.equal(bundleFor(standalone, 'wk_1').endsWith('try{window.analyticsWriteKey="wk_1"}catch(t){}'), true);
  const hostile = bundleFor(standalone, '"</script><script>alert(1)</script>\u2028');
  assert.ok(!hostile.includes('</script>'));
  assert.ok(hostile.includes('"\\"\\u003c/script>\\u003cscript>alert(1)\\u003c/script>\\u2028"'));
  assert.ok(hostile.startsWith('(function(){'));
  assert.match(hostile, /a\._cdn=new URL\(s\.src\)\.origin/);
});

test('sdkSettingsFor: the Segment.io integration points back at the host asked, over http, with no metrics', () => {
  const s = sdkSettingsFor('wk_1', '127.0.0.1:4545');
  assert.deepEqual(s.integrations['Segment.io'].apiKey, 'wk_1');
  assert.equal(s.integrations['Segment.io'].apiHost, '127.0.0.1:4545/v1');
  assert.equal(s.integrations['Segment.io'].protocol, 'http');
  assert.deepEqual(Object.keys(s.integrations), ['Segment.io'], 'no other integration: no device-mode destination to load');
  assert.equal(s.metrics.sampleRate, 0);
  assert.deepEqual(s.remotePlugins, []);
});

test('ingestPath: the one-letter paths browser and mobile SDKs post to', () => {
  for (const p of ['/v1/t', '/v1/i', '/v1/p', '/v1/s', '/v1/g', '/v1/a', '/v1/b', '/v1/track', '/v1/batch']) assert.equal(ingestPath(p), p);
  for (const p of ['/v1/x', '/v1/m', '/v1/projects/k/settings']) assert.equal(ingestPath(p), null);
});
