/**
 * Validation of audience and computed-trait definitions as they arrive from a transport (whatever
 * the static types say). Pure: each parser returns a clean copy (unknown keys left behind) or the
 * problems, each naming its field path (e.g. `audience.condition.all[1].withinDays`) and the limit.
 */
import { isJsonObject, type JsonValue } from '../../../src-shared/json';
import {
  TRAIT_OPERATORS,
  type AudienceInput,
  type ComputedTraitInput,
  type ComputedTraitRule,
  type Condition,
  type EventCondition,
  type TraitCondition,
  type TraitOperator,
} from '../../../src-shared/personas';
import type { FieldError } from '../../../src-shared/settings';
import { traitKey } from '../../../src-shared/trait-key';

export const DEFINITION_LIMITS = {
  nameLength: 100,
  /** A condition at the top is depth 1; each and/or around it adds one. */
  depth: 5,
  /** Event and trait conditions (the leaves); and/or groups are not counted. */
  conditions: 50,
  /** Event, trait and property names. */
  identifierLength: 200,
  wherePerCondition: 20,
  withinDays: 3650,
  count: 1_000_000,
  /** One week. */
  syncEveryMinutes: 10_080,
} as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const isWhole = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;

function isJsonValue(v: unknown, depth = 0): v is JsonValue {
  if (depth > 64) return false;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every((x) => isJsonValue(x, depth + 1));
  if (isJsonObject(v)) return Object.values(v).every((x) => isJsonValue(x, depth + 1));
  return false;
}

function identifier(v: unknown, field: string, what: string, errors: FieldError[]): string {
  if (typeof v !== 'string' || v.trim() === '') {
    errors.push({ field, message: `is required: ${what}` });
    return '';
  }
  if (v.length > DEFINITION_LIMITS.identifierLength) {
    errors.push({ field, message: `is ${v.length} characters; the limit is ${DEFINITION_LIMITS.identifierLength}` });
  }
  return v;
}

function days(v: unknown, field: string, errors: FieldError[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isWhole(v, DEFINITION_LIMITS.withinDays)) {
    errors.push({ field, message: `must be a whole number of days from 1 to ${DEFINITION_LIMITS.withinDays}` });
    return undefined;
  }
  return v;
}

function count(v: unknown, field: string, errors: FieldError[]): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isWhole(v, DEFINITION_LIMITS.count)) {
    errors.push({ field, message: `must be a whole number from 1 to ${DEFINITION_LIMITS.count}` });
    return undefined;
  }
  return v;
}

function eventCondition(c: Record<string, unknown>, path: string, errors: FieldError[]): EventCondition {
  const out: EventCondition = { kind: 'event', event: identifier(c.event, `${path}.event`, 'the event’s name, e.g. Order Completed', errors) };
  const atLeast = count(c.atLeast, `${path}.atLeast`, errors);
  const atMost = count(c.atMost, `${path}.atMost`, errors);
  const within = days(c.withinDays, `${path}.withinDays`, errors);
  if (atLeast !== undefined) out.atLeast = atLeast;
  if (atMost !== undefined) out.atMost = atMost;
  if (within !== undefined) out.withinDays = within;
  if (atMost !== undefined && atMost < (atLeast ?? 1)) {
    errors.push({ field: `${path}.atMost`, message: `must be at least atLeast (${atLeast ?? 1})` });
  }
  if (c.where !== undefined && c.where !== null) {
    if (!Array.isArray(c.where)) errors.push({ field: `${path}.where`, message: 'must be a list of { property, equals }' });
    else if (c.where.length > DEFINITION_LIMITS.wherePerCondition) {
      errors.push({ field: `${path}.where`, message: `has ${c.where.length} entries; the limit is ${DEFINITION_LIMITS.wherePerCondition}` });
    } else if (c.where.length > 0) {
      out.where = c.where.map((w: unknown, i) => {
        const field = `${path}.where[${i}]`;
        if (!isJsonObject(w)) {
          errors.push({ field, message: 'must be an object { property, equals }' });
          return { property: '', equals: null };
        }
        const property = identifier(w.property, `${field}.property`, 'the property’s name', errors);
        if (!('equals' in w) || !isJsonValue(w.equals)) errors.push({ field: `${field}.equals`, message: 'is required: a JSON value' });
        return { property, equals: isJsonValue(w.equals) ? w.equals : null };
      });
    }
  }
  return out;
}

const VALUELESS: readonly TraitOperator[] = ['exists', 'not_exists'];
const ORDERED: readonly TraitOperator[] = ['gt', 'gte', 'lt', 'lte'];

function traitCondition(c: Record<string, unknown>, path: string, errors: FieldError[]): TraitCondition {
  const trait = identifier(c.trait, `${path}.trait`, 'the trait’s key, e.g. plan', errors);
  if (!(TRAIT_OPERATORS as readonly unknown[]).includes(c.op)) {
    errors.push({ field: `${path}.op`, message: `must be one of ${TRAIT_OPERATORS.join(', ')}` });
    return { kind: 'trait', trait, op: 'exists' };
  }
  const op = c.op as TraitOperator;
  if (VALUELESS.includes(op)) return { kind: 'trait', trait, op };
  if (!isJsonValue(c.value)) {
    errors.push({ field: `${path}.value`, message: `is required by ${op}: a JSON value` });
    return { kind: 'trait', trait, op };
  }
  if (ORDERED.includes(op) && typeof c.value !== 'number' && typeof c.value !== 'string') {
    errors.push({ field: `${path}.value`, message: `must be a number or a string to compare with ${op}` });
  }
  return { kind: 'trait', trait, op, value: c.value };
}

function condition(c: unknown, path: string, depth: number, leaves: { n: number }, errors: FieldError[]): Condition {
  const fallback: Condition = { kind: 'and', all: [] };
  if (!isJsonObject(c)) {
    errors.push({ field: path, message: 'must be a condition object with a kind: event, trait, and or or' });
    return fallback;
  }
  if (depth > DEFINITION_LIMITS.depth) {
    errors.push({ field: path, message: `is nested ${depth} levels deep; the limit is ${DEFINITION_LIMITS.depth}` });
    return fallback;
  }
  switch (c.kind) {
    case 'event':
      leaves.n++;
      return eventCondition(c, path, errors);
    case 'trait':
      leaves.n++;
      return traitCondition(c, path, errors);
    case 'and':
    case 'or': {
      const key = c.kind === 'and' ? 'all' : 'any';
      const list = c[key];
      if (!Array.isArray(list) || list.length === 0) {
        errors.push({ field: `${path}.${key}`, message: 'must be a non-empty list of conditions' });
        return fallback;
      }
      const children = list.map((child: unknown, i) => condition(child, `${path}.${key}[${i}]`, depth + 1, leaves, errors));
      return c.kind === 'and' ? { kind: 'and', all: children } : { kind: 'or', any: children };
    }
    default:
      errors.push({ field: `${path}.kind`, message: 'must be one of event, trait, and, or' });
      return fallback;
  }
}

export function parseCondition(input: unknown, path: string): Parsed<Condition> {
  const errors: FieldError[] = [];
  const leaves = { n: 0 };
  const value = condition(input, path, 1, leaves, errors);
  if (leaves.n > DEFINITION_LIMITS.conditions) {
    errors.push({ field: path, message: `has ${leaves.n} conditions; the limit is ${DEFINITION_LIMITS.conditions}` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value };
}

export function parseRule(input: unknown, path: string): Parsed<ComputedTraitRule> {
  const errors: FieldError[] = [];
  if (!isJsonObject(input)) return { ok: false, errors: [{ field: path, message: 'must be a rule object with a kind: event_count or last_property' }] };
  const event = identifier(input.event, `${path}.event`, 'the event’s name, e.g. Order Completed', errors);
  let rule: ComputedTraitRule;
  if (input.kind === 'event_count') {
    const within = days(input.withinDays, `${path}.withinDays`, errors);
    rule = within === undefined ? { kind: 'event_count', event } : { kind: 'event_count', event, withinDays: within };
  } else if (input.kind === 'last_property') {
    rule = { kind: 'last_property', event, property: identifier(input.property, `${path}.property`, 'the property’s name, e.g. total', errors) };
  } else {
    return { ok: false, errors: [{ field: `${path}.kind`, message: 'must be event_count or last_property' }] };
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: rule };
}

/** What both kinds of definition share, checked against the sources that exist. */
interface Base {
  name: string;
  key: string;
  space: string;
  syncEveryMinutes: number | null;
}

function parseBase(input: Record<string, unknown>, path: string, sources: readonly string[], errors: FieldError[]): Base {
  let name = '';
  let key = '';
  if (typeof input.name !== 'string' || input.name.trim() === '') errors.push({ field: `${path}.name`, message: 'is required' });
  else {
    name = input.name.trim();
    const length = [...name].length;
    if (length > DEFINITION_LIMITS.nameLength) {
      errors.push({ field: `${path}.name`, message: `is ${length} characters; the limit is ${DEFINITION_LIMITS.nameLength}` });
    }
    const k = traitKey(name);
    if (k === null) {
      errors.push({ field: `${path}.name`, message: 'has no letter or digit (A–Z, 0–9, or accented letters) to make a trait key from' });
    } else key = k;
  }
  let space = '';
  if (typeof input.space !== 'string' || input.space === '') {
    errors.push({ field: `${path}.space`, message: 'is required: the source whose destinations get the identify calls' });
  } else if (!sources.includes(input.space)) {
    errors.push({ field: `${path}.space`, message: `no source named "${input.space}"` });
  } else space = input.space;
  let syncEveryMinutes: number | null = null;
  if (input.syncEveryMinutes !== undefined && input.syncEveryMinutes !== null) {
    if (!isWhole(input.syncEveryMinutes, DEFINITION_LIMITS.syncEveryMinutes)) {
      errors.push({
        field: `${path}.syncEveryMinutes`,
        message: `must be a whole number of minutes from 1 to ${DEFINITION_LIMITS.syncEveryMinutes} (a week), or null for on demand only`,
      });
    } else syncEveryMinutes = input.syncEveryMinutes;
  }
  return { name, key, space, syncEveryMinutes };
}

export type ParsedAudience = Base & { input: AudienceInput };
export type ParsedTrait = Base & { input: ComputedTraitInput };

export function parseAudienceInput(input: unknown, sources: readonly string[], path = 'audience'): Parsed<ParsedAudience> {
  if (!isJsonObject(input)) return { ok: false, errors: [{ field: path, message: 'must be an object { name, space, condition, syncEveryMinutes }' }] };
  const errors: FieldError[] = [];
  const base = parseBase(input, path, sources, errors);
  const c = parseCondition(input.condition, `${path}.condition`);
  if (!c.ok) errors.push(...c.errors);
  if (errors.length > 0 || !c.ok) return { ok: false, errors };
  return { ok: true, value: { ...base, input: { name: base.name, space: base.space, syncEveryMinutes: base.syncEveryMinutes, condition: c.value } } };
}

export function parseComputedTraitInput(input: unknown, sources: readonly string[], path = 'trait'): Parsed<ParsedTrait> {
  if (!isJsonObject(input)) return { ok: false, errors: [{ field: path, message: 'must be an object { name, space, rule, syncEveryMinutes }' }] };
  const errors: FieldError[] = [];
  const base = parseBase(input, path, sources, errors);
  const r = parseRule(input.rule, `${path}.rule`);
  if (!r.ok) errors.push(...r.errors);
  if (errors.length > 0 || !r.ok) return { ok: false, errors };
  return { ok: true, value: { ...base, input: { name: base.name, space: base.space, syncEveryMinutes: base.syncEveryMinutes, rule: r.value } } };
}
