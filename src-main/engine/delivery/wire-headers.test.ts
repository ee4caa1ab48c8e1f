import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wireHeaders } from './sender';

test('wireHeaders: the header block as pairs in the order written, Content-Length added as undici writes it', () => {
  const block = 'POST /hook?x=1 HTTP/1.1\r\nhost: 127.0.0.1:9204\r\nconnection: keep-alive\r\nX-Team: alpha\r\nContent-Type: application/json\r\nX-Signature: abc: def\r\n';
  assert.deepEqual(wireHeaders(block, 42), [
    ['host', '127.0.0.1:9204'],
    ['connection', 'keep-alive'],
    ['X-Team', 'alpha'],
    ['Content-Type', 'application/json'],
    ['X-Signature', 'abc: def'],
    ['content-length', '42'],
  ]);
});

test('wireHeaders: a Content-Length already in the block is not added twice; stray lines are skipped', () => {
  assert.deepEqual(wireHeaders('POST / HTTP/1.1\r\ncontent-length: 3\r\nno colon here\r\n\r\n', 3), [['content-length', '3']]);
});
