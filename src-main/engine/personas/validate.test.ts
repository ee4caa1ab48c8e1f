import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAudienceInput, parseComputedTraitInput } from './validate';

const SOURCES = ['backend'];
const event = { kind: 'event', event: 'Order Completed' };
const audience = (extra: Record<string, unknown>): Record<string, unknown> => ({
  name: 'Big Spenders',
  space: 'backend',
  syncEveryMinutes: null,
  condition: event,
  ...extra,
});
const errorsOf = (input: unknown): string[] => {
  const r = parseAudienceInput(input, SOURCES);
  return r.ok ? [] : r.errors.map((e) => `${e.field}: ${e.message}`);
};
const nest = (depth: number): unknown => (depth === 1 ? event : { kind: 'and', all: [nest(depth - 1)] });

test('a valid audience comes back clean, with its key and without unknown keys', () => {
  const r = parseAudienceInput(audience({ extra: 1, condition: { ...event, atLeast: 2, withinDays: 30, junk: true } }), SOURCES);
  assert.ok(r.ok);
  assert.equal(r.value.key, 'big_spenders');
  assert.deepEqual(r.value.input, {
    name: 'Big Spenders',
    space: 'backend',
    syncEveryMinutes: null,
    condition: { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 },
  });
  assert.ok(parseAudienceInput(audience({ condition: nest(5) }), SOURCES).ok, 'five levels are allowed');
});

test('audience refusals name the field path and the limit, one row each', () => {
  const rows: [unknown, string[]][] = [
    [null, ['audience: must be an object { name, space, condition, syncEveryMinutes }']],
    [audience({ name: '  ' }), ['audience.name: is required']],
    [audience({ name: 'x'.repeat(101) }), ['audience.name: is 101 characters; the limit is 100']],
    [audience({ name: '日本 🚀' }), ['audience.name: has no letter or digit (A–Z, 0–9, or accented letters) to make a trait key from']],
    [audience({ space: 'nowhere' }), ['audience.space: no source named "nowhere"']],
    [audience({ syncEveryMinutes: 0 }), ['audience.syncEveryMinutes: must be a whole number of minutes from 1 to 10080 (a week), or null for on demand only']],
    [audience({ condition: { kind: 'event', event: '' } }), ['audience.condition.event: is required: the event’s name, e.g. Order Completed']],
    [
      audience({ condition: { kind: 'and', all: [event, { ...event, withinDays: 1.5 }] } }),
      ['audience.condition.all[1].withinDays: must be a whole number of days from 1 to 3650'],
    ],
    [audience({ condition: { ...event, atLeast: 0 } }), ['audience.condition.atLeast: must be a whole number from 1 to 1000000']],
    [audience({ condition: { ...event, atLeast: 3, atMost: 2 } }), ['audience.condition.atMost: must be at least atLeast (3)']],
    [
      audience({ condition: { kind: 'or', any: [{ kind: 'trait', trait: 'plan', op: 'like', value: 'x' }] } }),
      ['audience.condition.any[0].op: must be one of equals, not_equals, exists, not_exists, gt, gte, lt, lte, contains'],
    ],
    [audience({ condition: { kind: 'trait', trait: 'plan', op: 'equals' } }), ['audience.condition.value: is required by equals: a JSON value']],
    [audience({ condition: { kind: 'trait', trait: 'n', op: 'gt', value: true } }), ['audience.condition.value: must be a number or a string to compare with gt']],
    [audience({ condition: { kind: 'and', all: [] } }), ['audience.condition.all: must be a non-empty list of conditions']],
    [audience({ condition: { kind: 'not' } }), ['audience.condition.kind: must be one of event, trait, and, or']],
    [
      audience({ condition: { ...event, where: [{ property: 'x' }] } }),
      ['audience.condition.where[0].equals: is required: a JSON value'],
    ],
    [audience({ condition: nest(6) }), ['audience.condition.all[0].all[0].all[0].all[0].all[0]: is nested 6 levels deep; the limit is 5']],
    [
      audience({ condition: { kind: 'or', any: Array.from({ length: 51 }, () => event) } }),
      ['audience.condition: has 51 conditions; the limit is 50'],
    ],
  ];
  for (const [input, expected] of rows) assert.deepEqual(errorsOf(input), expected, JSON.stringify(input).slice(0, 120));
});

test('computed trait rules: valid ones come back clean; refusals name the field', () => {
  const trait = (rule: unknown): unknown => ({ name: 'Orders (30 d)', space: 'backend', syncEveryMinutes: 60, rule });
  const ok = parseComputedTraitInput(trait({ kind: 'event_count', event: 'Order Completed', withinDays: 30, junk: 1 }), SOURCES);
  assert.ok(ok.ok);
  assert.equal(ok.value.key, 'orders_30_d');
  assert.deepEqual(ok.value.input.rule, { kind: 'event_count', event: 'Order Completed', withinDays: 30 });
  const fields = (rule: unknown): string[] => {
    const r = parseComputedTraitInput(trait(rule), SOURCES);
    return r.ok ? [] : r.errors.map((e) => `${e.field}: ${e.message}`);
  };
  assert.deepEqual(fields({ kind: 'sum', event: 'E' }), ['trait.rule.kind: must be event_count or last_property']);
  assert.deepEqual(fields({ kind: 'last_property', event: 'E' }), ['trait.rule.property: is required: the property’s name, e.g. total']);
  assert.deepEqual(fields({ kind: 'event_count', event: 'E', withinDays: -1 }), ['trait.rule.withinDays: must be a whole number of days from 1 to 3650']);
  assert.deepEqual(fields(undefined), ['trait.rule: must be a rule object with a kind: event_count or last_property']);
});
