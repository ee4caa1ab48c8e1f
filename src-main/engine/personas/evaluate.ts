/**
 * Audience conditions and computed-trait rules over one profile at one instant. Pure: the profile
 * comes in as a snapshot, time as `now` (the engine's clock), and nothing is read or written.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src-shared/json';
import type { ComputedTraitRule, Condition, TraitCondition } from '../../../src-shared/personas';

export const DAY_MS = 24 * 60 * 60 * 1000;

export interface TrackedEvent {
  /** The message's timestamp (skew-corrected by ingest), in ms. */
  at: number;
  /** The message's row id: message order, which breaks ties between equal timestamps. */
  seq: number;
  properties: JsonObject;
}

export interface ProfileSnapshot {
  profileId: string;
  userId: string | null;
  /** Identify traits merged, with the space's current computed-trait values over them. */
  traits: { readonly [key: string]: JsonValue };
  /** Track events by name; only the names a definition needs are loaded. */
  events: ReadonlyMap<string, readonly TrackedEvent[]>;
}

/** JSON with object keys sorted: two values are equal JSON exactly when these strings are. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k] as JsonValue)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export const jsonEqual = (a: JsonValue, b: JsonValue): boolean => a === b || canonicalJson(a) === canonicalJson(b);

function eventsWithin(p: ProfileSnapshot, event: string, withinDays: number | undefined, now: number): readonly TrackedEvent[] {
  const all = p.events.get(event) ?? [];
  if (withinDays === undefined) return all;
  const since = now - withinDays * DAY_MS;
  return all.filter((e) => e.at >= since);
}

/**
 * Trait operators. A trait that is absent (or null) exists not; it is `not_equals` to every value.
 * gt/gte/lt/lte compare two numbers, or two strings by code unit (so ISO 8601 times compare as
 * times); any other pair is false. `contains` is a substring test on a string trait, and an element
 * test (JSON equality) on an array trait.
 */
export function traitMatches(c: TraitCondition, traits: ProfileSnapshot['traits']): boolean {
  const has = Object.prototype.hasOwnProperty.call(traits, c.trait);
  const actual = has ? (traits[c.trait] as JsonValue) : undefined;
  const expected = c.value ?? null;
  switch (c.op) {
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'not_exists':
      return actual === undefined || actual === null;
    case 'equals':
      return actual !== undefined && jsonEqual(actual, expected);
    case 'not_equals':
      return actual === undefined || !jsonEqual(actual, expected);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const comparable =
        (typeof actual === 'number' && typeof expected === 'number') || (typeof actual === 'string' && typeof expected === 'string');
      if (!comparable) return false;
      const a = actual as number | string;
      const b = expected as number | string;
      return c.op === 'gt' ? a > b : c.op === 'gte' ? a >= b : c.op === 'lt' ? a < b : a <= b;
    }
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      if (Array.isArray(actual)) return actual.some((v) => jsonEqual(v, expected));
      return false;
  }
}

export function matches(c: Condition, p: ProfileSnapshot, now: number): boolean {
  switch (c.kind) {
    case 'and':
      return c.all.every((x) => matches(x, p, now));
    case 'or':
      return c.any.some((x) => matches(x, p, now));
    case 'trait':
      return traitMatches(c, p.traits);
    case 'event': {
      let n = 0;
      for (const e of eventsWithin(p, c.event, c.withinDays, now)) {
        const where = c.where ?? [];
        if (where.every((w) => e.properties[w.property] !== undefined && jsonEqual(e.properties[w.property] as JsonValue, w.equals))) n++;
      }
      return n >= (c.atLeast ?? 1) && (c.atMost === undefined || n <= c.atMost);
    }
  }
}

/**
 * A computed trait's value, or undefined when the profile has none.
 * - event_count: how many of the profile's `event` fall in the last D days (all time without D).
 *   A profile that never performed the event has no value; one whose events all aged out of the
 *   window has 0 (a real count, and a change worth sending).
 * - last_property: `property` of the most recent `event` (by timestamp, then message order). No
 *   value when the event was never performed, or when its most recent occurrence lacks the property.
 */
export function computeTrait(rule: ComputedTraitRule, p: ProfileSnapshot, now: number): JsonValue | undefined {
  const all = p.events.get(rule.event);
  if (!all || all.length === 0) return undefined;
  if (rule.kind === 'event_count') return eventsWithin(p, rule.event, rule.withinDays, now).length;
  let last = all[0] as TrackedEvent;
  for (const e of all) if (e.at > last.at || (e.at === last.at && e.seq > last.seq)) last = e;
  return last.properties[rule.property];
}

/** What a definition reads of a profile: which events (and whether their properties), which traits. */
export interface Needs {
  /** Event name → whether its properties are read. */
  events: Map<string, boolean>;
  traits: Set<string>;
}

export function needsOf(definition: { condition: Condition } | { rule: ComputedTraitRule }, needs: Needs = { events: new Map(), traits: new Set() }): Needs {
  const addEvent = (name: string, properties: boolean): void => {
    needs.events.set(name, (needs.events.get(name) ?? false) || properties);
  };
  const walk = (c: Condition): void => {
    if (c.kind === 'and') c.all.forEach(walk);
    else if (c.kind === 'or') c.any.forEach(walk);
    else if (c.kind === 'trait') needs.traits.add(c.trait);
    else addEvent(c.event, (c.where ?? []).length > 0);
  };
  if ('condition' in definition) walk(definition.condition);
  else addEvent(definition.rule.event, definition.rule.kind === 'last_property');
  return needs;
}
