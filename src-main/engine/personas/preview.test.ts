/**
 * The preview reads candidates by index, in batches, and stops at its count limit; whatever the
 * condition, its members, values and count equal those of evaluating every profile (the sync's
 * evaluation), on a real SQLite log of random messages. And its candidate reads are index reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { InboundMessage } from '../../../src-shared/events';
import type { JsonObject, JsonValue } from '../../../src-shared/json';
import type { ComputedTraitRule, Condition, TraitOperator } from '../../../src-shared/personas';
import { openDatabase, type Db } from '../store/database';
import { createStores, type Stores } from '../store/stores';
import type { AcceptedItem } from '../store/log-store';
import { computeTrait, DAY_MS, matches, needsOf } from './evaluate';
import { candidatesOf, walkPreview, type PreviewDefinition } from './preview';

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const USERS = Array.from({ length: 14 }, (_, i) => `u${String(i).padStart(2, '0')}`);
const ANONS = ['a1', 'a2', 'a3', 'a4', 'a5'];
const EVENTS = ['Order Completed', 'Viewed', 'Signed Up'];
const TRAITS = ['plan', 'n', 'tags', 'score'];
const TRAIT_VALUES: JsonValue[] = ['free', 'pro', 0, 1, 2, 3, true, null, ['a', 'b'], ['b'], { x: 1, y: 2 }, 'pr'];

interface Spec {
  type: 'identify' | 'track' | 'alias';
  userId: string | null;
  anonymousId: string | null;
  event: string;
  traits: JsonObject;
  properties: JsonObject;
  /** Days before NOW, so windows straddle some profiles' calls. */
  daysAgo: number;
}

const specArb: fc.Arbitrary<Spec> = fc.record({
  type: fc.constantFrom('identify', 'track', 'track', 'track', 'alias'),
  userId: fc.option(fc.constantFrom(...USERS), { nil: null, freq: 4 }),
  anonymousId: fc.option(fc.constantFrom(...ANONS), { nil: null }),
  event: fc.constantFrom(...EVENTS),
  traits: fc.dictionary(fc.constantFrom(...TRAITS), fc.constantFrom(...TRAIT_VALUES), { maxKeys: 3 }),
  properties: fc.dictionary(fc.constantFrom('total', 'sku'), fc.integer({ min: 0, max: 2 }), { maxKeys: 2 }),
  daysAgo: fc.integer({ min: 0, max: 40 }),
});

function messageOf(s: Spec, k: number): InboundMessage {
  const at = new Date(NOW - s.daysAgo * DAY_MS - k).toISOString();
  const userId = s.type === 'alias' ? (s.userId ?? 'u00') : s.userId;
  return {
    type: s.type,
    messageId: `m-${k}`,
    userId,
    anonymousId: userId === null && s.anonymousId === null ? 'a1' : s.anonymousId,
    ...(s.type === 'track' ? { event: s.event, properties: s.properties } : {}),
    ...(s.type === 'identify' ? { traits: s.traits } : {}),
    ...(s.type === 'alias' ? { previousId: s.anonymousId ?? 'a2' } : {}),
    context: {},
    integrations: {},
    timestamp: at,
    receivedAt: at,
  } as InboundMessage;
}

const OPS: TraitOperator[] = ['exists', 'not_exists', 'equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'contains'];
const leafArb: fc.Arbitrary<Condition> = fc.oneof(
  fc.record(
    {
      kind: fc.constant('event' as const),
      event: fc.constantFrom(...EVENTS, 'Never Sent'),
      atLeast: fc.integer({ min: 1, max: 3 }),
      atMost: fc.integer({ min: 3, max: 6 }),
      withinDays: fc.integer({ min: 1, max: 45 }),
      where: fc.array(fc.record({ property: fc.constantFrom('total', 'sku'), equals: fc.integer({ min: 0, max: 2 }) }), { maxLength: 1 }),
    },
    { requiredKeys: ['kind', 'event'] },
  ),
  fc.record({ kind: fc.constant('trait' as const), trait: fc.constantFrom(...TRAITS, 'lifetime'), op: fc.constantFrom(...OPS), value: fc.constantFrom(...TRAIT_VALUES) }),
);
const conditionArb: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.record({ kind: fc.constant('and' as const), all: fc.array(tie('c'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('or' as const), any: fc.array(tie('c'), { minLength: 1, maxLength: 3 }) }),
  ),
})).c;
const ruleArb: fc.Arbitrary<ComputedTraitRule> = fc.oneof(
  fc.record({ kind: fc.constant('event_count' as const), event: fc.constantFrom(...EVENTS), withinDays: fc.integer({ min: 1, max: 45 }) }, { requiredKeys: ['kind', 'event'] }),
  fc.record({ kind: fc.constant('last_property' as const), event: fc.constantFrom(...EVENTS), property: fc.constantFrom('total', 'sku') }),
);
const definitionArb: fc.Arbitrary<PreviewDefinition> = fc.oneof(
  conditionArb.map((condition) => ({ condition })),
  ruleArb.map((rule) => ({ rule })),
);

function open(dir: string, name: string): { db: Db; stores: Stores } {
  const db = openDatabase(join(dir, name));
  const stores = createStores(db);
  const sourceId = stores.config.upsertSource({ name: 'b', writeKey: `wk_${name}` }, NOW).id;
  return {
    db,
    stores: Object.assign(stores, {
      commit(messages: InboundMessage[]) {
        const items: AcceptedItem[] = messages.map((message) => ({ message, json: JSON.stringify(message), destinationIds: [] }));
        stores.log.commitRequest({ sourceId, path: '/v1/batch', receivedAt: NOW, httpStatus: 200, bytes: 0, userAgent: null }, sourceId, items, [], 1);
      },
    }),
  };
}

/** What the preview said before it read by index: every profile evaluated, members in profile order. */
function everyProfile(stores: Stores, definition: PreviewDefinition, overlays: Map<string, ComputedTraitRule>): { id: string; value: JsonValue }[] {
  const needs = needsOf(definition);
  for (const rule of overlays.values()) needsOf({ rule }, needs);
  const out: { id: string; value: JsonValue }[] = [];
  for (const s of stores.profiles.snapshots(needs, NOW)) {
    const traits = s.traits as { [key: string]: JsonValue };
    for (const [key, rule] of overlays) {
      const v = computeTrait(rule, s, NOW);
      if (v === undefined) delete traits[key];
      else traits[key] = v;
    }
    if ('condition' in definition) {
      if (matches(definition.condition, s, NOW)) out.push({ id: s.profileId, value: true });
    } else {
      const v = computeTrait(definition.rule, s, NOW);
      if (v !== undefined) out.push({ id: s.profileId, value: v });
    }
  }
  return out;
}

test('a preview read by index, in batches, up to its limit equals evaluating every profile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-preview-prop-'));
  let run = 0;
  try {
    fc.assert(
      fc.property(
        fc.array(specArb, { minLength: 1, maxLength: 80 }),
        fc.array(definitionArb, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        (specs, definitions, overlay, batch, limit, show) => {
          const { db, stores } = open(dir, `p-${run++}.sqlite`);
          try {
            (stores as Stores & { commit(m: InboundMessage[]): void }).commit(specs.map(messageOf));
            // A computed trait of the space over the key "lifetime", which no identify sets.
            const overlays = new Map<string, ComputedTraitRule>(overlay ? [['lifetime', { kind: 'event_count', event: 'Order Completed', withinDays: 30 }]] : []);
            for (const definition of definitions) {
              const expected = everyProfile(stores, definition, 'condition' in definition ? overlays : new Map());
              const walk = walkPreview(definition, 'condition' in definition ? overlays : new Map(), stores.profiles, NOW, { show, limit, batch });
              const cap = Math.max(limit, show);
              const why = JSON.stringify({ definition, batch, limit, show });
              assert.equal(walk.total, Math.min(expected.length, cap), why);
              assert.equal(walk.capped, expected.length >= cap, why);
              assert.deepEqual(
                walk.shown.map((m) => ({ id: m.snapshot.profileId, value: m.value })),
                expected.slice(0, Math.min(show, cap)),
                why,
              );
              // Unbounded, the count is exact.
              const full = walkPreview(definition, 'condition' in definition ? overlays : new Map(), stores.profiles, NOW, { show: 1_000, batch });
              assert.equal(full.total, expected.length, why);
              assert.equal(full.capped, false, why);
            }
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 120 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('candidates are read by index ranges and probes, never a scan of events or traits', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-preview-plan-'));
  const { db, stores } = open(dir, 'plan.sqlite');
  try {
    const none = new Set<string>();
    const plan = (condition: Condition): string[] => stores.profiles.candidatePlan(candidatesOf({ condition }, none));
    const ordered = (lines: string[]): boolean => !lines.some((l) => /TEMP B-TREE FOR ORDER BY/.test(l));
    const noScan = (lines: string[]): boolean => !lines.some((l) => /SCAN (persona_events|persona_traits|x\d+ )/.test(l) || /^SCAN x\d+$/.test(l));

    const event = plan({ kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 });
    assert.ok(event.some((l) => /SEARCH x\d+ USING PRIMARY KEY \(event=\? AND profile_id>\?\)/.test(l)), event.join('\n'));
    assert.ok(ordered(event) && noScan(event), event.join('\n'));

    const trait = plan({ kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' });
    assert.ok(trait.some((l) => /SEARCH x\d+ USING COVERING INDEX persona_traits_key \(key=\? AND profile_id>\?\)/.test(l)), trait.join('\n'));
    assert.ok(ordered(trait) && noScan(trait), trait.join('\n'));

    const both = plan({ kind: 'and', all: [{ kind: 'event', event: 'Order Completed', atLeast: 2 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] });
    assert.ok(both.some((l) => l.includes('persona_traits_key (key=? AND profile_id>?)')), both.join('\n'));
    assert.ok(both.some((l) => /USING PRIMARY KEY \(event=\? AND profile_id=\?\)/.test(l)), both.join('\n'));
    assert.ok(ordered(both) && noScan(both), both.join('\n'));

    const either = plan({ kind: 'or', any: [{ kind: 'event', event: 'A' }, { kind: 'trait', trait: 'plan', op: 'exists' }] });
    assert.ok(noScan(either), either.join('\n'));

    const negated = plan({ kind: 'trait', trait: 'email', op: 'not_exists' });
    assert.ok(negated.some((l) => /SEARCH x\d+ USING PRIMARY KEY \(profile_id>\?\)/.test(l)), negated.join('\n'));
    assert.ok(negated.some((l) => /SEARCH x\d+w USING PRIMARY KEY \(profile_id=\? AND key=\?\)/.test(l)), negated.join('\n'));
    assert.ok(ordered(negated), negated.join('\n'));

    const rule = stores.profiles.candidatePlan(candidatesOf({ rule: { kind: 'last_property', event: 'Viewed', property: 'sku' } }, none));
    assert.ok(ordered(rule) && noScan(rule), rule.join('\n'));
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('which conditions narrow by index, which drive, and which are left to the evaluation', () => {
  const none = new Set<string>();
  assert.equal(candidatesOf({ condition: { kind: 'trait', trait: 'plan', op: 'not_equals', value: { a: 1 } } }, none), null, 'an object may be stored with its keys in another order');
  assert.equal(candidatesOf({ condition: { kind: 'trait', trait: 'plan', op: 'exists' } }, new Set(['plan'])), null, 'a computed trait overlays it');
  assert.equal(candidatesOf({ condition: { kind: 'or', any: [{ kind: 'event', event: 'A' }, { kind: 'trait', trait: 'p', op: 'exists' }] } }, new Set(['p'])), null);
  assert.deepEqual(
    candidatesOf({ condition: { kind: 'and', all: [{ kind: 'event', event: 'A' }, { kind: 'trait', trait: 'p', op: 'not_exists' }, { kind: 'trait', trait: 'q', op: 'equals', value: 1 }] } }, none),
    { kind: 'and', all: [{ kind: 'trait', key: 'q', value: '1' }, { kind: 'event', event: 'A', atLeast: 1 }, { kind: 'without', key: 'p' }] },
    'the trait with a value drives; a negation is probed last',
  );
  assert.deepEqual(candidatesOf({ condition: { kind: 'trait', trait: 'plan', op: 'not_equals', value: 'pro' } }, none), { kind: 'without', key: 'plan', value: '"pro"' });
  assert.deepEqual(candidatesOf({ condition: { kind: 'trait', trait: 'tags', op: 'equals', value: ['a'] } }, none), { kind: 'trait', key: 'tags' }, 'an array by its key alone');
});
