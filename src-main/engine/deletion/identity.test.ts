import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ValidationError } from '../../../src-shared/settings';
import { droppedItemNames, droppedItemNeedles, parseDeletionInput, requestBodyNames, type Person } from './identity';

const fieldsOf = (input: unknown): string[] => {
  try {
    parseDeletionInput(input);
    return [];
  } catch (err) {
    assert.ok(err instanceof ValidationError, String(err));
    return err.errors.map((e) => `${e.field}: ${e.message}`);
  }
};

test('parseDeletionInput: userId required, at most 200 characters; purge a boolean, false by default', () => {
  assert.deepEqual(parseDeletionInput({ userId: 'u1' }), { userId: 'u1', purge: false });
  assert.deepEqual(parseDeletionInput({ userId: 'u1', purge: true }), { userId: 'u1', purge: true });
  assert.deepEqual(parseDeletionInput({ userId: 'x'.repeat(200) }), { userId: 'x'.repeat(200), purge: false });
  assert.deepEqual(fieldsOf(undefined), ['deletion: must be an object { userId, purge? }']);
  assert.deepEqual(fieldsOf('u1'), ['deletion: must be an object { userId, purge? }']);
  assert.deepEqual(fieldsOf({}), ['deletion.userId: is required: the userId to delete']);
  assert.deepEqual(fieldsOf({ userId: '' }), ['deletion.userId: is required: the userId to delete']);
  assert.deepEqual(fieldsOf({ userId: 42 }), ['deletion.userId: is required: the userId to delete']);
  assert.deepEqual(fieldsOf({ userId: 'x'.repeat(201) }), ['deletion.userId: must be at most 200 characters']);
  assert.deepEqual(fieldsOf({ userId: 'u1', purge: 'yes' }), ['deletion.purge: must be true or false']);
  assert.deepEqual(fieldsOf({ userId: 'u1', purgeAll: true }), ['deletion.purgeAll: is not a deletion field (expected userId, purge)']);
});

test('droppedItemNames: parsed, exact, by the same rule as messages', () => {
  const person: Person = { userId: 'u1', linkedIds: new Set(['anon-1']) };
  const cases: [string, boolean][] = [
    ['{"userId":"u1","type":"track"}', true],
    ['{"userId":"u10","type":"track"}', false],
    ['{"userId":"U1"}', false],
    ['{"userId":"u2","properties":{"friend":"u1"}}', false],
    ['{"anonymousId":"anon-1","type":"page"}', true],
    ['{"userId":"u2","anonymousId":"anon-1"}', false],
    ['{"userId":"","anonymousId":"anon-1"}', true],
    ['{"userId":"\\u0075\\u0031"}', true],
    ['[{"userId":"u1"}]', false],
    ['{"userId":"u1"', false],
    ['null', false],
  ];
  for (const [raw, expected] of cases) assert.equal(droppedItemNames(raw, person), expected, raw);
  assert.equal(droppedItemNames('{"userId":1e3}', { userId: '1000', linkedIds: new Set() }), true, 'a number reads as the ingest reads it');
});

test('droppedItemNeedles: the JSON spelling of each id, or none when a number could spell one', () => {
  assert.deepEqual(droppedItemNeedles({ userId: 'a"b', linkedIds: new Set(['3f2c-uuid']) }), ['a\\"b', '3f2c-uuid']);
  assert.equal(droppedItemNeedles({ userId: '1000', linkedIds: new Set() }), null);
  assert.equal(droppedItemNeedles({ userId: 'u1', linkedIds: new Set(['-2.5']) }), null);
});

test('requestBodyNames: a batch or a single call naming the person, and any trace of them in a body that does not parse', () => {
  const person: Person = { userId: 'u-7', linkedIds: new Set(['anon-1']) };
  assert.equal(requestBodyNames('{"batch":[{"userId":"other"},{"userId":"u-7","event":"E"}]}', person), true);
  assert.equal(requestBodyNames('{"batch":[{"anonymousId":"anon-1"}]}', person), true);
  assert.equal(requestBodyNames('{"userId":"u-7","event":"E"}', person), true);
  assert.equal(requestBodyNames('{"batch":[{"userId":"other","properties":{"note":"u-7"}}]}', person), false);
  assert.equal(requestBodyNames('{"batch":[{"userId":"u-77"}]}', person), false);
  // Clipped or refused as bad JSON: removed when an id appears at all.
  assert.equal(requestBodyNames('{"batch":[{"userId":"u-7","ev', person), true);
  assert.equal(requestBodyNames('{"batch":[{"userId":"other","ev', person), false);
});
