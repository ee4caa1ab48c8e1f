import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetUrlOf } from './target-url';

test('the replay-to-URL field: a missing scheme means http://, anything else by the webhook URL rule, naming the field', () => {
  const table: [string, ReturnType<typeof targetUrlOf>][] = [
    ['localhost:9204', { ok: true, url: 'http://localhost:9204' }],
    ['  localhost:9204/hook  ', { ok: true, url: 'http://localhost:9204/hook' }],
    ['127.0.0.1:9204/hook?x=1', { ok: true, url: 'http://127.0.0.1:9204/hook?x=1' }],
    ['//localhost:9204/hook', { ok: true, url: 'http://localhost:9204/hook' }],
    ['receiver.test/hook', { ok: true, url: 'http://receiver.test/hook' }],
    ['http://localhost:9204/hook', { ok: true, url: 'http://localhost:9204/hook' }],
    ['HTTPS://example.com/hook', { ok: true, url: 'HTTPS://example.com/hook' }],
    ['[::1]:9204/hook', { ok: true, url: 'http://[::1]:9204/hook' }],
    ['', { ok: false, problem: 'Replay to URL is required, for example http://localhost:9204/hook' }],
    ['   ', { ok: false, problem: 'Replay to URL is required, for example http://localhost:9204/hook' }],
    ['localhost :9204', { ok: false, problem: 'Replay to URL must not contain spaces' }],
    ['ftp://files.test/x', { ok: false, problem: 'Replay to URL must use http or https, not ftp' }],
    ['http://user:pw@localhost:9204/', { ok: false, problem: 'Replay to URL must not carry credentials; use a static header instead' }],
    ['localhost:99999', { ok: false, problem: 'Replay to URL "http://localhost:99999" is not a valid URL' }],
  ];
  for (const [typed, expected] of table) assert.deepEqual(targetUrlOf(typed), expected, JSON.stringify(typed));
});
