import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkApiRequest, checkIngestHost, generateToken, isLoopbackName, parseHost, presentedToken, tokenFromEnv, tokensMatch, type ApiRequestHeaders, type AuthContext } from './auth';

const TOKEN = 'tok_0123456789abcdefghij';
const ctx: AuthContext = { token: TOKEN, listenHosts: ['127.0.0.1'], port: 4545 };
const good: ApiRequestHeaders = { method: 'POST', url: '/api/call', host: '127.0.0.1:4545', authorization: `Bearer ${TOKEN}` };

test('control API verdicts: Host, then Origin, then token', () => {
  const rows: [string, Partial<ApiRequestHeaders>, AuthContext, 'ok' | string][] = [
    ['token in header', {}, ctx, 'ok'],
    ['localhost is this server', { host: 'localhost:4545' }, ctx, 'ok'],
    ['Host is case-insensitive', { host: 'LOCALHOST:4545' }, ctx, 'ok'],
    ['own origin', { origin: 'http://127.0.0.1:4545' }, ctx, 'ok'],
    ['own origin by name', { origin: 'http://localhost:4545' }, ctx, 'ok'],
    ['token in query for GET (EventSource)', { method: 'GET', url: `/api/live?token=${TOKEN}`, authorization: undefined }, ctx, 'ok'],
    ['IPv6 listener', { host: '[::1]:4545', origin: 'http://[::1]:4545' }, { ...ctx, listenHosts: ['::1'] }, 'ok'],
    ['no token', { authorization: undefined }, ctx, '401 unauthorized'],
    ['wrong token', { authorization: 'Bearer nope' }, ctx, '401 unauthorized'],
    ['token prefix', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }, ctx, '401 unauthorized'],
    ['Basic is not Bearer', { authorization: `Basic ${TOKEN}` }, ctx, '401 unauthorized'],
    ['query token only for GET', { url: `/api/call?token=${TOKEN}`, authorization: undefined }, ctx, '401 unauthorized'],
    ['DNS-rebound name', { host: 'evil.example:4545' }, ctx, '403 forbidden_host'],
    ['other port', { host: '127.0.0.1:4546' }, ctx, '403 forbidden_host'],
    ['no Host', { host: undefined }, ctx, '403 forbidden_host'],
    ['Host without port', { host: 'localhost' }, ctx, '403 forbidden_host'],
    ['foreign origin', { origin: 'https://evil.example' }, ctx, '403 forbidden_origin'],
    ['same host, other scheme', { origin: 'https://127.0.0.1:4545' }, ctx, '403 forbidden_origin'],
    ['opaque origin', { origin: 'null' }, ctx, '403 forbidden_origin'],
    ['bad Host wins over missing token', { host: 'evil.example:4545', authorization: undefined }, ctx, '403 forbidden_host'],
  ];
  for (const [name, change, context, expected] of rows) {
    const v = checkApiRequest(context, { ...good, ...change });
    assert.equal(v.ok ? 'ok' : `${v.status} ${v.code}`, expected, name);
  }
});

test('Host parsing: name and port, IPv6 unbracketed, anything beyond host[:port] refused', () => {
  assert.deepEqual(parseHost('LocalHost:4545'), { name: 'localhost', port: 4545 });
  assert.deepEqual(parseHost('[::1]:4545'), { name: '::1', port: 4545 });
  assert.deepEqual(parseHost('127.0.0.1'), { name: '127.0.0.1', port: null });
  assert.deepEqual(parseHost('localhost:80'), { name: 'localhost', port: 80 });
  for (const bad of ['', 'evil.example@127.0.0.1', '127.0.0.1/x', 'a b', 'localhost:99999']) assert.equal(parseHost(bad), null, bad);
});

test('loopback names: localhost, *.localhost, 127.0.0.0/8, ::1', () => {
  for (const yes of ['localhost', 'LOCALHOST', 'app.localhost', 'localhost.', '127.0.0.1', '127.255.3.4', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
    assert.equal(isLoopbackName(yes), true, yes);
  }
  for (const no of ['evil.example', 'localhost.evil.example', '128.0.0.1', '0.0.0.0', '::', '10.0.0.1', '::2', 'mylocalhost']) {
    assert.equal(isLoopbackName(no), false, no);
  }
});

test('Tracking API Host check: on loopback only names of this machine (any port); elsewhere any Host', () => {
  const loop = { listenHosts: ['127.0.0.1', '127.0.0.1'], port: 4545 };
  const byName = { listenHosts: ['localhost', '127.0.0.1'], port: 4545 };
  const wildcard = { listenHosts: ['0.0.0.0', '0.0.0.0'], port: 4545 };
  const lan = { listenHosts: ['192.168.1.20', '192.168.1.20'], port: 4545 };
  const rows: [string, { listenHosts: string[]; port: number }, string | undefined, boolean][] = [
    ['127.0.0.1 with port', loop, '127.0.0.1:4545', true],
    ['localhost', loop, 'localhost:4545', true],
    ['localhost on a forwarded port', loop, 'localhost:8080', true],
    ['no port', loop, '127.0.0.1', true],
    ['*.localhost', byName, 'dev.localhost:4545', true],
    ['[::1]', loop, '[::1]:4545', true],
    ['DNS-rebound name', loop, 'evil.example:4545', false],
    ['rebound name without port', loop, 'evil.example', false],
    ['no Host', loop, undefined, false],
    ['user info trick', loop, 'evil.example@127.0.0.1:4545', false],
    ['0.0.0.0: any name', wildcard, 'evil.example:4545', true],
    ['LAN address: any name', lan, 'hookbench.lan:4545', true],
  ];
  for (const [name, ctx, host, ok] of rows) assert.equal(checkIngestHost(ctx, host).ok, ok, name);
  const refused = checkIngestHost(loop, 'evil.example:4545');
  assert.equal(refused.ok, false);
  if (!refused.ok) {
    assert.equal(refused.status, 403);
    assert.equal(refused.code, 'forbidden_host');
    assert.match(refused.message, /Host "evil\.example:4545".*localhost, \*\.localhost, 127\.0\.0\.0\/8 or \[::1\]/);
  }
  // --host naming this machine by another name: that name is accepted, others still refused.
  const alias = { listenHosts: ['hookbench.test', '127.0.0.1'], port: 4545 };
  assert.equal(checkIngestHost(alias, 'hookbench.test:4545').ok, true);
  assert.equal(checkIngestHost(alias, 'evil.example:4545').ok, false);
});

test('presented token: bearer first, query only for GET', () => {
  assert.equal(presentedToken({ method: 'GET', url: '/api/live?x=1&token=abc', authorization: undefined }), 'abc');
  assert.equal(presentedToken({ method: 'GET', url: '/api/live?token=abc', authorization: 'bearer def' }), 'def');
  assert.equal(presentedToken({ method: 'GET', url: '/api/live', authorization: undefined }), null);
  assert.equal(presentedToken({ method: 'POST', url: '/api/call?token=abc', authorization: undefined }), null);
});

test('tokens: 24 random bytes in base64url, compared in constant time, env override checked', () => {
  const a = generateToken();
  assert.match(a, /^[A-Za-z0-9_-]{32}$/);
  assert.notEqual(a, generateToken());
  assert.equal(tokensMatch(a, a), true);
  assert.equal(tokensMatch(a, `${a}x`), false);
  assert.equal(tokensMatch('', a), false);
  assert.equal(tokenFromEnv(undefined), undefined);
  assert.equal(tokenFromEnv(''), undefined);
  assert.equal(tokenFromEnv(TOKEN), TOKEN);
  assert.throws(() => tokenFromEnv('short'), /HOOKBENCH_TOKEN must be 16 to 200 characters/);
  assert.throws(() => tokenFromEnv('has spaces in it, sixteen+'), /HOOKBENCH_TOKEN/);
});
