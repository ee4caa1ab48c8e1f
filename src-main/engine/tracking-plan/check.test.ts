import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { InboundMessage } from '../../../src-shared/events';
import { ValidationError } from '../../../src-shared/settings';
import { EMPTY_TRACKING_PLAN, type TrackingPlan } from '../../../src-shared/tracking-plan';
import { compilePlan } from './check';

const base = { messageId: 'm', userId: 'u', anonymousId: null, context: {}, integrations: {}, timestamp: '', receivedAt: '' };
const track = (event: string, properties: Record<string, unknown>): InboundMessage => ({ ...base, type: 'track', event, properties }) as InboundMessage;

const plan: TrackingPlan = {
  ...EMPTY_TRACKING_PLAN,
  events: {
    'Order Completed': {
      type: 'object',
      required: ['total', 'currency'],
      properties: { total: { type: 'number', minimum: 0 }, currency: { enum: ['EUR', 'USD'] }, email: { type: 'string', format: 'email' } },
      additionalProperties: false,
    },
  },
  identify: { type: 'object', required: ['email'] },
};

test('a message is checked against the schema for its event or call; each violation has its path, rule and value', () => {
  const c = compilePlan(plan);
  assert.deepEqual(c.check(track('Order Completed', { total: 10, currency: 'EUR' })), []);
  assert.deepEqual(c.check(track('Order Completed', { total: '10', currency: 'GBP', email: 'nope', coupon: 'X' })), [
    { path: '/properties/coupon', rule: 'additionalProperties', message: 'must NOT have additional properties', value: 'X' },
    { path: '/properties/total', rule: 'type', message: 'must be number', value: '10' },
    { path: '/properties/currency', rule: 'enum', message: 'must be equal to one of the allowed values', value: 'GBP' },
    { path: '/properties/email', rule: 'format', message: 'must match format "email"', value: 'nope' },
  ]);
  assert.deepEqual(c.check(track('Order Completed', { currency: 'USD' })), [
    { path: '/properties/total', rule: 'required', message: "must have required property 'total'" },
  ]);
  assert.deepEqual(c.check({ ...base, type: 'identify' } as InboundMessage), [
    { path: '/traits/email', rule: 'required', message: "must have required property 'email'" },
  ]);
  assert.deepEqual(c.check({ ...base, type: 'page', properties: { anything: 1 } } as InboundMessage), [], 'no page schema: nothing to check');
  assert.deepEqual(c.check(track('Unplanned', {})), [], 'unplanned events are allowed by default');
  assert.deepEqual(compilePlan({ ...plan, unplannedEvents: 'violate' }).check(track('Unplanned', {})), [
    { path: '/event', rule: 'unplanned', message: 'is not an event of the tracking plan', value: 'Unplanned' },
  ]);
  const long = 'x'.repeat(500);
  const clipped = c.check(track('Order Completed', { total: 1, currency: long }))[0]?.value;
  assert.equal(typeof clipped === 'string' && clipped.length <= 202 && clipped.endsWith('…'), true);
});

test('a schema ajv cannot compile is refused, naming the event', () => {
  assert.throws(
    () => compilePlan({ ...plan, events: { ...plan.events, 'Bad One': { type: 'nonsense' } } }),
    (err: unknown) => err instanceof ValidationError && err.errors[0]?.field === 'events["Bad One"]' && /JSON Schema ajv can use/.test(err.errors[0].message),
  );
});
