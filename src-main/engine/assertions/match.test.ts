import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AssertedMessage } from '../../../src-shared/assertions';
import { closestMisses, mismatchesOf } from './match';

const message = (over: Partial<AssertedMessage>): AssertedMessage => ({
  id: 1,
  messageId: 'm',
  type: 'track',
  event: 'Order Completed',
  userId: 'u-1',
  anonymousId: null,
  source: 'web',
  receivedAt: '2026-11-23T12:00:00.000Z',
  message: {},
  violations: [],
  deliveries: [],
  ...over,
});

test('mismatchesOf names each criterion missed with what was found instead', () => {
  const rows: [Parameters<typeof mismatchesOf>[0], Partial<AssertedMessage>, string[]][] = [
    [{ event: 'Order Completed' }, {}, []],
    [{ event: 'Order Completed', userId: 'u-2' }, {}, ['userId: "u-2" ≠ "u-1"']],
    [{ anonymousId: 'a-1' }, {}, ['anonymousId: "a-1" ≠ (none)']],
    [{ type: 'identify', source: 'ios' }, {}, ['type: "identify" ≠ "track"', 'source: "ios" ≠ "web"']],
    [{ deliveryStatus: 'succeeded' }, {}, ['deliveryStatus: a delivery succeeded ≠ no deliveries']],
    [
      { deliveryStatus: 'succeeded' },
      { deliveries: [{ id: 1, destination: 'Hook', status: 'retrying', httpStatus: 503 }] },
      ['deliveryStatus: a delivery succeeded ≠ retrying (HTTP 503) at Hook'],
    ],
    [{ deliveryStatus: 'succeeded' }, { deliveries: [{ id: 1, destination: 'Hook', status: 'succeeded', httpStatus: 200 }] }, []],
    [
      { violations: 'none' },
      { violations: [{ path: '/properties/total', rule: 'type', message: 'must be number', value: '10' }] },
      ['violations: no violations ≠ 1 violation: /properties/total must be number (got "10")'],
    ],
    [{ violations: 'any' }, {}, ['violations: at least one violation ≠ no violations']],
  ];
  for (const [criteria, over, expected] of rows) {
    const got = mismatchesOf(criteria, message(over)).map((m) => `${m.field}: ${m.expected} ≠ ${m.actual}`);
    assert.deepEqual(got, expected, JSON.stringify(criteria));
  }
});

test('closestMisses puts the right call with the wrong outcome before another call, newest first among equals', () => {
  const failed = message({ id: 1, deliveries: [{ id: 1, destination: 'Hook', status: 'failed', httpStatus: 400 }] });
  const otherEvent = message({ id: 2, event: 'Order Placed', deliveries: [{ id: 2, destination: 'Hook', status: 'succeeded', httpStatus: 200 }] });
  const otherUser = message({ id: 3, userId: 'u-9', deliveries: [{ id: 3, destination: 'Hook', status: 'succeeded', httpStatus: 200 }] });
  const alsoOtherUser = message({ id: 4, userId: 'u-8', deliveries: [{ id: 4, destination: 'Hook', status: 'succeeded', httpStatus: 200 }] });
  const matching = message({ id: 5, deliveries: [{ id: 5, destination: 'Hook', status: 'succeeded', httpStatus: 200 }] });
  const closest = closestMisses({ event: 'Order Completed', userId: 'u-1', deliveryStatus: 'succeeded' }, [failed, otherEvent, otherUser, alsoOtherUser, matching], 3);
  assert.deepEqual(
    closest.map((c) => c.message.id),
    [1, 4, 3],
  );
});
