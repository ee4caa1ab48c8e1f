import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeliveryStatus } from '../../../src-shared/api';
import { explainStatus, noticeOutcome, requestStatus, type ChainMember } from './status';

const m = (id: number, status: DeliveryStatus, counts = true, lastError: string | null = null): ChainMember => ({ id, status, counts, lastError });

test('noticeOutcome: the success wins, else the newest under way, else the newest; only counted replays count', () => {
  const cases: [string, ChainMember[], number, DeliveryStatus][] = [
    ['the notice alone, under way', [m(1, 'retrying')], 1, 'retrying'],
    ['the notice alone, failed', [m(1, 'failed')], 1, 'failed'],
    ['failed, then a replay that succeeded', [m(1, 'failed'), m(5, 'succeeded')], 5, 'succeeded'],
    ['failed, then a replay under way', [m(1, 'failed'), m(5, 'pending')], 5, 'pending'],
    ['failed, then a replay that failed too', [m(1, 'failed'), m(5, 'discarded')], 5, 'discarded'],
    ['succeeded, then a replay that failed', [m(1, 'succeeded'), m(5, 'failed')], 1, 'succeeded'],
    ['two replays under way: the newest', [m(1, 'failed'), m(5, 'retrying'), m(7, 'pending')], 7, 'pending'],
    ['a replay to another URL or with edited bytes does not count', [m(1, 'failed'), m(5, 'succeeded', false)], 1, 'failed'],
    ['an uncounted replay under way does not hold it pending', [m(1, 'failed'), m(5, 'in_flight', false)], 1, 'failed'],
  ];
  for (const [what, chain, id, status] of cases) {
    assert.deepEqual(noticeOutcome(chain), { deliveryId: id, status, lastError: null }, what);
  }
  assert.throws(() => noticeOutcome([m(5, 'succeeded', false)]), /without the notice itself/);
});

test('requestStatus: pending while any is under way, forwarded when all succeeded (or there are none), else failed', () => {
  const cases: [DeliveryStatus[], string][] = [
    [[], 'forwarded'],
    [['succeeded'], 'forwarded'],
    [['succeeded', 'succeeded'], 'forwarded'],
    [['pending'], 'pending'],
    [['in_flight', 'succeeded'], 'pending'],
    [['retrying', 'failed'], 'pending'],
    [['failed', 'succeeded'], 'failed'],
    [['discarded'], 'failed'],
  ];
  for (const [statuses, expected] of cases) {
    assert.equal(requestStatus(statuses.map((status) => ({ status }))), expected, statuses.join(', ') || '(no notices)');
  }
});

test('explainStatus says why, in plain words', () => {
  const base = { userId: 'u1', affectedSources: ['web'], purge: false, purgedAt: null };
  const n = (status: DeliveryStatus, lastError: string | null = null) => ({ source: 'web', destination: 'Hooks', status, lastError });
  assert.equal(
    explainStatus({ ...base, status: 'forwarded', affectedSources: [], notices: [] }),
    'nothing to forward: no stored message names "u1", so no source is affected',
  );
  assert.equal(
    explainStatus({ ...base, status: 'forwarded', affectedSources: ['legacy'], notices: [] }),
    'nothing to forward: no enabled destination is attached to the affected source (legacy)',
  );
  assert.equal(explainStatus({ ...base, status: 'forwarded', notices: [n('succeeded'), n('succeeded')] }), 'all 2 notices were delivered');
  assert.equal(explainStatus({ ...base, status: 'pending', notices: [n('succeeded'), n('retrying')] }), '1 of 2 notices delivered, 1 still being delivered');
  assert.equal(
    explainStatus({ ...base, status: 'failed', notices: [n('failed', 'HTTP 500')] }),
    '0 of 1 notice delivered, not delivered: web → Hooks failed (HTTP 500); replay a failed notice from Deliveries to try again',
  );
  assert.match(explainStatus({ ...base, purge: true, status: 'pending', notices: [n('pending')] }), /will be purged once every notice is delivered$/);
  assert.match(explainStatus({ ...base, purge: true, status: 'failed', notices: [n('discarded')] }), /nothing was purged/);
  assert.match(
    explainStatus({ ...base, purge: true, purgedAt: '2026-11-22T12:00:00.000Z', status: 'forwarded', notices: [n('succeeded')] }),
    /^the notice was delivered; the user's stored messages and profile were purged at 2026-11-22T12:00:00.000Z$/,
  );
});
