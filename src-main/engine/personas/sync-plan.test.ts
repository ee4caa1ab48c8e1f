import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../../../src-shared/json';
import { canonicalJson } from './evaluate';
import { diffSync, personasContext, syncIdentify } from './sync-plan';

const prev = (entries: [string, JsonValue][]): Map<string, string> => new Map(entries.map(([k, v]) => [k, canonicalJson(v)]));

test('diffSync, audiences: entries get true, exits false, the unchanged nothing', () => {
  const d = diffSync('audience', new Map<string, JsonValue>([['c', true], ['a', true], ['b', true]]), prev([['b', true], ['z', true]]));
  assert.deepEqual(d.entered, ['a', 'c']);
  assert.deepEqual(d.exited, ['z']);
  assert.deepEqual(d.changed, []);
  assert.deepEqual(d.send, [
    { profileId: 'a', value: true },
    { profileId: 'c', value: true },
    { profileId: 'z', value: false },
  ]);
  const first = diffSync('audience', new Map([['a', true]]), new Map());
  assert.deepEqual(first.send, [{ profileId: 'a', value: true }], 'the initial sync sends every member');
});

test('diffSync, traits: first values, changes and losses (null); equal values, whatever their key order, send nothing', () => {
  const d = diffSync(
    'trait',
    new Map<string, JsonValue>([['new', 1], ['same', { x: 1, y: 2 }], ['moved', 3]]),
    prev([['same', { y: 2, x: 1 }], ['moved', 2], ['gone', 5]]),
  );
  assert.deepEqual(d.entered, ['new']);
  assert.deepEqual(d.changed, ['moved']);
  assert.deepEqual(d.exited, ['gone']);
  assert.deepEqual(d.send, [
    { profileId: 'gone', value: null },
    { profileId: 'moved', value: 3 },
    { profileId: 'new', value: 1 },
  ]);
});

test('syncIdentify: the profile’s userId (its anonymousId while it has none), the key, context.personas', () => {
  const personas = personasContext({ class: 'audience', id: 7, key: 'vip_users' }, { id: 3, name: 'backend' });
  assert.deepEqual(personas, {
    computation_class: 'audience',
    computation_id: '7',
    computation_key: 'vip_users',
    namespace: 'spa_3',
    space_id: 'backend',
  });
  const at = '2026-11-22T12:00:00.000Z';
  const m = syncIdentify({ profileId: 'anon-1', userId: null }, 'vip_users', true, personas, at, 'mid');
  assert.deepEqual(m, {
    type: 'identify',
    messageId: 'mid',
    userId: 'anon-1',
    anonymousId: null,
    traits: { vip_users: true },
    context: { personas },
    integrations: {},
    timestamp: at,
    receivedAt: at,
  });
  assert.equal(syncIdentify({ profileId: 'u1', userId: 'u1' }, 'k', false, personas, at, 'm2').userId, 'u1');
});
