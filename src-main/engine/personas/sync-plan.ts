/**
 * What a sync sends: the difference between what the destinations were last told and what is true
 * now, and the identify calls that carry it. Pure.
 */
import type { InboundMessage } from '../../../src-shared/events';
import type { JsonValue } from '../../../src-shared/json';
import type { ComputationClass } from '../../../src-shared/personas';
import { canonicalJson } from './evaluate';

export interface SyncDiff {
  /** Audiences: became members; traits: got a value for the first time (or again after losing it). */
  entered: string[];
  /** Audiences: left; traits: lost their value (sent as null). */
  exited: string[];
  /** Traits: the value changed. Never for audiences. */
  changed: string[];
  /** One identify per profile, by profile id: its new value (false / null for exits). */
  send: { profileId: string; value: JsonValue }[];
}

/**
 * `current`: profile id → value now (audiences: true for each member, nobody else); `previous`:
 * profile id → canonical JSON of the value last sent (audiences: members only).
 */
export function diffSync(cls: ComputationClass, current: ReadonlyMap<string, JsonValue>, previous: ReadonlyMap<string, string>): SyncDiff {
  const diff: SyncDiff = { entered: [], exited: [], changed: [], send: [] };
  const sent: [string, JsonValue][] = [];
  for (const [profileId, value] of current) {
    const before = previous.get(profileId);
    if (before === undefined) {
      diff.entered.push(profileId);
      sent.push([profileId, value]);
    } else if (cls === 'trait' && before !== canonicalJson(value)) {
      diff.changed.push(profileId);
      sent.push([profileId, value]);
    }
  }
  for (const profileId of previous.keys()) {
    if (current.has(profileId)) continue;
    diff.exited.push(profileId);
    sent.push([profileId, cls === 'audience' ? false : null]);
  }
  const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  diff.entered.sort(byId);
  diff.exited.sort(byId);
  diff.changed.sort(byId);
  diff.send = sent.sort((a, b) => byId(a[0], b[0])).map(([profileId, value]) => ({ profileId, value }));
  return diff;
}

/**
 * `context.personas` as Segment's Engage sends it, filled from what Hookbench has: the space is a
 * source, so `namespace` is `spa_<source id>` (Segment's space ids start with `spa_`) and `space_id`
 * is the source's name (what a person reading the payload recognises); computation_id is the
 * computation's id as a string, computation_key its trait key.
 */
export interface PersonasContext {
  computation_class: ComputationClass;
  computation_id: string;
  computation_key: string;
  namespace: string;
  space_id: string;
}

export function personasContext(c: { class: ComputationClass; id: number; key: string }, space: { id: number; name: string }): PersonasContext {
  return {
    computation_class: c.class,
    computation_id: String(c.id),
    computation_key: c.key,
    namespace: `spa_${space.id}`,
    space_id: space.name,
  };
}

/**
 * One identify call of a sync, as the log stores an ingested one. userId is the profile's userId,
 * or its anonymousId (the profile's id) while it has none, so every call names the person the same
 * way the profile does.
 */
export function syncIdentify(
  profile: { profileId: string; userId: string | null },
  key: string,
  value: JsonValue,
  personas: PersonasContext,
  at: string,
  messageId: string,
): InboundMessage {
  return {
    type: 'identify',
    messageId,
    userId: profile.userId ?? profile.profileId,
    anonymousId: null,
    traits: { [key]: value },
    context: { personas: { ...personas } },
    integrations: {},
    timestamp: at,
    receivedAt: at,
  };
}
