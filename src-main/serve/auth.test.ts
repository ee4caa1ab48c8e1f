import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkApiRequest, generateToken, presentedToken, tokenFromEnv, tokensMatch, type ApiRequestHeaders, type AuthContext } from './auth';

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
