import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_DELIVERY_SETTINGS, RETRY_PRESETS } from '../../../src-shared/settings';
import { describeDelivery, presetOf } from './preset-words';

test('the preset the settings match, whatever the timeout; custom otherwise', () => {
  assert.equal(presetOf(DEFAULT_DELIVERY_SETTINGS), 'standard');
  assert.equal(presetOf({ ...DEFAULT_DELIVERY_SETTINGS, ...RETRY_PRESETS.short, timeoutMs: 1000 }), 'short');
  assert.equal(presetOf({ ...DEFAULT_DELIVERY_SETTINGS, retryWindowMs: 120_000 }), 'custom');
});

test('the settings described: timeout, first pause, longest pause and retry window', () => {
  assert.equal(
    describeDelivery(DEFAULT_DELIVERY_SETTINGS),
    'Each attempt waits up to 5 s for a 2xx answer. Timeouts, connection errors, 5xx, 408 and 429 are retried after growing pauses ' +
      '(from 1 s, at most 10 min apart) until 4 h after the first attempt; then the delivery has failed.',
  );
  assert.match(describeDelivery({ ...DEFAULT_DELIVERY_SETTINGS, ...RETRY_PRESETS.short }), /from 500 ms, at most 10 s apart\) until 1 min after/);
});
