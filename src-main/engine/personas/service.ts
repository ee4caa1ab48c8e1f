/**
 * Profiles, computed traits and audiences: the shell around the pure cores (profile-reducer,
 * evaluate, sync-plan, validate). Each commit reads its own messages into the profiles (store/
 * profiles.ts); a backlog (a log kept before that, or a commit that could not) is read in slices
 * after start (profile-catch-up.ts), and reads meanwhile answer with what is built. Syncs commit their identify calls like an ingest request of the space's source, so the
 * ordinary pipeline signs, retries and replays them.
 *
 * Decisions:
 * - Profiles are global: built from every source's messages. A computation's space (a source)
 *   decides only where its identify calls go, as an Engage space is a source in Segment.
 * - A sync is one transaction: its Inbound request with the identify calls and their deliveries,
 *   the new synced state and the sync log row, so a crash never sends a change twice nor loses one.
 * - An audience's trait conditions see the space's computed traits, evaluated at the same instant,
 *   over the identify traits: a computed trait owns its key there (no value = no trait).
 * - Replacing a definition (saving under its name) keeps its id and synced state and sends nothing
 *   itself: the next sync sends the differences.
 * - Deleting a computation sends nothing; its synced state and sync log go with it.
 */
import { randomUUID } from 'node:crypto';
import type { InboundMessage } from '../../../src-shared/events';
import type { JsonValue } from '../../../src-shared/json';
import {
  MAX_PREVIEW,
  type Computation,
  type ComputationClass,
  type ComputedTraitRule,
  type Condition,
  type PreviewResult,
  type ProfilePage,
  type ProfilesCatchingUp,
  type ProfileView,
  type SyncSummary,
} from '../../../src-shared/personas';
import { ValidationError, type FieldError, type Source } from '../../../src-shared/settings';
import type { Clock, ClockTimer } from '../clock';
import type { Transaction } from '../store/stores';
import { toIso } from '../ingest/timestamps';
import { ComputationStore, definitionOf, type ComputationRow, type Definition } from '../store/computations';
import { needsOf, type ProfileSnapshot } from './evaluate';
import { previewNeeds, valueOf, walkPreview } from './preview';
import { ProfileStore, SYNC_PATH } from '../store/profiles';
import { createProfileCatchUp } from './profile-catch-up';
import { diffSync, personasContext, syncIdentify } from './sync-plan';
import { parseAudienceInput, parseComputedTraitInput, type Parsed, type ParsedAudience, type ParsedTrait } from './validate';

export const SYNC_USER_AGENT = 'hookbench-personas';
const MINUTE_MS = 60_000;
/** An interval sync due while profiles still read a backlog waits this long and looks again. */
export const CATCHING_UP_RETRY_MS = 10_000;

/** What the engine does for a sync: commit its calls like an ingest request of the source. */
export interface InternalCommit {
  sourceId: number;
  path: string;
  userAgent: string;
  messages: InboundMessage[];
}

export interface PersonasDeps {
  profiles: ProfileStore;
  computations: ComputationStore;
  transaction: Transaction;
  clock: Clock;
  sources(): Source[];
  commit(input: InternalCommit): { requestId: number; deliveryIds: number[] };
  /** Computations saved, synced or deleted (the `computations` live event). */
  publish(ids: number[]): void;
  /** An interval sync failed (its space was removed, say); the next one is still scheduled. */
  onError?(computationId: number, error: unknown): void;
  /** Members a preview counts before it answers "N or more" (PREVIEW_COUNT_LIMIT by default). */
  previewCountLimit?: number;
  /** A slice of the profiles' catch-up failed (a storage fault, say); it tries again a moment later. */
  onCatchUpError?(error: unknown): void;
}

/** A sync or a new computation asked for while profiles still read a backlog. */
export class ProfilesCatchingUpError extends ValidationError {
  constructor(progress: ProfilesCatchingUp) {
    super([
      {
        field: 'profiles',
        message: `profiles are still being built from the log (${progress.read} of ${progress.of} messages read); try again when they are done`,
      },
    ]);
  }
}

export type Definitions = { condition: Condition } | { rule: ComputedTraitRule };

export interface Personas {
  /**
   * Arms the interval syncs and, when the profiles owe a backlog, starts reading it in slices
   * (engine start, and again once the log can be written after a storage fault).
   */
  start(): void;
  /** Cancels them (engine stop). */
  stop(): void;
  /** Brings profiles up to the end of the log at once; returns how many messages were read. */
  catchUp(): number;
  /** Where the backlog's catch-up stands; undefined when the profiles are current. */
  catchingUp(): ProfilesCatchingUp | undefined;
  /** Settles once the profiles are current (at once when they are). */
  current(): Promise<void>;
  /**
   * Reads at most `max` more messages into the profiles (one short transaction) and returns the
   * last message id they have read: retention removes no message above it, so no message is ever
   * lost to the profiles nor read twice.
   */
  readUpTo(max: number): number;
  /** Retention removed these messages: their track events leave the profiles (ids, traits and last-seen times stay). */
  forgetTracks(messageIds: readonly number[]): void;
  listProfiles(page: { text: string | null; after: string; limit: number }): ProfilePage;
  /** By its id or any id linked to it. */
  getProfile(id: string): ProfileView | null;
  listComputations(): Computation[];
  getComputation(id: number): Computation | null;
  saveAudience(input: unknown): Computation;
  saveComputedTrait(input: unknown): Computation;
  deleteComputation(id: number): boolean;
  preview(definition: Definitions, space: string | null): PreviewResult;
  sync(id: number): SyncSummary;
  listSyncs(id: number): SyncSummary[] | null;
  /** A deletion's purge: the user's profile (and the anonymous ones linked to it) go, and nothing is sent for them. */
  forget(person: { userId: string; linkedIds: readonly string[] }): void;
}

export function createPersonas(deps: PersonasDeps): Personas {
  const { profiles, computations } = deps;
  const timers = new Map<number, { timer: ClockTimer; at: number }>();
  let running = false;
  const backlog = createProfileCatchUp({
    slice: (max) => profiles.catchUpSlice(max),
    clock: deps.clock,
    onError: (err) => (deps.onCatchUpError ?? defaultOnCatchUpError)(err),
  });
  profiles.onBehind(() => {
    if (running) backlog.start();
  });
  const catchingUp = (): ProfilesCatchingUp | undefined => {
    if (profiles.isCurrent()) return undefined;
    const p = profiles.progress();
    return { read: p.read, of: p.of };
  };
  /** Syncs compare against what was sent: a half-built profile set would read as members leaving. */
  const requireCurrent = (): void => {
    const progress = catchingUp();
    if (progress !== undefined) throw new ProfilesCatchingUpError(progress);
  };

  const sourceNames = (): string[] => deps.sources().map((s) => s.name);
  const required = <T>(parsed: Parsed<T>): T => {
    if (!parsed.ok) throw new ValidationError(parsed.errors);
    return parsed.value;
  };

  /**
   * Values now, by profile id (audiences: true for members only), and the snapshots they came from.
   * The space's computed traits are evaluated first and laid over the identify traits they name.
   */
  const evaluate = (definition: Definitions, space: string | null, now: number): { values: Map<string, JsonValue>; snapshots: ProfileSnapshot[] } => {
    const overlays = overlaysOf(definition, space);
    const snapshots = profiles.snapshots(previewNeeds(definition, overlays), now);
    const values = new Map<string, JsonValue>();
    for (const s of snapshots) {
      const v = valueOf(definition, overlays, s, now);
      if (v !== undefined) values.set(s.profileId, v);
    }
    return { values, snapshots };
  };

  /** The space's computed traits that an audience's trait conditions name, by key. */
  const overlaysOf = (definition: Definitions, space: string | null): Map<string, ComputedTraitRule> => {
    const byKey = new Map<string, ComputedTraitRule>();
    if (!('condition' in definition)) return byKey;
    const named = needsOf(definition).traits;
    // Oldest first, one per key: keys are unique in a space, and across spaces (no space given) the oldest wins.
    for (const c of computations.traitsIn(space)) if (named.has(c.key) && !byKey.has(c.key)) byKey.set(c.key, definitionOf(c) as ComputedTraitRule);
    return byKey;
  };

  const definitionsOf = (row: ComputationRow): Definitions =>
    row.class === 'audience' ? { condition: definitionOf(row) as Condition } : { rule: definitionOf(row) as ComputedTraitRule };

  const nextSyncAt = (row: ComputationRow): number | null => {
    if (row.sync_every_minutes === null) return null;
    const armed = timers.get(row.id);
    if (armed) return armed.at;
    return (computations.lastSyncAt(row.id) ?? row.created_at) + row.sync_every_minutes * MINUTE_MS;
  };

  const view = (row: ComputationRow, size: number): Computation => {
    const definition = definitionOf(row);
    const next = nextSyncAt(row);
    return {
      id: row.id,
      class: row.class,
      name: row.name,
      key: row.key,
      space: row.space,
      syncEveryMinutes: row.sync_every_minutes,
      condition: row.class === 'audience' ? (definition as Condition) : null,
      rule: row.class === 'trait' ? (definition as ComputedTraitRule) : null,
      createdAt: toIso(row.created_at),
      size,
      lastSync: computations.lastSync(row.id),
      nextSyncAt: next === null ? null : toIso(next),
    };
  };
  const viewOf = (id: number): Computation => {
    const row = computations.get(id);
    if (!row) throw new Error(`computation ${id} vanished`);
    return view(row, computations.synced(id).size);
  };

  /** The sync itself, inside the caller's transaction; profiles must have caught up. */
  const syncNow = (row: ComputationRow): SyncSummary => {
    const space = deps.sources().find((s) => s.name === row.space);
    if (!space) {
      throw new ValidationError([{ field: 'id', message: `its space, the source "${row.space}", no longer exists; save it again with another space` }]);
    }
    const now = deps.clock.now();
    const previous = computations.synced(row.id);
    const { values, snapshots } = evaluate(definitionsOf(row), row.space, now);
    const byId = new Map(snapshots.map((s) => [s.profileId, s]));
    const diff = diffSync(row.class, values, previous);
    const personas = personasContext(row, space);
    const at = toIso(now);
    const messages: InboundMessage[] = [];
    for (const s of diff.send) {
      const profile = byId.get(s.profileId);
      if (profile) messages.push(syncIdentify(profile, row.key, s.value, personas, at, randomUUID()));
      // A profile that is gone (purged) is not told anything; its state is simply dropped.
      else computations.forgetSynced(row.id, s.profileId);
    }
    const committed =
      messages.length > 0 ? deps.commit({ sourceId: space.id, path: SYNC_PATH, userAgent: SYNC_USER_AGENT, messages }) : null;
    computations.applySynced(row.id, { ...diff, send: diff.send.filter((s) => byId.has(s.profileId)) });
    const syncId = computations.insertSync({
      computation_id: row.id,
      kind: computations.lastSyncAt(row.id) === null ? 'initial' : 'incremental',
      started_at: now,
      entered: diff.entered.length,
      exited: diff.exited.length,
      changed: diff.changed.length,
      sent: messages.length,
      request_id: committed?.requestId ?? null,
    });
    return computations.sync(syncId);
  };

  const arm = (id: number): void => {
    timers.get(id)?.timer.cancel();
    timers.delete(id);
    const row = computations.get(id);
    if (!running || !row || row.sync_every_minutes === null) return;
    const at = (computations.lastSyncAt(id) ?? row.created_at) + row.sync_every_minutes * MINUTE_MS;
    armAt(id, at);
  };
  const armAt = (id: number, at: number): void => {
    const timer = deps.clock.setTimer(() => {
      timers.delete(id);
      if (!profiles.isCurrent()) {
        armAt(id, deps.clock.now() + CATCHING_UP_RETRY_MS);
        return;
      }
      try {
        sync(id);
      } catch (err) {
        (deps.onError ?? defaultOnError)(id, err);
        try {
          // Not from the last sync, which is still in the past: that would fire again at once.
          const row = computations.get(id);
          if (running && row && row.sync_every_minutes !== null) armAt(id, deps.clock.now() + row.sync_every_minutes * MINUTE_MS);
        } catch (readErr) {
          // The log cannot even be read (a storage fault): the engine re-arms every sync once it recovers.
          (deps.onError ?? defaultOnError)(id, readErr);
        }
      }
    }, Math.max(0, at - deps.clock.now()));
    timers.set(id, { timer, at });
  };

  const sync = (id: number): SyncSummary => {
    const row = computations.get(id);
    if (!row) throw new ValidationError([{ field: 'id', message: `no audience or computed trait with id ${id}` }]);
    requireCurrent();
    const summary = deps.transaction(() => syncNow(row));
    arm(id);
    deps.publish([id]);
    return summary;
  };

  const save = (cls: ComputationClass, parsed: ParsedAudience | ParsedTrait, definition: Condition | ComputedTraitRule): Computation => {
    const path = cls === 'audience' ? 'audience' : 'trait';
    const d: Definition = { class: cls, name: parsed.name, key: parsed.key, space: parsed.space, syncEveryMinutes: parsed.syncEveryMinutes, definition };
    const existing = computations.byName(d.space, d.name, cls);
    const holder = computations.byKey(d.space, d.key);
    if (holder && holder.id !== existing?.id) {
      const errors: FieldError[] = [
        {
          field: `${path}.name`,
          message: `makes the trait key "${d.key}", which the ${holder.class === 'audience' ? 'audience' : 'computed trait'} "${holder.name}" already uses in the space "${d.space}"`,
        },
      ];
      throw new ValidationError(errors);
    }
    const now = deps.clock.now();
    let id: number;
    if (existing) {
      id = existing.id;
      computations.update(id, d, now);
    } else {
      requireCurrent();
      id = deps.transaction(() => {
        const newId = computations.insert(d, now);
        syncNow(computations.get(newId) as ComputationRow);
        return newId;
      });
    }
    arm(id);
    deps.publish([id]);
    return viewOf(id);
  };

  return {
    start() {
      running = true;
      for (const { timer } of timers.values()) timer.cancel();
      timers.clear();
      for (const row of computations.all()) arm(row.id);
      if (!profiles.isCurrent()) backlog.start();
    },
    stop() {
      running = false;
      backlog.stop();
      for (const { timer } of timers.values()) timer.cancel();
      timers.clear();
    },
    catchUp: () => profiles.catchUp(),
    catchingUp,
    current: () => (profiles.isCurrent() ? Promise.resolve() : backlog.done()),
    readUpTo: (max) => profiles.catchUpSome(max),
    forgetTracks: (ids) => profiles.forgetTracks(ids),
    listProfiles(page) {
      const progress = catchingUp();
      return progress === undefined ? profiles.page(page) : { ...profiles.page(page), catchingUp: progress };
    },
    getProfile(id) {
      const profileId = profiles.resolve(id);
      return profileId === null ? null : profiles.view(profileId);
    },
    listComputations() {
      const sizes = computations.sizes();
      return computations.all().map((row) => view(row, sizes.get(row.id) ?? 0));
    },
    getComputation(id) {
      return computations.get(id) ? viewOf(id) : null;
    },
    saveAudience(input) {
      const parsed = required(parseAudienceInput(input, sourceNames()));
      return save('audience', parsed, parsed.input.condition);
    },
    saveComputedTrait(input) {
      const parsed = required(parseComputedTraitInput(input, sourceNames()));
      return save('trait', parsed, parsed.input.rule);
    },
    deleteComputation(id) {
      const removed = computations.delete(id);
      timers.get(id)?.timer.cancel();
      timers.delete(id);
      if (removed) deps.publish([id]);
      return removed;
    },
    preview(definition, space) {
      const walk = walkPreview(definition, overlaysOf(definition, space), profiles, deps.clock.now(), {
        show: MAX_PREVIEW,
        limit: deps.previewCountLimit,
      });
      const linked = profiles.linkedIds(walk.shown.map((m) => m.snapshot.profileId));
      const result: PreviewResult = {
        total: walk.total,
        ...(walk.capped ? { capped: true } : {}),
        members: walk.shown.map(({ snapshot: s, value }) => ({
          profileId: s.profileId,
          userId: s.userId,
          anonymousIds: (linked.get(s.profileId) ?? []).filter((id) => id !== s.userId),
          value,
        })),
      };
      const progress = catchingUp();
      return progress === undefined ? result : { ...result, catchingUp: progress };
    },
    sync,
    listSyncs(id) {
      return computations.get(id) ? computations.syncs(id) : null;
    },
    forget: (person) => profiles.forget(person),
  };
}

function defaultOnError(id: number, error: unknown): void {
  console.error(`hookbench: the interval sync of computation ${id} failed: ${error instanceof Error ? error.message : String(error)}`);
}

function defaultOnCatchUpError(error: unknown): void {
  console.error(`hookbench: the profiles could not catch up with the log: ${error instanceof Error ? error.message : String(error)}`);
}
