/**
 * The Audiences view's forms as plain data, and the pure steps around them: a form → the
 * AudienceInput / ComputedTraitInput the engine takes (with our own refusals first, by the same
 * field paths the input has), a saved computation → the form again, a typed value → JSON, and a
 * refusal's field path → the place on the form that shows it.
 */
import type { JsonValue } from '../../../src-shared/json';
import {
  TRAIT_OPERATORS,
  type AudienceInput,
  type Computation,
  type ComputedTraitInput,
  type ComputedTraitRule,
  type Condition,
  type EventCondition,
  type TraitCondition,
  type TraitOperator,
} from '../../../src-shared/personas';
import { traitKey } from '../../../src-shared/trait-key';
import type { FieldError } from '../../../src-shared/settings';

export type RowKind = 'event' | 'trait';

/** One line of the condition builder. Both kinds' fields are kept, so switching kind loses nothing typed. */
export interface ConditionRow {
  kind: RowKind;
  event: string;
  atLeast: string;
  atMost: string;
  withinDays: string;
  whereProperty: string;
  whereValue: string;
  trait: string;
  op: TraitOperator;
  value: string;
}

export type Combine = 'and' | 'or';

export interface AudienceForm {
  class: 'audience';
  name: string;
  space: string;
  combine: Combine;
  rows: ConditionRow[];
  /** Minutes as typed; empty = only on demand. */
  syncEveryMinutes: string;
}

export type RuleKind = ComputedTraitRule['kind'];

export interface TraitForm {
  class: 'trait';
  name: string;
  space: string;
  ruleKind: RuleKind;
  event: string;
  withinDays: string;
  property: string;
  syncEveryMinutes: string;
}

export type ComputationForm = AudienceForm | TraitForm;

export function emptyRow(kind: RowKind = 'event'): ConditionRow {
  return { kind, event: '', atLeast: '1', atMost: '', withinDays: '', whereProperty: '', whereValue: '', trait: '', op: 'equals', value: '' };
}

export function emptyAudience(space = ''): AudienceForm {
  return { class: 'audience', name: '', space, combine: 'and', rows: [emptyRow('event')], syncEveryMinutes: '' };
}

export function emptyTrait(space = ''): TraitForm {
  return { class: 'trait', name: '', space, ruleKind: 'event_count', event: '', withinDays: '', property: '', syncEveryMinutes: '' };
}

/** Operators that compare with nothing. */
export const VALUELESS: readonly TraitOperator[] = ['exists', 'not_exists'];

export const OPERATOR_WORDS: Record<TraitOperator, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  exists: 'is set',
  not_exists: 'is not set',
  gt: 'is greater than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  contains: 'contains',
};

export function isOperator(op: string): op is TraitOperator {
  return (TRAIT_OPERATORS as readonly string[]).includes(op);
}

/**
 * A typed value as JSON: what parses as JSON is that (42, true, null, "42" in quotes, {"a":1}),
 * anything else is the text itself, so `pro` means the string "pro" without quotes.
 */
export function parseValue(text: string): JsonValue {
  const t = text.trim();
  try {
    return JSON.parse(t) as JsonValue;
  } catch {
    return t;
  }
}

/** The inverse of parseValue: a string that would read as something else keeps its quotes. */
export function valueText(value: JsonValue | undefined): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value !== '' && value === value.trim() && parseValue(value) === value ? value : JSON.stringify(value);
  return JSON.stringify(value);
}

type Num = { ok: true; value: number | undefined } | { ok: false; message: string };

/** A whole number of at least `min` as typed; empty is "not given". */
export function wholeNumber(text: string, min: number): Num {
  const t = text.trim();
  if (t === '') return { ok: true, value: undefined };
  if (!/^\d+$/.test(t)) return { ok: false, message: `must be a whole number${min > 0 ? ` of at least ${min}` : ''}` };
  const n = Number(t);
  if (n < min) return { ok: false, message: `must be at least ${min}` };
  if (!Number.isSafeInteger(n)) return { ok: false, message: 'is too large' };
  return { ok: true, value: n };
}

function rowCondition(row: ConditionRow, path: string, errors: FieldError[]): Condition | null {
  const before = errors.length;
  const refuse = (field: string, message: string): void => {
    errors.push({ field: `${path}.${field}`, message });
  };
  if (row.kind === 'trait') {
    if (row.trait.trim() === '') refuse('trait', 'is required: the trait’s key, e.g. plan');
    const valueless = VALUELESS.includes(row.op);
    if (!valueless && row.value.trim() === '') refuse('value', 'is required for this comparison');
    if (errors.length > before) return null;
    const c: TraitCondition = { kind: 'trait', trait: row.trait.trim(), op: row.op };
    if (!valueless) c.value = parseValue(row.value);
    return c;
  }
  if (row.event.trim() === '') refuse('event', 'is required: the event’s name, e.g. Order Completed');
  const atLeast = wholeNumber(row.atLeast, 1);
  if (!atLeast.ok) refuse('atLeast', atLeast.message);
  const atMost = wholeNumber(row.atMost, 1);
  if (!atMost.ok) refuse('atMost', atMost.message);
  if (atLeast.ok && atMost.ok && atMost.value !== undefined && atMost.value < (atLeast.value ?? 1)) {
    refuse('atMost', `must be at least the “at least” count (${atLeast.value ?? 1})`);
  }
  const days = wholeNumber(row.withinDays, 1);
  if (!days.ok) refuse('withinDays', days.message);
  const property = row.whereProperty.trim();
  if (property === '' && row.whereValue.trim() !== '') refuse('where', 'needs the property’s name as well as the value');
  if (property !== '' && row.whereValue.trim() === '') refuse('where', `needs the value “${property}” must equal`);
  if (errors.length > before || !atLeast.ok || !atMost.ok || !days.ok) return null;
  const c: EventCondition = { kind: 'event', event: row.event.trim() };
  if (atLeast.value !== undefined) c.atLeast = atLeast.value;
  if (atMost.value !== undefined) c.atMost = atMost.value;
  if (days.value !== undefined) c.withinDays = days.value;
  if (property !== '') c.where = [{ property, equals: parseValue(row.whereValue) }];
  return c;
}

export type BuiltCondition = { ok: true; condition: Condition } | { ok: false; errors: FieldError[] };

/**
 * The builder's rows as one condition tree: a single row stands alone, several are joined by
 * and/or. Paths in the refusals are the tree's own (`condition.all[1].event`), as the engine names them.
 */
export function buildCondition(rows: readonly ConditionRow[], combine: Combine): BuiltCondition {
  if (rows.length === 0) return { ok: false, errors: [{ field: 'condition', message: 'Add at least one condition.' }] };
  const errors: FieldError[] = [];
  const list = combine === 'and' ? 'all' : 'any';
  const parts = rows.map((row, i) => rowCondition(row, rows.length === 1 ? 'condition' : `condition.${list}[${i}]`, errors));
  if (errors.length > 0) return { ok: false, errors };
  const conditions = parts as Condition[];
  if (conditions.length === 1) return { ok: true, condition: conditions[0] as Condition };
  return { ok: true, condition: combine === 'and' ? { kind: 'and', all: conditions } : { kind: 'or', any: conditions } };
}

export type BuiltRule = { ok: true; rule: ComputedTraitRule } | { ok: false; errors: FieldError[] };

export function buildRule(form: TraitForm): BuiltRule {
  const errors: FieldError[] = [];
  const event = form.event.trim();
  if (event === '') errors.push({ field: 'rule.event', message: 'is required: the event’s name, e.g. Order Completed' });
  if (form.ruleKind === 'event_count') {
    const days = wholeNumber(form.withinDays, 1);
    if (!days.ok) errors.push({ field: 'rule.withinDays', message: days.message });
    if (errors.length > 0 || !days.ok) return { ok: false, errors };
    return { ok: true, rule: days.value === undefined ? { kind: 'event_count', event } : { kind: 'event_count', event, withinDays: days.value } };
  }
  const property = form.property.trim();
  if (property === '') errors.push({ field: 'rule.property', message: 'is required: the property’s name, e.g. total' });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, rule: { kind: 'last_property', event, property } };
}

export type Built =
  | { ok: true; class: 'audience'; input: AudienceInput }
  | { ok: true; class: 'trait'; input: ComputedTraitInput }
  | { ok: false; errors: FieldError[] };

/** Refuses here only what cannot be sent at all; the rest (a name that makes no key…) is the engine's to judge. */
export function buildInput(form: ComputationForm): Built {
  const errors: FieldError[] = [];
  const name = form.name.trim();
  if (name === '') errors.push({ field: 'name', message: 'is required' });
  if (form.space === '') errors.push({ field: 'space', message: 'is required: pick the source whose destinations get the identify calls' });
  const every = wholeNumber(form.syncEveryMinutes, 1);
  if (!every.ok) errors.push({ field: 'syncEveryMinutes', message: every.message });
  const base = { name, space: form.space, syncEveryMinutes: every.ok ? (every.value ?? null) : null };
  if (form.class === 'audience') {
    const condition = buildCondition(form.rows, form.combine);
    if (!condition.ok) errors.push(...condition.errors);
    if (errors.length > 0 || !condition.ok) return { ok: false, errors };
    return { ok: true, class: 'audience', input: { ...base, condition: condition.condition } };
  }
  const rule = buildRule(form);
  if (!rule.ok) errors.push(...rule.errors);
  if (errors.length > 0 || !rule.ok) return { ok: false, errors };
  return { ok: true, class: 'trait', input: { ...base, rule: rule.rule } };
}

function rowOf(c: Condition): ConditionRow | null {
  if (c.kind === 'trait') return { ...emptyRow('trait'), trait: c.trait, op: c.op, value: valueText(c.value) };
  if (c.kind !== 'event') return null;
  const where = c.where ?? [];
  // The builder has room for one "where"; more than one cannot be shown faithfully.
  if (where.length > 1) return null;
  return {
    ...emptyRow('event'),
    event: c.event,
    atLeast: c.atLeast === undefined ? '' : String(c.atLeast),
    atMost: c.atMost === undefined ? '' : String(c.atMost),
    withinDays: c.withinDays === undefined ? '' : String(c.withinDays),
    whereProperty: where[0]?.property ?? '',
    whereValue: where[0] ? valueText(where[0].equals) : '',
  };
}

/** The builder's rows for a saved condition, or null when it nests deeper than the builder shows. */
export function rowsOf(condition: Condition): { combine: Combine; rows: ConditionRow[] } | null {
  const parts = condition.kind === 'and' ? { combine: 'and' as const, list: condition.all } : condition.kind === 'or' ? { combine: 'or' as const, list: condition.any } : null;
  if (!parts) {
    const row = rowOf(condition);
    return row ? { combine: 'and', rows: [row] } : null;
  }
  const rows = parts.list.map(rowOf);
  if (rows.length === 0 || rows.some((r) => r === null)) return null;
  return { combine: parts.combine, rows: rows as ConditionRow[] };
}

export type Editable = { ok: true; form: ComputationForm } | { ok: false; problem: string };

/** A saved computation as the form that would save it again. */
export function formOf(c: Computation): Editable {
  const every = c.syncEveryMinutes === null ? '' : String(c.syncEveryMinutes);
  if (c.class === 'audience') {
    const built = c.condition ? rowsOf(c.condition) : null;
    if (!built) return { ok: false, problem: 'Its condition nests groups inside groups, which this form cannot show; save a new version through the control API.' };
    return { ok: true, form: { class: 'audience', name: c.name, space: c.space, combine: built.combine, rows: built.rows, syncEveryMinutes: every } };
  }
  if (!c.rule) return { ok: false, problem: 'It has no rule to edit.' };
  const rule = c.rule;
  return {
    ok: true,
    form: {
      ...emptyTrait(c.space),
      name: c.name,
      ruleKind: rule.kind,
      event: rule.event,
      withinDays: rule.kind === 'event_count' && rule.withinDays !== undefined ? String(rule.withinDays) : '',
      property: rule.kind === 'last_property' ? rule.property : '',
      syncEveryMinutes: every,
    },
  };
}

/** The key the engine will send for this name (the same rules: src-shared/trait-key.ts); '' when it has none. */
export function keyPreview(name: string): string {
  return traitKey(name) ?? '';
}

/** Where on the form a refusal is shown. */
export type Place = 'name' | 'space' | 'interval' | 'condition' | 'rule' | `row:${number}` | 'general';

/**
 * A refusal's field path (ours or the engine's, with or without a leading `audience.` /
 * `trait.` / `input.`) → the place on the form that shows it.
 */
export function placeOf(field: string): Place {
  const f = field.replace(/^(audience|trait|computedTrait|computation|input)\./, '');
  if (/^name\b/.test(f) || f === 'key') return 'name';
  if (/^space\b/.test(f)) return 'space';
  if (/^(syncEveryMinutes|interval)\b/.test(f)) return 'interval';
  if (/^rule\b/.test(f)) return 'rule';
  const row = /^condition\.(?:all|any)\[(\d+)\]/.exec(f);
  if (row) return `row:${Number(row[1])}`;
  if (/^condition(\.(kind|all|any))?$/.test(f)) return 'condition';
  if (/^condition\./.test(f)) return 'row:0';
  return 'general';
}
