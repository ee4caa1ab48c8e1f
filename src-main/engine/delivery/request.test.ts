import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRequestHeaders } from './request';
import { signBody, xSignature } from './signature';
import { signatureHeaders } from './signers';

const signed = (secret: string | null): Record<string, string> => signatureHeaders(xSignature, secret, { body, deliveryId: 1, at: 0 });

const body: Uint8Array = Buffer.from('{"type":"delete","userId":"u","timestamp":"2026-01-01T00:00:00.000Z"}');

test('static headers first, then Content-Type, User-Agent and X-Signature', () => {
  const headers = buildRequestHeaders({ url: 'https://example.com/hook', headers: { Authorization: 'Bearer t', 'X-Team': 'blue' } }, signed('secret'));
  assert.deepEqual(Object.entries(headers), [
    ['Authorization', 'Bearer t'],
    ['X-Team', 'blue'],
    ['Content-Type', 'application/json'],
    ['User-Agent', 'Segment.io/1.0'],
    ['X-Signature', signBody(body, 'secret')],
  ]);
});

test('no X-Signature without a secret, nor with an empty one', () => {
  for (const secret of [null, '']) {
    const headers = buildRequestHeaders({ url: 'http://127.0.0.1/', headers: {} }, signed(secret));
    assert.deepEqual(headers, { 'Content-Type': 'application/json', 'User-Agent': 'Segment.io/1.0' });
  }
});

test('a static header cannot override the headers the destination owns, in any case', () => {
  const headers = buildRequestHeaders(
    { url: 'http://127.0.0.1/', headers: { 'content-type': 'text/plain', 'USER-AGENT': 'x', 'x-signature': 'forged', Keep: 'me' } },
    signed('secret'),
  );
  assert.deepEqual(headers, {
    Keep: 'me',
    'Content-Type': 'application/json',
    'User-Agent': 'Segment.io/1.0',
    'X-Signature': signBody(body, 'secret'),
  });
});
