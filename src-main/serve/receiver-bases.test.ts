import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillReceiverBases, usesReceiverBases } from './receiver-bases';

const config = (...urls: string[]): unknown => ({ destinations: [{ name: 'd', sources: [], webhooks: urls.map((url) => ({ url, headers: {} })) }] });
const urlsOf = (c: unknown): string[] => (c as { destinations: { webhooks: { url: string }[] }[] }).destinations.flatMap((d) => d.webhooks.map((w) => w.url));

test('a webhook URL that begins with {hookbench} or {hookbench-tls} gets the listening addresses; others and the input are untouched', () => {
  const input = config('{hookbench}/receivers/flaky', '{hookbench-tls}/receivers/tls', 'https://example.com/{hookbench}');
  assert.equal(usesReceiverBases(input), true);
  const filled = fillReceiverBases(input, { http: 'http://127.0.0.1:4000', https: 'https://127.0.0.1:4443' });
  assert.deepEqual(urlsOf(filled), ['http://127.0.0.1:4000/receivers/flaky', 'https://127.0.0.1:4443/receivers/tls', 'https://example.com/{hookbench}']);
  assert.deepEqual(urlsOf(input), ['{hookbench}/receivers/flaky', '{hookbench-tls}/receivers/tls', 'https://example.com/{hookbench}']);
});

test('a config without placeholders, or not even an object, is returned as it is', () => {
  const plain = config('https://example.com/hook');
  assert.equal(usesReceiverBases(plain), false);
  assert.equal(fillReceiverBases(plain, { http: 'http://x', https: null }), plain);
  for (const odd of [null, 3, 'x', { destinations: 'no' }, { destinations: [null, { webhooks: [null, 1] }] }]) {
    assert.equal(usesReceiverBases(odd), false);
    assert.equal(fillReceiverBases(odd, { http: 'http://x', https: null }), odd);
  }
});

test('{hookbench-tls} without an HTTPS address is refused by name', () => {
  assert.throws(() => fillReceiverBases(config('{hookbench-tls}/receivers/a'), { http: 'http://x', https: null }), /needs \{hookbench-tls\}/);
});
