import { test } from 'node:test';
import assert from 'node:assert/strict';
import { profileMessageOf, reduceChunk, type KnownIdentities, type ProfileMessage, type ProfileOp } from './profile-reducer';

let seq = 0;
const T0 = Date.UTC(2026, 10, 1);
function msg(partial: Partial<ProfileMessage> & Pick<ProfileMessage, 'type'>): ProfileMessage {
  seq++;
  return {
    seq,
    userId: null,
    anonymousId: null,
    previousId: null,
    event: null,
    traits: null,
    properties: null,
    at: T0 + seq,
    receivedAt: T0 + seq,
    ...partial,
  };
}
const none: KnownIdentities = { ids: new Map(), profiles: new Map() };
/** The ops without the closing touches, which one row checks on its own. */
const ops = (known: KnownIdentities, messages: ProfileMessage[]): ProfileOp[] => reduceChunk(known, messages).filter((o) => o.op !== 'touch');

test('reduceChunk: identity rules, one row each', () => {
  seq = 0;
  const rows: { why: string; known: KnownIdentities; messages: ProfileMessage[]; expect: ProfileOp[] }[] = [
    {
      why: 'a new userId makes its own profile',
      known: none,
      messages: [msg({ type: 'page', userId: 'u1' })],
      expect: [{ op: 'create', profileId: 'u1', userId: 'u1' }],
    },
    {
      why: 'anonymous activity is keyed by the anonymousId',
      known: none,
      messages: [msg({ type: 'page', anonymousId: 'a1' })],
      expect: [{ op: 'create', profileId: 'a1', userId: null }],
    },
    {
      why: 'a new anonymousId seen with a userId joins that profile',
      known: none,
      messages: [msg({ type: 'page', userId: 'u1', anonymousId: 'a1' })],
      expect: [
        { op: 'create', profileId: 'u1', userId: 'u1' },
        { op: 'link', id: 'a1', profileId: 'u1' },
      ],
    },
    {
      why: 'an anonymous profile merges into the userId it is then seen with',
      known: { ids: new Map([['a1', 'a1']]), profiles: new Map([['a1', null]]) },
      messages: [msg({ type: 'page', userId: 'u1', anonymousId: 'a1' })],
      expect: [
        { op: 'create', profileId: 'u1', userId: 'u1' },
        { op: 'merge', from: 'a1', into: 'u1' },
      ],
    },
    {
      why: 'an anonymousId that belongs to another userId stays there (shared device)',
      known: { ids: new Map([['a1', 'u1'], ['u1', 'u1']]), profiles: new Map([['u1', 'u1']]) },
      messages: [msg({ type: 'page', userId: 'u2', anonymousId: 'a1' })],
      expect: [{ op: 'create', profileId: 'u2', userId: 'u2' }],
    },
    {
      why: 'alias merges the previous id’s profile, even one with a userId',
      known: { ids: new Map([['old', 'old']]), profiles: new Map([['old', 'old']]) },
      messages: [msg({ type: 'alias', userId: 'new', previousId: 'old' })],
      expect: [
        { op: 'create', profileId: 'new', userId: 'new' },
        { op: 'merge', from: 'old', into: 'new' },
      ],
    },
    {
      why: 'alias with an unknown previous id links it',
      known: { ids: new Map([['u1', 'u1']]), profiles: new Map([['u1', 'u1']]) },
      messages: [msg({ type: 'alias', userId: 'u1', previousId: 'p1' })],
      expect: [{ op: 'link', id: 'p1', profileId: 'u1' }],
    },
    {
      why: 'an id that was anonymous and now arrives as a userId claims its profile',
      known: { ids: new Map([['x', 'x']]), profiles: new Map([['x', null]]) },
      messages: [msg({ type: 'page', userId: 'x' })],
      expect: [{ op: 'claim', profileId: 'x', userId: 'x' }],
    },
    {
      why: 'a merged id later in the same chunk resolves to the merged profile',
      known: none,
      messages: [
        msg({ type: 'track', anonymousId: 'a1', event: 'Viewed', properties: {} }),
        msg({ type: 'identify', userId: 'u1', anonymousId: 'a1', traits: { plan: 'pro' } }),
        msg({ type: 'track', anonymousId: 'a1', event: 'Viewed', properties: { n: 2 } }),
      ],
      expect: [
        { op: 'create', profileId: 'a1', userId: null },
        { op: 'track', profileId: 'a1', seq: seq - 2, event: 'Viewed', at: T0 + seq - 2, properties: {} },
        { op: 'create', profileId: 'u1', userId: 'u1' },
        { op: 'merge', from: 'a1', into: 'u1' },
        { op: 'traits', profileId: 'u1', traits: { plan: 'pro' }, seq: seq - 1 },
        { op: 'track', profileId: 'u1', seq, event: 'Viewed', at: T0 + seq, properties: { n: 2 } },
      ],
    },
    {
      why: 'group traits are the group’s; empty identify traits change nothing',
      known: { ids: new Map([['u1', 'u1']]), profiles: new Map([['u1', 'u1']]) },
      messages: [msg({ type: 'group', userId: 'u1', traits: null }), msg({ type: 'identify', userId: 'u1', traits: {} })],
      expect: [],
    },
  ];
  for (const row of rows) assert.deepEqual(ops(row.known, row.messages), row.expect, row.why);
});

test('reduceChunk: one touch per profile at the end, with the latest receivedAt, following merges', () => {
  seq = 0;
  const a = msg({ type: 'page', anonymousId: 'a1', receivedAt: 500 });
  const b = msg({ type: 'page', userId: 'u1', receivedAt: 100 });
  const c = msg({ type: 'page', userId: 'u1', anonymousId: 'a1', receivedAt: 300 });
  assert.deepEqual(
    reduceChunk(none, [a, b, c]).filter((o) => o.op === 'touch'),
    [{ op: 'touch', profileId: 'u1', at: 500 }],
  );
});

test('reduceChunk does not change what it was given', () => {
  const known: KnownIdentities = { ids: new Map([['a1', 'a1']]), profiles: new Map([['a1', null]]) };
  reduceChunk(known, [msg({ type: 'page', userId: 'u1', anonymousId: 'a1' })]);
  assert.deepEqual([...known.ids], [['a1', 'a1']]);
  assert.deepEqual([...known.profiles], [['a1', null]]);
});

test('profileMessageOf reads a stored row: timestamp, traits of identify only, properties of track, previousId', () => {
  const row = (type: string, json: object): Parameters<typeof profileMessageOf>[0] => ({
    id: 7,
    type,
    user_id: 'u',
    anonymous_id: null,
    event: type === 'track' ? 'E' : null,
    received_at: 1000,
    json: JSON.stringify(json),
  });
  const identify = profileMessageOf(row('identify', { timestamp: '2026-11-01T00:00:00.000Z', traits: { plan: 'pro' } }));
  assert.equal(identify?.at, Date.parse('2026-11-01T00:00:00.000Z'));
  assert.deepEqual(identify?.traits, { plan: 'pro' });
  assert.equal(identify?.properties, null);
  const track = profileMessageOf(row('track', { timestamp: 'garbage' }));
  assert.equal(track?.at, 1000, 'an unreadable timestamp falls back to receivedAt');
  assert.deepEqual(track?.properties, {});
  assert.equal(profileMessageOf(row('group', { traits: { name: 'ACME' } }))?.traits, null);
  assert.equal(profileMessageOf(row('alias', { previousId: 'old' }))?.previousId, 'old');
  assert.equal(profileMessageOf(row('nonsense', {})), null);
  assert.equal(profileMessageOf({ ...row('track', {}), json: '{broken' }), null);
});
