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

/**
 * What a profile did of one event: its summary (kept as track calls are read, so a definition that
 * needs no more reads one row per profile), and the occurrences themselves when a definition needs
 * them: every one with its properties for a `where`, or those at or after `since` for a time window
 * that the profile's occurrences straddle.
 */
export interface EventHistory {
  count: number;
  firstAt: number;
  lastAt: number;
  /** The most recent occurrence (by timestamp, then message order); its properties only when read. */
  last: TrackedEvent;
  occurrences?: { since: number; list: readonly TrackedEvent[] };
}

export interface ProfileSnapshot {
  profileId: string;
  userId: string | null;
  /** Identify traits merged, with the space's current computed-trait values over them. */
  traits: { readonly [key: string]: JsonValue };
  /** By event name; only the names a definition needs are loaded. */
  events: ReadonlyMap<string, EventHistory>;
}

/** The history of a list of occurrences, all of them kept (tests, and a `where` that reads each one). */
export function historyOf(list: readonly TrackedEvent[]): EventHistory | undefined {
  let first: TrackedEvent | undefined;
  let last: TrackedEvent | undefined;
  for (const e of list) {
    if (first === undefined || e.at < first.at) first = e;
    if (last === undefined || e.at > last.at || (e.at === last.at && e.seq > last.seq)) last = e;
  }
  if (first === undefined || last === undefined) return undefined;
  return { count: list.length, firstAt: first.at, lastAt: last.at, last, occurrences: { since: Number.NEGATIVE_INFINITY, list } };
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

/** Occurrences since `now - withinDays` (all time without a window) that satisfy `accept`. */
function countWithin(h: EventHistory, withinDays: number | undefined, now: number, accept?: (e: TrackedEvent) => boolean): number {
  const since = withinDays === undefined ? Number.NEGATIVE_INFINITY : now - withinDays * DAY_MS;
  if (accept === undefined) {
    if (h.firstAt >= since) return h.count;
    if (h.lastAt < since) return 0;
  }
  const occurrences = h.occurrences;
  if (occurrences === undefined || occurrences.since > since) throw new Error('the snapshot lacks the occurrences this definition reads');
  let n = 0;
  for (const e of occurrences.list) if (e.at >= since && (accept === undefined || accept(e))) n++;
  return n;
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
      const h = p.events.get(c.event);
      const where = c.where ?? [];
      const n =
        h === undefined
          ? 0
          : countWithin(
              h,
              c.withinDays,
              now,
              where.length === 0
                ? undefined
                : (e) => where.every((w) => e.properties[w.property] !== undefined && jsonEqual(e.properties[w.property] as JsonValue, w.equals)),
            );
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
  const h = p.events.get(rule.event);
  if (h === undefined || h.count === 0) return undefined;
  if (rule.kind === 'event_count') return countWithin(h, rule.withinDays, now);
  return h.last.properties[rule.property];
}

/** What a definition reads of one event. */
export interface EventNeeds {
  /** Every occurrence with its properties (a `where`). */
  occurrences: boolean;
  /** The most recent occurrence's properties (last_property). */
  lastProperties: boolean;
  /** The time windows counted, in days. */
  windows: Set<number>;
}

/** What a definition reads of a profile: which events (and how), which traits. */
export interface Needs {
  events: Map<string, EventNeeds>;
  traits: Set<string>;
}

export function needsOf(definition: { condition: Condition } | { rule: ComputedTraitRule }, needs: Needs = { events: new Map(), traits: new Set() }): Needs {
  const addEvent = (name: string, add: { occurrences?: boolean; lastProperties?: boolean; withinDays?: number }): void => {
    let e = needs.events.get(name);
    if (!e) needs.events.set(name, (e = { occurrences: false, lastProperties: false, windows: new Set() }));
    if (add.occurrences) e.occurrences = true;
    if (add.lastProperties) e.lastProperties = true;
    if (add.withinDays !== undefined) e.windows.add(add.withinDays);
  };
  const walk = (c: Condition): void => {
    if (c.kind === 'and') c.all.forEach(walk);
    else if (c.kind === 'or') c.any.forEach(walk);
    else if (c.kind === 'trait') needs.traits.add(c.trait);
    else addEvent(c.event, { occurrences: (c.where ?? []).length > 0, withinDays: c.withinDays });
  };
  if ('condition' in definition) walk(definition.condition);
  else if (definition.rule.kind === 'last_property') addEvent(definition.rule.event, { lastProperties: true });
  else addEvent(definition.rule.event, { withinDays: definition.rule.withinDays });
  return needs;
}
