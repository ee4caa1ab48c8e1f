import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { signBody, verifySignature } from './signature';

const body = Buffer.from('{"version":1,"type":"track","event":"Café ☕","properties":{}}', 'utf8');

test('signBody matches the RFC 2202 HMAC-SHA1 test vectors', () => {
  // RFC 2202 section 3, test cases 1 and 2.
  assert.equal(signBody(Buffer.from('Hi There'), '\x0b'.repeat(20)), 'b617318655057264e28bc0b6fb378c8ef146be00');
  assert.equal(signBody(Buffer.from('what do ya want for nothing?'), 'Jefe'), 'effcdf6ae5eb2fa2d27416d5f184df9c259a7c79');
});

test('signBody agrees with openssl over UTF-8 body bytes', (t) => {
  const run = spawnSync('openssl', ['dgst', '-sha1', '-hmac', 'shh-secret'], { input: body });
  if (run.error || run.status !== 0) {
    t.skip('openssl is not available');
    return;
  }
  const hex = /([0-9a-f]{40})\s*$/.exec(run.stdout.toString())?.[1];
  assert.ok(hex, `unexpected openssl output: ${run.stdout.toString()}`);
  assert.equal(signBody(body, 'shh-secret'), hex);
});

test('signBody is lowercase hex of 40 characters and depends on every byte', () => {
  const sig = signBody(body, 'k');
  assert.match(sig, /^[0-9a-f]{40}$/);
  const changed = Buffer.from(body);
  const at = changed.length - 2;
  changed[at] = (changed[at] ?? 0) ^ 1;
  assert.notEqual(signBody(changed, 'k'), sig);
  assert.notEqual(signBody(body, 'K'), sig);
});

test('verifySignature accepts the right digest in either case and refuses anything else', () => {
  const sig = signBody(body, 'k');
  assert.equal(verifySignature(body, 'k', sig), true);
  assert.equal(verifySignature(body, 'k', sig.toUpperCase()), true);
  assert.equal(verifySignature(body, 'k', ` ${sig} `), true);
  assert.equal(verifySignature(body, 'other', sig), false);
  assert.equal(verifySignature(Buffer.concat([body, Buffer.from(' ')]), 'k', sig), false);
  assert.equal(verifySignature(body, 'k', ''), false);
  assert.equal(verifySignature(body, 'k', sig.slice(0, 39)), false);
  assert.equal(verifySignature(body, 'k', `${sig}00`), false);
  assert.equal(verifySignature(body, 'k', `sha1=${sig}`), false);
  assert.equal(verifySignature(body, 'k', 'z'.repeat(40)), false);
});
