import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DELIVERY_STATUSES } from '../../src-shared/api';
import { deliveryStatusMeaning } from './status-words';

test('every delivery status has a meaning for its hover text; discarded says why a delivery is discarded', () => {
  for (const status of DELIVERY_STATUSES) assert.match(deliveryStatusMeaning(status) ?? '', /^[A-Z][a-z ]+: /, status);
  assert.match(deliveryStatusMeaning('discarded') ?? '', /destination was removed or switched off/);
  assert.equal(deliveryStatusMeaning('nonsense'), null);
});
