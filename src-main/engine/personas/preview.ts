/**
 * A preview without evaluating every profile. The definition is turned into what a member must
 * have in the indexes (a superset of the members: "has a summary of event X with n ≥ N and
 * last_at ≥ since", "has trait k", "has trait k = v"); the store reads those candidates in profile
 * order, a batch at a time, and each batch is judged by the same pure evaluation as a sync. The
 * walk stops once the count reaches its limit, so a wide audience costs a bounded number of
 * profiles and a narrow one the index range of its rarest condition.
 */
import type { JsonValue } from '../../../src-shared/json';
import type { ComputedTraitRule, Condition } from '../../../src-shared/personas';
import { isJsonObject } from '../../../src-shared/json';
import { computeTrait, matches, needsOf, type Needs, type ProfileSnapshot } from './evaluate';

/**
 * What a member must have in the indexes. A superset only: the evaluation decides. `since` is a
 * window's length in days (the start is worked out at `now` when read).
 */
export type Candidates =
  | { kind: 'event'; event: string; atLeast: number; withinDays?: number }
  | { kind: 'trait'; key: string; value?: string }
  /** No trait `key` with this stored value (`value` absent: none but null); read over every profile. */
  | { kind: 'without'; key: string; value?: string }
  | { kind: 'and'; all: Candidates[] }
  | { kind: 'or'; any: Candidates[] };

export type PreviewDefinition = { condition: Condition } | { rule: ComputedTraitRule };

/** Members counted before a preview says "N+" instead of reading on. */
export const PREVIEW_COUNT_LIMIT = 1_000;
/** Profiles judged per batch. */
export const PREVIEW_BATCH = 250;

/**
 * Pure: the candidates of a condition, or null when they cannot be told from the indexes (a
 * trait a computed trait of the space overlays, `not_equals` an object or array).
 */
export function candidatesOfCondition(c: Condition, overlaid: ReadonlySet<string>): Candidates | null {
  switch (c.kind) {
    case 'event':
      // atLeast is at least 1 (validate.ts), so a member has at least one call of the event.
      return { kind: 'event', event: c.event, atLeast: Math.max(1, c.atLeast ?? 1), ...(c.withinDays === undefined ? {} : { withinDays: c.withinDays }) };
    case 'trait': {
      if (overlaid.has(c.trait)) return null;
      // Equality to a scalar is equality of the stored JSON text (JSON.stringify of a scalar is
      // canonical); objects and arrays may be stored with their keys in another order.
      const v = c.value ?? null;
      const scalar = !Array.isArray(v) && !isJsonObject(v);
      // A member may have no trait at all: these are read over every profile, but in SQL (a
      // probe per profile) rather than evaluated one by one.
      if (c.op === 'not_exists') return { kind: 'without', key: c.trait };
      if (c.op === 'not_equals') return scalar ? { kind: 'without', key: c.trait, value: JSON.stringify(v) } : null;
      // Every other operator needs the trait present; for objects and arrays the key alone narrows.
      if (c.op === 'equals' && scalar) return { kind: 'trait', key: c.trait, value: JSON.stringify(v) };
      return { kind: 'trait', key: c.trait };
    }
    case 'and': {
      const all = c.all.map((x) => candidatesOfCondition(x, overlaid)).filter((x): x is Candidates => x !== null);
      if (all.length === 0) return null;
      return all.length === 1 ? (all[0] as Candidates) : { kind: 'and', all: driverFirst(all) };
    }
    case 'or': {
      const any = c.any.map((x) => candidatesOfCondition(x, overlaid));
      if (any.length === 0 || any.some((x) => x === null)) return null;
      return any.length === 1 ? (any[0] as Candidates) : { kind: 'or', any: any as Candidates[] };
    }
  }
}

/**
 * The first of an `and` drives the read (its index range is walked; the others are probed per
 * row), so the likely narrowest goes first: a trait equal to a value, then an event in a window,
 * then the rest, in the definition's order otherwise.
 */
function driverFirst(all: Candidates[]): Candidates[] {
  const rank = (c: Candidates): number =>
    c.kind === 'trait' && c.value !== undefined ? 0 : c.kind === 'event' && c.withinDays !== undefined ? 1 : c.kind === 'or' ? 3 : c.kind === 'without' ? 4 : 2;
  return all.map((c, i) => ({ c, i })).sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i).map((x) => x.c);
}

/** Pure: the candidates of a definition; a computed trait has a value only where its event was performed. */
export function candidatesOf(definition: PreviewDefinition, overlaid: ReadonlySet<string>): Candidates | null {
  if ('condition' in definition) return candidatesOfCondition(definition.condition, overlaid);
  return { kind: 'event', event: definition.rule.event, atLeast: 1 };
}

/**
 * Pure: the value of a definition for one profile (audiences: true for a member, undefined
 * otherwise), after laying the space's computed traits over its identify traits.
 */
export function valueOf(definition: PreviewDefinition, overlays: ReadonlyMap<string, ComputedTraitRule>, s: ProfileSnapshot, now: number): JsonValue | undefined {
  const traits = s.traits as { [key: string]: JsonValue };
  for (const [key, rule] of overlays) {
    const v = computeTrait(rule, s, now);
    if (v === undefined) delete traits[key];
    else traits[key] = v;
  }
  if ('condition' in definition) return matches(definition.condition, s, now) ? true : undefined;
  return computeTrait(definition.rule, s, now);
}

/** What a definition reads, its overlays' events and traits included. */
export function previewNeeds(definition: PreviewDefinition, overlays: ReadonlyMap<string, ComputedTraitRule>): Needs {
  const needs = needsOf(definition);
  for (const rule of overlays.values()) needsOf({ rule }, needs);
  return needs;
}

/** What the preview reads of the store. */
export interface PreviewReads {
  /** Up to `limit` profile ids after `after`, in profile order, that may satisfy `c` (every profile when null). */
  candidateIds(c: Candidates | null, now: number, after: string, limit: number): string[];
  /** These profiles (those that exist, in the same order) with what `needs` names. */
  snapshotsOf(needs: Needs, now: number, profileIds: readonly string[]): ProfileSnapshot[];
}

export interface PreviewWalk {
  /** Members (profiles with a value), exact unless `capped`. */
  total: number;
  /** The walk stopped at the limit: there are `total` or more. */
  capped: boolean;
  /** The first `show` members in profile order, with their values. */
  shown: { snapshot: ProfileSnapshot; value: JsonValue }[];
}

export function walkPreview(
  definition: PreviewDefinition,
  overlays: ReadonlyMap<string, ComputedTraitRule>,
  reads: PreviewReads,
  now: number,
  opts: { show: number; limit?: number; batch?: number },
): PreviewWalk {
  const limit = Math.max(opts.limit ?? PREVIEW_COUNT_LIMIT, opts.show);
  const batch = opts.batch ?? PREVIEW_BATCH;
  const candidates = candidatesOf(definition, new Set(overlays.keys()));
  const needs = previewNeeds(definition, overlays);
  const shown: PreviewWalk['shown'] = [];
  let total = 0;
  let after = '';
  for (;;) {
    const ids = reads.candidateIds(candidates, now, after, batch);
    for (const s of reads.snapshotsOf(needs, now, ids)) {
      const value = valueOf(definition, overlays, s, now);
      if (value === undefined) continue;
      total++;
      if (shown.length < opts.show) shown.push({ snapshot: s, value });
      if (total >= limit) return { total, capped: true, shown };
    }
    if (ids.length < batch) return { total, capped: false, shown };
    after = ids[ids.length - 1] as string;
  }
}
