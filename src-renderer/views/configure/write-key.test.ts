import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateSourceInput } from '../../../src-shared/settings';
import { generateSecret, generateWriteKey, randomBase62 } from './write-key';

/** A random source that answers the given bytes in order, over and over. */
const bytes =
  (...values: number[]) =>
  (out: Uint8Array): Uint8Array => {
    out.forEach((_v, i) => (out[i] = values[i % values.length]!));
    return out;
  };

test('write keys: wk_ and 24 base62 characters, accepted by the engine\'s own rule, different each time', () => {
  const keys = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const key = generateWriteKey();
    assert.match(key, /^wk_[A-Za-z0-9]{24}$/);
    assert.deepEqual(validateSourceInput({ name: 'app', writeKey: key }), []);
    keys.add(key);
  }
  assert.equal(keys.size, 200);
  assert.match(generateSecret(), /^[A-Za-z0-9]{32}$/);
});

test('randomBase62 maps bytes without modulo bias: bytes 248 to 255 are drawn again', () => {
  const table: [number[], string][] = [
    [[0], 'AAAA'],
    [[25, 26, 61, 62], 'Za9A'],
    [[247], '9999'],
    [[248, 255, 1], 'BBBB'],
  ];
  for (const [values, expected] of table) assert.equal(randomBase62(4, bytes(...values)), expected, `bytes ${values.join(',')}`);
  assert.throws(() => randomBase62(4, bytes(250)), /out-of-range/);
});
