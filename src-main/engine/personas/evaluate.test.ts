import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonValue } from '../../../src-shared/json';
import type { ComputedTraitRule, Condition, TraitOperator } from '../../../src-shared/personas';
import {
  DAY_MS,
  canonicalJson,
  computeTrait,
  historyOf,
  matches,
  needsOf,
  traitMatches,
  type EventHistory,
  type ProfileSnapshot,
  type TrackedEvent,
} from './evaluate';

const NOW = Date.UTC(2026, 10, 22, 12);
const daysAgo = (d: number): number => NOW - d * DAY_MS;

function profile(traits: Record<string, JsonValue>, events: Record<string, TrackedEvent[]> = {}): ProfileSnapshot {
  const histories = new Map<string, EventHistory>();
  for (const [name, list] of Object.entries(events)) {
    const h = historyOf(list);
    if (h) histories.set(name, h);
  }
  return { profileId: 'p', userId: 'p', traits, events: histories };
}

/**
 * What the store loads for a definition without a `where`: the summary, and the occurrences since
 * the widest window's start only when the history straddles one of the windows.
 */
function summarized(p: ProfileSnapshot, windows: number[], withProperties: boolean): ProfileSnapshot {
  const starts = windows.map((d) => NOW - d * DAY_MS);
  const since = Math.min(...starts);
  const events = new Map<string, EventHistory>();
  for (const [name, h] of p.events) {
    const s: EventHistory = { count: h.count, firstAt: h.firstAt, lastAt: h.lastAt, last: withProperties ? h.last : { ...h.last, properties: {} } };
    if (starts.some((start) => h.firstAt < start && h.lastAt >= start)) {
      s.occurrences = { since, list: (h.occurrences?.list ?? []).filter((e) => e.at >= since) };
    }
    events.set(name, s);
  }
  return { ...p, events };
}
const ev = (at: number, properties: Record<string, JsonValue> = {}, seq = at): TrackedEvent => ({ at, seq, properties });

test('trait operators, one row each', () => {
  const traits = { plan: 'pro', n: 5, tags: ['a', 'b'], nothing: null, when: '2026-11-01T00:00:00.000Z', obj: { x: 1, y: 2 } };
  const rows: [TraitOperator, string, JsonValue | undefined, boolean, string][] = [
    ['equals', 'plan', 'pro', true, 'same string'],
    ['equals', 'plan', 'free', false, 'another string'],
    ['equals', 'obj', { y: 2, x: 1 }, true, 'JSON equality ignores key order'],
    ['equals', 'missing', null, false, 'an absent trait equals nothing, not even null'],
    ['not_equals', 'plan', 'free', true, 'differs'],
    ['not_equals', 'missing', 'x', true, 'an absent trait is not equal to any value'],
    ['exists', 'plan', undefined, true, 'present'],
    ['exists', 'nothing', undefined, false, 'null does not exist'],
    ['not_exists', 'missing', undefined, true, 'absent'],
    ['not_exists', 'nothing', undefined, true, 'null'],
    ['gt', 'n', 4, true, 'numbers'],
    ['gte', 'n', 5, true, 'numbers, equal'],
    ['lt', 'n', 5, false, 'numbers, equal'],
    ['lte', 'n', 5, true, 'numbers, equal'],
    ['gt', 'n', '4', false, 'a number and a string do not compare'],
    ['gt', 'when', '2026-10-01', true, 'strings compare by code unit, so ISO times compare as times'],
    ['lt', 'missing', 4, false, 'an absent trait compares as false'],
    ['contains', 'plan', 'ro', true, 'substring'],
    ['contains', 'plan', 'RO', false, 'case-sensitive'],
    ['contains', 'tags', 'b', true, 'array element'],
    ['contains', 'tags', 'c', false, 'not an element'],
    ['contains', 'n', 5, false, 'a number contains nothing'],
  ];
  for (const [op, trait, value, expected, why] of rows) {
    const c = value === undefined ? { kind: 'trait' as const, trait, op } : { kind: 'trait' as const, trait, op, value };
    assert.equal(traitMatches(c, traits), expected, `${trait} ${op} ${JSON.stringify(value)}: ${why}`);
  }
});

test('event conditions: counts, windows, where, and/or', () => {
  const p = profile(
    { plan: 'pro' },
    {
      'Order Completed': [ev(daysAgo(40), { total: 10 }), ev(daysAgo(10), { total: 50, currency: 'EUR' }), ev(daysAgo(1), { total: 70, currency: 'EUR' })],
    },
  );
  const oc = (extra: Partial<Extract<Condition, { kind: 'event' }>>): Condition => ({ kind: 'event', event: 'Order Completed', ...extra });
  const rows: [Condition, boolean, string][] = [
    [oc({}), true, 'performed at least once by default'],
    [{ kind: 'event', event: 'Signed Up' }, false, 'never performed'],
    [oc({ atLeast: 3 }), true, 'three in all time'],
    [oc({ atLeast: 3, withinDays: 30 }), false, 'only two in 30 days'],
    [oc({ atLeast: 2, withinDays: 30 }), true, 'two in 30 days'],
    [oc({ atMost: 2 }), false, 'three is more than two'],
    [oc({ atMost: 2, withinDays: 30 }), true, 'two is at most two'],
    [oc({ withinDays: 10 }), true, 'an event exactly D days old still counts'],
    [oc({ where: [{ property: 'currency', equals: 'EUR' }], atLeast: 2 }), true, 'where on properties'],
    [oc({ where: [{ property: 'currency', equals: null }] }), false, 'an absent property equals nothing'],
    [{ kind: 'and', all: [oc({ atLeast: 2, withinDays: 30 }), { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] }, true, 'the issue’s example'],
    [{ kind: 'and', all: [oc({}), { kind: 'trait', trait: 'plan', op: 'equals', value: 'free' }] }, false, 'and needs both'],
    [{ kind: 'or', any: [{ kind: 'event', event: 'Signed Up' }, { kind: 'trait', trait: 'plan', op: 'exists' }] }, true, 'or needs one'],
  ];
  for (const [c, expected, why] of rows) {
    assert.equal(matches(c, p, NOW), expected, why);
    const needs = needsOf({ condition: c });
    if ([...needs.events.values()].some((e) => e.occurrences)) continue;
    const windows = [...needs.events.values()].flatMap((e) => [...e.windows]);
    assert.equal(matches(c, summarized(p, windows, false), NOW), expected, `${why}, from the summary`);
  }
});

test('computed traits: event_count and last_property', () => {
  const p = profile(
    {},
    {
      Viewed: [ev(daysAgo(40), { page: 'a' }), ev(daysAgo(2), { page: 'b' }, 1), ev(daysAgo(2), { page: 'c' }, 2), ev(daysAgo(5), { page: 'd' })],
      Old: [ev(daysAgo(100), {})],
    },
  );
  const rows: [ComputedTraitRule, JsonValue | undefined, string][] = [
    [{ kind: 'event_count', event: 'Viewed' }, 4, 'all time'],
    [{ kind: 'event_count', event: 'Viewed', withinDays: 7 }, 3, 'in the window'],
    [{ kind: 'event_count', event: 'Old', withinDays: 7 }, 0, 'performed, but not in the window: 0'],
    [{ kind: 'event_count', event: 'Never' }, undefined, 'never performed: no value'],
    [{ kind: 'last_property', event: 'Viewed', property: 'page' }, 'c', 'most recent by time, then message order'],
    [{ kind: 'last_property', event: 'Viewed', property: 'missing' }, undefined, 'the most recent lacks the property'],
    [{ kind: 'last_property', event: 'Never', property: 'page' }, undefined, 'never performed'],
  ];
  for (const [rule, expected, why] of rows) {
    assert.deepEqual(computeTrait(rule, p, NOW), expected, why);
    const windows = rule.kind === 'event_count' && rule.withinDays !== undefined ? [rule.withinDays] : [];
    assert.deepEqual(computeTrait(rule, summarized(p, windows, rule.kind === 'last_property'), NOW), expected, `${why}, from the summary`);
  }
});

test('a summary that straddles a window without its occurrences is refused, not miscounted', () => {
  const p = summarized(profile({}, { A: [ev(daysAgo(40)), ev(daysAgo(1))] }), [], false);
  assert.throws(() => matches({ kind: 'event', event: 'A', withinDays: 30 }, p, NOW), /lacks the occurrences/);
});

test('needsOf names the events (with or without properties) and traits a definition reads', () => {
  const needs = needsOf({
    condition: {
      kind: 'or',
      any: [
        { kind: 'event', event: 'A' },
        { kind: 'and', all: [{ kind: 'event', event: 'A', where: [{ property: 'x', equals: 1 }] }, { kind: 'trait', trait: 'plan', op: 'exists' }] },
        { kind: 'event', event: 'B' },
      ],
    },
  });
  assert.deepEqual(
    [...needs.events].map(([name, e]) => [name, e.occurrences, e.lastProperties, [...e.windows]]),
    [
      ['A', true, false, []],
      ['B', false, false, []],
    ],
  );
  assert.deepEqual([...needs.traits], ['plan']);
  const last = needsOf({ rule: { kind: 'last_property', event: 'C', property: 'p' } }).events.get('C');
  assert.deepEqual([last?.occurrences, last?.lastProperties], [false, true]);
  const windows = needsOf({ condition: { kind: 'or', any: [{ kind: 'event', event: 'D', withinDays: 7 }, { kind: 'event', event: 'D', withinDays: 30 }] } });
  assert.deepEqual([...(windows.events.get('D')?.windows ?? [])], [7, 30]);
});

test('canonicalJson sorts keys at every depth', () => {
  assert.equal(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null }), '{"a":null,"b":[1,{"c":2,"d":1}]}');
});
