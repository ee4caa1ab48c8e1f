/**
 * Profiles, computed traits, audiences and deletion requests as the contract carries them
 * (docs/delivery.md: audiences arrive as identify calls). Plain data, shared by the
 * engine (src-main/engine/personas, src-main/engine/deletion) and the renderer.
 */
import type { JsonValue } from './json';
import type { DeliveryStatus } from './api';

/** "performed E at least N times (in the last D days) (where property P equals V …)". */
export interface EventCondition {
  kind: 'event';
  event: string;
  /** Default 1. */
  atLeast?: number;
  atMost?: number;
  /** Only events in the last D days (by the event's timestamp); all time when absent. */
  withinDays?: number;
  /** Every listed property must equal its value (JSON equality) on a counted event. */
  where?: { property: string; equals: JsonValue }[];
}

export const TRAIT_OPERATORS = ['equals', 'not_equals', 'exists', 'not_exists', 'gt', 'gte', 'lt', 'lte', 'contains'] as const;
export type TraitOperator = (typeof TRAIT_OPERATORS)[number];

/** A condition on a trait of the profile (identify traits merged, computed traits included). */
export interface TraitCondition {
  kind: 'trait';
  trait: string;
  op: TraitOperator;
  /** Not used by exists / not_exists. */
  value?: JsonValue;
}

export type Condition = EventCondition | TraitCondition | { kind: 'and'; all: Condition[] } | { kind: 'or'; any: Condition[] };

export type ComputedTraitRule =
  /** How many times the profile performed `event` (in the last D days). */
  | { kind: 'event_count'; event: string; withinDays?: number }
  /** The value of `property` on the profile's most recent `event`. */
  | { kind: 'last_property'; event: string; property: string };

export type ComputationClass = 'audience' | 'trait';

interface ComputationBase {
  /** Shown to people; its snake_case form is the trait key sent (see traitKey in src-main/engine/personas). */
  name: string;
  /**
   * The space the computation lives in: the name of a source. As in Segment, where an Engage space
   * is a source, its identify calls go to the destinations attached to that source.
   */
  space: string;
  /** Minutes between automatic syncs; null = only on demand ("Sync now"). */
  syncEveryMinutes: number | null;
}
export interface AudienceInput extends ComputationBase {
  condition: Condition;
}
export interface ComputedTraitInput extends ComputationBase {
  rule: ComputedTraitRule;
}

/**
 * The path and user agent of the Inbound call a sync commits its identify calls under (like an
 * ingest call of its space's source); the call has no headers or body of its own.
 */
export const SYNC_PATH = '/personas/sync';
export const SYNC_USER_AGENT = 'hookbench-personas';

/** A sync's summary lists this many of its deliveries (a sync of 50,000 members causes 50,000), and counts them all. */
export const SYNC_DELIVERY_IDS = 100;

export interface SyncSummary {
  id: number;
  computationId: number;
  /** initial: every member (or every value) is sent; incremental: only what changed since the previous sync. */
  kind: 'initial' | 'incremental';
  startedAt: string;
  /** Audiences: profiles that became members; traits: profiles that got a value for the first time. */
  entered: number;
  /** Audiences: profiles that left; traits: profiles whose value went away. */
  exited: number;
  /** Traits: profiles whose value changed (sent again). Always 0 for audiences. */
  changed: number;
  /** Identify calls made (one per profile sent). */
  sent: number;
  /** The first SYNC_DELIVERY_IDS of the deliveries those calls caused (one per enabled destination of the space). */
  deliveryIds: number[];
  /** How many deliveries those calls caused. */
  deliveries: number;
  /** The Inbound request that carries the sync's identify calls; null when nothing was sent. */
  requestId: number | null;
}

export interface Computation {
  id: number;
  class: ComputationClass;
  name: string;
  /** The trait key sent: snake_case of the name. */
  key: string;
  space: string;
  syncEveryMinutes: number | null;
  condition: Condition | null;
  rule: ComputedTraitRule | null;
  createdAt: string;
  /** Audiences: members at the last sync; traits: profiles with a value at the last sync. */
  size: number;
  lastSync: SyncSummary | null;
  /** When the next automatic sync is due; null without an interval. */
  nextSyncAt: string | null;
  /** A sync running now, and how far it has got; null when none is. */
  syncing: SyncProgress | null;
}

/** What a running sync has done so far: its slices' totals (a first sync of 50,000 members takes minutes). */
export interface SyncProgress {
  entered: number;
  exited: number;
  changed: number;
  /** Identify calls committed so far. */
  sent: number;
}

export interface MemberPreview {
  /** The profile's canonical id: its userId, or its anonymousId until one is known. */
  profileId: string;
  userId: string | null;
  anonymousIds: string[];
  /** true for audience members; the computed value for traits. */
  value: JsonValue;
}

/**
 * How far profiles have read a log that was kept before they followed each commit: present only
 * while that backlog is being read after start; answers meanwhile hold what is built so far.
 */
export interface ProfilesCatchingUp {
  /** The last message id read into the profiles, and the last one in the log. */
  read: number;
  of: number;
}

export interface PreviewResult {
  /** Members (audiences) or profiles with a value (computed traits); with `capped`, at least this many. */
  total: number;
  /** The count stopped at its limit rather than read every profile: there are `total` or more. */
  capped?: boolean;
  /** The first MAX_PREVIEW members, by profile id. */
  members: MemberPreview[];
  catchingUp?: ProfilesCatchingUp;
}

export interface ProfilePage {
  items: ProfileView[];
  next: string | null;
  catchingUp?: ProfilesCatchingUp;
}
export const MAX_PREVIEW = 200;

export interface ProfileEventView {
  event: string;
  count: number;
  lastAt: string;
  lastProperties: { [key: string]: JsonValue };
}

export interface ProfileView {
  profileId: string;
  userId: string | null;
  /** Every other id merged into this profile: anonymousIds, and previousIds from alias calls. */
  aliases: string[];
  traits: { [key: string]: JsonValue };
  events: ProfileEventView[];
  /** Last synced value of each computation, by its key. */
  computed: { [key: string]: JsonValue };
  updatedAt: string;
}

export type DeletionStatus = 'pending' | 'forwarded' | 'failed';

export interface DeletionNotice {
  /**
   * The delivery that decides the notice: the notice's own delivery, or the replay of it (same bytes,
   * to the destination's entries) that succeeded, else the newest still under way, else the newest.
   */
  deliveryId: number;
  source: string;
  destination: string;
  status: DeliveryStatus;
}

export interface DeletionRequest {
  id: number;
  userId: string;
  /** pending while any notice is still being delivered; forwarded once every notice succeeded; failed if any failed for good. */
  status: DeletionStatus;
  /** Purge the user's stored messages and profile once forwarded. */
  purge: boolean;
  purgedAt: string | null;
  createdAt: string;
  /** Sources that had data for this user, with or without the destination enabled. */
  affectedSources: string[];
  notices: DeletionNotice[];
  /**
   * The status in plain words: which notices are still under way or failed and why, why there was
   * nothing to forward (no notices: the request is forwarded at once), and where the purge stands.
   */
  explanation?: string;
}
