import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Computation, Condition } from '../../../src-shared/personas';
import { computationFixture } from '../../testing/computation';
import {
  buildCondition,
  buildInput,
  emptyAudience,
  emptyRow,
  emptyTrait,
  formOf,
  keyPreview,
  parseValue,
  placeOf,
  rowsOf,
  valueText,
  wholeNumber,
  type ConditionRow,
} from './form';

const orders: ConditionRow = { ...emptyRow('event'), event: 'Order Completed', atLeast: '2', withinDays: '30' };
const pro: ConditionRow = { ...emptyRow('trait'), trait: 'plan', op: 'equals', value: 'pro' };

test('parseValue: JSON when it parses, the text itself otherwise', () => {
  const cases: [string, unknown][] = [
    ['pro', 'pro'],
    ['  pro  ', 'pro'],
    ['42', 42],
    ['4.5', 4.5],
    ['"42"', '42'],
    ['true', true],
    ['null', null],
    ['{"a": 1}', { a: 1 }],
    ['[1, 2]', [1, 2]],
    ['Order Completed', 'Order Completed'],
    ['', ''],
  ];
  for (const [text, value] of cases) assert.deepEqual(parseValue(text), value, text);
});

test('valueText is parseValue\'s inverse: strings that would read as something else keep their quotes', () => {
  const cases: [Parameters<typeof valueText>[0], string][] = [
    ['pro', 'pro'],
    ['42', '"42"'],
    ['true', '"true"'],
    ['', '""'],
    [' pro', '" pro"'],
    [42, '42'],
    [false, 'false'],
    [null, 'null'],
    [{ a: 1 }, '{"a":1}'],
    [undefined, ''],
  ];
  for (const [value, text] of cases) {
    assert.equal(valueText(value), text, JSON.stringify(value));
    if (value !== undefined) assert.deepEqual(parseValue(text), value, `round trip of ${JSON.stringify(value)}`);
  }
});

test('wholeNumber: empty is absent; others must be whole and at least the minimum', () => {
  assert.deepEqual(wholeNumber('', 1), { ok: true, value: undefined });
  assert.deepEqual(wholeNumber(' 30 ', 1), { ok: true, value: 30 });
  assert.deepEqual(wholeNumber('0', 0), { ok: true, value: 0 });
  assert.deepEqual(wholeNumber('0', 1), { ok: false, message: 'must be at least 1' });
  assert.deepEqual(wholeNumber('2.5', 1), { ok: false, message: 'must be a whole number of at least 1' });
  assert.deepEqual(wholeNumber('-3', 0), { ok: false, message: 'must be a whole number' });
  assert.deepEqual(wholeNumber('99999999999999999999', 1), { ok: false, message: 'is too large' });
});

test('buildCondition: one row stands alone; several join with and / or; optional fields are left out', () => {
  assert.deepEqual(buildCondition([orders], 'and'), {
    ok: true,
    condition: { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 },
  });
  assert.deepEqual(buildCondition([orders, pro], 'and'), {
    ok: true,
    condition: {
      kind: 'and',
      all: [
        { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 },
        { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' },
      ],
    },
  });
  const exists: ConditionRow = { ...emptyRow('trait'), trait: 'email', op: 'exists', value: 'ignored' };
  const where: ConditionRow = { ...emptyRow('event'), event: 'Viewed', atLeast: '', atMost: '3', whereProperty: 'page', whereValue: '/pricing' };
  assert.deepEqual(buildCondition([exists, where], 'or'), {
    ok: true,
    condition: {
      kind: 'or',
      any: [
        { kind: 'trait', trait: 'email', op: 'exists' },
        { kind: 'event', event: 'Viewed', atMost: 3, where: [{ property: 'page', equals: '/pricing' }] },
      ],
    },
  });
});

test('buildCondition: refusals name the path in the tree, as the engine does', () => {
  const cases: { rows: ConditionRow[]; combine: 'and' | 'or'; fields: string[] }[] = [
    { rows: [], combine: 'and', fields: ['condition'] },
    { rows: [{ ...orders, event: ' ' }], combine: 'and', fields: ['condition.event'] },
    { rows: [orders, { ...pro, value: '' }], combine: 'and', fields: ['condition.all[1].value'] },
    { rows: [orders, { ...pro, trait: '' }], combine: 'or', fields: ['condition.any[1].trait'] },
    { rows: [{ ...orders, atLeast: 'two', withinDays: '0' }], combine: 'and', fields: ['condition.atLeast', 'condition.withinDays'] },
    { rows: [{ ...orders, atMost: '1' }], combine: 'and', fields: ['condition.atMost'] },
    { rows: [{ ...orders, atLeast: '0' }], combine: 'and', fields: ['condition.atLeast'] },
    { rows: [{ ...orders, whereProperty: 'total' }], combine: 'and', fields: ['condition.where'] },
    { rows: [{ ...orders, whereValue: '5' }], combine: 'and', fields: ['condition.where'] },
  ];
  for (const c of cases) {
    const built = buildCondition(c.rows, c.combine);
    assert.equal(built.ok, false);
    if (!built.ok) assert.deepEqual(built.errors.map((e) => e.field), c.fields, JSON.stringify(c.rows));
  }
});

test('buildInput: an audience and a computed trait as the engine takes them', () => {
  const audience = { ...emptyAudience('backend'), name: ' High Value Pro ', rows: [orders, pro], syncEveryMinutes: '15' };
  const built = buildInput(audience);
  assert.ok(built.ok && built.class === 'audience');
  assert.deepEqual(built.input, {
    name: 'High Value Pro',
    space: 'backend',
    syncEveryMinutes: 15,
    condition: { kind: 'and', all: [{ kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] },
  });

  const count = buildInput({ ...emptyTrait('backend'), name: 'Orders 30d', event: 'Order Completed', withinDays: '30' });
  assert.ok(count.ok && count.class === 'trait');
  assert.deepEqual(count.input, { name: 'Orders 30d', space: 'backend', syncEveryMinutes: null, rule: { kind: 'event_count', event: 'Order Completed', withinDays: 30 } });

  const last = buildInput({ ...emptyTrait('backend'), name: 'Last total', ruleKind: 'last_property', event: 'Order Completed', property: 'total', withinDays: '9' });
  assert.ok(last.ok && last.class === 'trait');
  assert.deepEqual(last.input.rule, { kind: 'last_property', event: 'Order Completed', property: 'total' }, 'days belong to counts only');
});

test('buildInput: every refusal at once, by field', () => {
  const a = buildInput({ ...emptyAudience(''), syncEveryMinutes: '0', rows: [{ ...orders, event: '' }] });
  assert.ok(!a.ok);
  assert.deepEqual(a.errors.map((e) => e.field), ['name', 'space', 'syncEveryMinutes', 'condition.event']);
  const t = buildInput({ ...emptyTrait('backend'), name: 'x', ruleKind: 'last_property' });
  assert.ok(!t.ok);
  assert.deepEqual(t.errors.map((e) => e.field), ['rule.event', 'rule.property']);
});

const computation = (patch: Partial<Computation>): Computation => computationFixture(patch);

test('formOf: a saved definition is the form that saves it again', () => {
  const conditions: Condition[] = [
    { kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 },
    { kind: 'and', all: [{ kind: 'event', event: 'A', atMost: 4, where: [{ property: 'p', equals: 42 }] }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] },
    { kind: 'or', any: [{ kind: 'trait', trait: 'email', op: 'exists' }, { kind: 'trait', trait: 'n', op: 'gt', value: '5' }] },
  ];
  for (const condition of conditions) {
    const edit = formOf(computation({ condition, syncEveryMinutes: 60 }));
    assert.ok(edit.ok, JSON.stringify(condition));
    const again = buildInput(edit.form);
    assert.ok(again.ok && again.class === 'audience');
    assert.deepEqual(again.input, { name: 'High Value Pro', space: 'backend', syncEveryMinutes: 60, condition });
  }
  const rule = { kind: 'event_count' as const, event: 'Order Completed', withinDays: 7 };
  const trait = formOf(computation({ class: 'trait', rule }));
  assert.ok(trait.ok);
  const again = buildInput(trait.form);
  assert.ok(again.ok && again.class === 'trait');
  assert.deepEqual(again.input.rule, rule);
});

test('rowsOf: groups inside groups, and several "where"s, are beyond the builder', () => {
  const nested: Condition = { kind: 'and', all: [{ kind: 'or', any: [{ kind: 'trait', trait: 'a', op: 'exists' }] }] };
  assert.equal(rowsOf(nested), null);
  assert.equal(rowsOf({ kind: 'event', event: 'E', where: [{ property: 'a', equals: 1 }, { property: 'b', equals: 2 }] }), null);
  assert.equal(rowsOf({ kind: 'and', all: [] }), null);
  const edit = formOf(computation({ condition: nested }));
  assert.equal(edit.ok, false);
});

test('keyPreview: the key the engine will send (the shared traitKey rules)', () => {
  const cases: [string, string][] = [
    ['High Value Pro', 'high_value_pro'],
    ['  high-value   pro!! ', 'high_value_pro'],
    ['Café Fans', 'cafe_fans'],
    ['Orders (30d)', 'orders_30d'],
    ['highValuePro', 'high_value_pro'],
    ["Mary's Fans", 'marys_fans'],
    ['30 Day Actives', '_30_day_actives'],
    ['HTTPServer Users', 'http_server_users'],
    ['🚀🚀', ''],
    ['', ''],
  ];
  for (const [name, key] of cases) assert.equal(keyPreview(name), key, name);
});

test('placeOf: a refusal\'s path, ours or the engine\'s, lands next to its input', () => {
  const cases: [string, string][] = [
    ['name', 'name'],
    ['audience.name', 'name'],
    ['trait.name', 'name'],
    ['key', 'name'],
    ['space', 'space'],
    ['audience.space', 'space'],
    ['syncEveryMinutes', 'interval'],
    ['audience.syncEveryMinutes', 'interval'],
    ['rule.event', 'rule'],
    ['trait.rule.property', 'rule'],
    ['condition', 'condition'],
    ['condition.all', 'condition'],
    ['condition.event', 'row:0'],
    ['condition.all[2].value', 'row:2'],
    ['audience.condition.any[1].trait', 'row:1'],
    ['condition.all[0].all[1].event', 'row:0'],
    ['something else', 'general'],
  ];
  for (const [field, place] of cases) assert.equal(placeOf(field), place, field);
});
