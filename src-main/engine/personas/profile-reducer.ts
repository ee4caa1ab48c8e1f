/**
 * Profiles from the message log: identity resolution and what each message adds to its profile.
 * Pure: given the identities a chunk of messages mentions (as stored so far) and the messages in
 * log order, it returns the operations to store; store/profiles.ts applies them in one transaction.
 *
 * Identity rules (ids are one namespace of strings):
 * - A profile's id is its userId; a profile with only an anonymousId is keyed by that anonymousId
 *   until it merges into a userId's profile.
 * - A call with a userId belongs to that userId's profile. Its anonymousId, if new, joins that
 *   profile; if it already keys an anonymous profile, that profile merges into the userId's. An
 *   anonymousId that already belongs to ANOTHER userId stays there (a shared device must not merge
 *   two people); the call still counts for its own userId.
 * - A call with only an anonymousId belongs to that anonymousId's profile (created when new).
 * - alias(previousId → userId) merges whatever profile previousId belongs to into userId's profile,
 *   even one with a userId of its own (that is what alias says); a new previousId simply joins.
 * - identify traits merge per key; the later message (log order) wins a key, also across merges.
 *   track events are kept with their timestamp and properties. group traits are the group's, not
 *   the user's, and are not merged.
 */
import { isJsonObject, type JsonObject } from '../../../src-shared/json';
import { isMessageType, type InboundMessage, type MessageType } from '../../../src-shared/events';
import type { MessageRow as StoredMessageRow } from '../store/log-store';

export interface ProfileMessage {
  /** messages.id: log order. */
  seq: number;
  type: MessageType;
  userId: string | null;
  anonymousId: string | null;
  previousId: string | null;
  event: string | null;
  traits: JsonObject | null;
  properties: JsonObject | null;
  /** The message's timestamp in ms (the ingest's skew-corrected one). */
  at: number;
  receivedAt: number;
}

/** What profiles read of a messages row. */
export type MessageRow = Omit<StoredMessageRow, 'message_id'>;

/** A stored message → what profiles read of it; null for a row that is not a message we know. */
export function profileMessageOf(row: MessageRow): ProfileMessage | null {
  if (!isMessageType(row.type)) return null;
  let parsed: Partial<InboundMessage>;
  try {
    const value: unknown = JSON.parse(row.json);
    if (!isJsonObject(value)) return null;
    parsed = value as Partial<InboundMessage>;
  } catch {
    return null;
  }
  const at = typeof parsed.timestamp === 'string' ? Date.parse(parsed.timestamp) : Number.NaN;
  return {
    seq: row.id,
    type: row.type,
    userId: row.user_id,
    anonymousId: row.anonymous_id,
    previousId: typeof parsed.previousId === 'string' && parsed.previousId !== '' ? parsed.previousId : null,
    event: row.event,
    traits: row.type === 'identify' && isJsonObject(parsed.traits) ? parsed.traits : null,
    properties: row.type === 'track' ? (isJsonObject(parsed.properties) ? parsed.properties : {}) : null,
    at: Number.isFinite(at) ? at : row.received_at,
    receivedAt: row.received_at,
  };
}

export interface KnownIdentities {
  /** id → the profile it belongs to, for the ids the chunk mentions that are already stored. */
  ids: ReadonlyMap<string, string>;
  /** profile id → its userId (null while anonymous), for those profiles. */
  profiles: ReadonlyMap<string, string | null>;
}

export type ProfileOp =
  | { op: 'create'; profileId: string; userId: string | null }
  /** An anonymous profile whose own id now arrives as a userId (ids are one namespace). */
  | { op: 'claim'; profileId: string; userId: string }
  | { op: 'link'; id: string; profileId: string }
  | { op: 'merge'; from: string; into: string }
  | { op: 'traits'; profileId: string; traits: JsonObject; seq: number }
  | { op: 'track'; profileId: string; seq: number; event: string; at: number; properties: JsonObject }
  /** Last at the end of a chunk: the latest receivedAt per profile touched. */
  | { op: 'touch'; profileId: string; at: number };

/** The ids a message mentions, to load their identities before reduceChunk. */
export function idsOf(m: ProfileMessage): string[] {
  return [m.userId, m.anonymousId, m.previousId].filter((id): id is string => id !== null);
}

export function reduceChunk(known: KnownIdentities, messages: readonly ProfileMessage[]): ProfileOp[] {
  const ids = new Map(known.ids);
  const profiles = new Map(known.profiles);
  const touched = new Map<string, number>();
  const ops: ProfileOp[] = [];

  const create = (profileId: string, userId: string | null): string => {
    ops.push({ op: 'create', profileId, userId });
    profiles.set(profileId, userId);
    ids.set(profileId, profileId);
    return profileId;
  };
  const userProfile = (userId: string): string => {
    const existing = ids.get(userId);
    if (existing === undefined) return create(userId, userId);
    if (profiles.get(existing) === null) {
      ops.push({ op: 'claim', profileId: existing, userId });
      profiles.set(existing, userId);
    }
    return existing;
  };
  const merge = (from: string, into: string): void => {
    ops.push({ op: 'merge', from, into });
    for (const [id, p] of ids) if (p === from) ids.set(id, into);
    profiles.delete(from);
    const t = touched.get(from);
    if (t !== undefined) {
      touched.delete(from);
      touched.set(into, Math.max(t, touched.get(into) ?? t));
    }
  };
  const join = (id: string, profileId: string, evenFromAUser: boolean): void => {
    const current = ids.get(id);
    if (current === profileId) return;
    if (current === undefined) {
      ops.push({ op: 'link', id, profileId });
      ids.set(id, profileId);
    } else if (evenFromAUser || profiles.get(current) === null) merge(current, profileId);
  };

  for (const m of messages) {
    let profileId: string;
    if (m.userId !== null) {
      profileId = userProfile(m.userId);
      if (m.anonymousId !== null) join(m.anonymousId, profileId, false);
      if (m.type === 'alias' && m.previousId !== null) join(m.previousId, profileId, true);
    } else if (m.anonymousId !== null) {
      profileId = ids.get(m.anonymousId) ?? create(m.anonymousId, null);
    } else continue;

    if (m.traits !== null && Object.keys(m.traits).length > 0) ops.push({ op: 'traits', profileId, traits: m.traits, seq: m.seq });
    if (m.type === 'track' && m.event !== null) {
      ops.push({ op: 'track', profileId, seq: m.seq, event: m.event, at: m.at, properties: m.properties ?? {} });
    }
    touched.set(profileId, Math.max(m.receivedAt, touched.get(profileId) ?? m.receivedAt));
  }
  for (const [profileId, at] of touched) ops.push({ op: 'touch', profileId, at });
  return ops;
}
