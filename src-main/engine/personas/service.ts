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
 * - A sync walks the profiles in slices (profile order), each one transaction that commits the
 *   identify calls for its profiles' differences (all joining the sync's one Inbound request, with
 *   their deliveries) together with their new synced state; the last also writes the sync log row.
 *   So a crash never sends a change twice nor loses one (the next sync sends what was left), and
 *   a sync of 50,000 profiles never holds the engine's thread for more than a few milliseconds.
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
  SYNC_PATH,
  SYNC_USER_AGENT,
  type Computation,
  type ComputationClass,
  type ComputedTraitRule,
  type Condition,
  type PreviewResult,
  type ProfilePage,
  type ProfilesCatchingUp,
  type ProfileView,
  type SyncProgress,
  type SyncSummary,
} from '../../../src-shared/personas';
import { ValidationError, type FieldError, type Source } from '../../../src-shared/settings';
import type { Clock, ClockTimer } from '../clock';
import type { Transaction } from '../store/stores';
import { toIso } from '../ingest/timestamps';
import { ComputationStore, definitionOf, type ComputationRow, type Definition } from '../store/computations';
import { nextTimedSize, type TimedSlices } from '../sliced-work';
import { needsOf, type Needs } from './evaluate';
import { previewNeeds, valueOf, walkPreview } from './preview';
import { ProfileStore } from '../store/profiles';
import { createProfileCatchUp } from './profile-catch-up';
import { diffSync, personasContext, syncIdentify, type SyncDiff } from './sync-plan';
import { parseAudienceInput, parseComputedTraitInput, type Parsed, type ParsedAudience, type ParsedTrait } from './validate';

/**
 * Profiles a sync's first slice reads; each next one is sized from the time the last took, so that
 * a slice (its reads, evaluation and commit) holds the engine's thread about targetMs.
 */
export const SYNC_SLICES: TimedSlices = { first: 100, min: 10, max: 2_000, targetMs: 4 };
/** Identify calls committed per slice at most: each is a message and its deliveries, a commit's worth of work. */
export const SYNC_CALLS_PER_SLICE = 25;

/**
 * Pure: how many of a slice's profiles (in profile order) it takes so that at most `max` of them
 * are sent a call; all of them when fewer are.
 */
export function profilesForCalls(ids: readonly string[], called: ReadonlySet<string>, max: number): number {
  let calls = 0;
  for (let k = 0; k < ids.length; k++) if (called.has(ids[k] as string) && ++calls >= max) return k + 1;
  return ids.length;
}
const MINUTE_MS = 60_000;
/** An interval sync due while profiles still read a backlog waits this long and looks again. */
export const CATCHING_UP_RETRY_MS = 10_000;

/** What the engine does for a sync: commit its calls like an ingest request of the source. */
export interface InternalCommit {
  sourceId: number;
  path: string;
  userAgent: string;
  messages: InboundMessage[];
  /** The request an earlier slice of the same sync made: the calls join it. */
  appendTo?: number;
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
  /**
   * Awaited between a sync's slices (a turn of the event loop when absent): the engine waits for
   * room in the WAL there, as its other long writers do (store/wal-watch.ts).
   */
  betweenSlices?(): Promise<void>;
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
  /** Saving a new one runs its initial sync (in slices) before it answers. */
  saveAudience(input: unknown): Promise<Computation>;
  saveComputedTrait(input: unknown): Promise<Computation>;
  deleteComputation(id: number): boolean;
  preview(definition: Definitions, space: string | null): PreviewResult;
  /** Runs a sync in slices; asked again while it runs, answers with that sync's summary. */
  sync(id: number): Promise<SyncSummary>;
  listSyncs(id: number): SyncSummary[] | null;
  /** A deletion's purge: the user's profile (and the anonymous ones linked to it) go, and nothing is sent for them. */
  forget(person: { userId: string; linkedIds: readonly string[] }): void;
}

export function createPersonas(deps: PersonasDeps): Personas {
  const { profiles, computations } = deps;
  const timers = new Map<number, { timer: ClockTimer; at: number }>();
  let running = false;
  /** Set by stop(): a sync between two slices ends there (the connection may be closing). */
  let stopped = false;
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
      syncing: syncProgress(row.id),
    };
  };
  const viewOf = (id: number): Computation => {
    const row = computations.get(id);
    if (!row) throw new Error(`computation ${id} vanished`);
    return view(row, computations.size(id));
  };

  /** What a sync's slices share: fixed at its start, as every profile is judged at the same instant. */
  interface SyncRun {
    row: ComputationRow;
    sourceId: number;
    now: number;
    definition: Definitions;
    overlays: Map<string, ComputedTraitRule>;
    needs: Needs;
    personas: ReturnType<typeof personasContext>;
    kind: 'initial' | 'incremental';
  }
  interface SyncTotals {
    entered: number;
    exited: number;
    changed: number;
    sent: number;
    deliveries: number;
    requestId: number | null;
  }

  /**
   * One slice of a sync, inside its transaction: the profiles after `after` in profile order (at
   * most `limit`), their values now against what was last sent for them (the synced state in the
   * same id range, so a profile that is gone still exits), the identify calls for the differences
   * committed, and the synced state updated. When it reached the end it also logs the sync.
   */
  const syncSlice = (run: SyncRun, after: string, limit: number, totals: SyncTotals): { next: string | null; syncId: number | null; taken: number; cut: boolean } => {
    const read = profiles.candidateIds(null, run.now, after, limit);
    const snapshots = profiles.snapshotsOf(run.needs, run.now, read);
    const values = new Map<string, JsonValue>();
    for (const s of snapshots) {
      const v = valueOf(run.definition, run.overlays, s, run.now);
      if (v !== undefined) values.set(s.profileId, v);
    }
    const byId = new Map(snapshots.map((s) => [s.profileId, s]));
    const diffOf = (through: string | null): SyncDiff => diffSync(run.row.class, values, computations.syncedBetween(run.row.id, after, through));
    let through = read.length < limit ? null : (read[read.length - 1] as string);
    let diff = diffOf(through);
    // A call costs far more than a profile judged: the slice ends at its SYNC_CALLS_PER_SLICE-th call.
    const take = profilesForCalls(read, new Set(diff.send.filter((x) => byId.has(x.profileId)).map((x) => x.profileId)), SYNC_CALLS_PER_SLICE);
    if (take < read.length) {
      through = read[take - 1] as string;
      for (const id of read.slice(take)) values.delete(id);
      diff = diffOf(through);
    }
    const at = toIso(run.now);
    const messages: InboundMessage[] = [];
    for (const s of diff.send) {
      const profile = byId.get(s.profileId);
      if (profile) messages.push(syncIdentify(profile, run.row.key, s.value, run.personas, at, randomUUID()));
      // A profile that is gone (purged) is not told anything; its state is simply dropped.
      else computations.forgetSynced(run.row.id, s.profileId);
    }
    if (messages.length > 0) {
      const committed = deps.commit({
        sourceId: run.sourceId,
        path: SYNC_PATH,
        userAgent: SYNC_USER_AGENT,
        messages,
        ...(totals.requestId === null ? {} : { appendTo: totals.requestId }),
      });
      totals.requestId ??= committed.requestId;
      totals.deliveries += committed.deliveryIds.length;
    }
    computations.applySynced(run.row.id, { ...diff, send: diff.send.filter((s) => byId.has(s.profileId)) });
    totals.entered += diff.entered.length;
    totals.exited += diff.exited.length;
    totals.changed += diff.changed.length;
    totals.sent += messages.length;
    if (through !== null) return { next: through, syncId: null, taken: take, cut: take < read.length };
    const syncId = computations.insertSync({
      computation_id: run.row.id,
      kind: run.kind,
      started_at: run.now,
      entered: totals.entered,
      exited: totals.exited,
      changed: totals.changed,
      sent: totals.sent,
      request_id: totals.requestId,
      deliveries: totals.deliveries,
    });
    return { next: null, syncId, taken: take, cut: false };
  };

  /** What a sync's first slice needs; fixed for all of them. */
  const syncRunOf = (row: ComputationRow): SyncRun => {
    const space = deps.sources().find((s) => s.name === row.space);
    if (!space) {
      throw new ValidationError([{ field: 'id', message: `its space, the source "${row.space}", no longer exists; save it again with another space` }]);
    }
    const definition = definitionsOf(row);
    const overlays = overlaysOf(definition, row.space);
    return {
      row,
      sourceId: space.id,
      now: deps.clock.now(),
      definition,
      overlays,
      needs: previewNeeds(definition, overlays),
      personas: personasContext(row, space),
      kind: computations.lastSyncAt(row.id) === null ? 'initial' : 'incremental',
    };
  };

  /**
   * The next slice of a sync and what follows it: once the sync is logged, its next interval sync
   * is armed and the views are told in the same turn as its last slice, so a clock that moves on
   * at once finds the next sync armed and this one ended.
   */
  const nextSlice = (run: SyncRun, after: string, limit: number, totals: SyncTotals): { next: string; limit: number } | { summary: SyncSummary } => {
    if (stopped) throw new Error('the engine stopped before the sync finished; the next sync sends what is left');
    // Deleted meanwhile: what was sent stays sent, nothing more is, and no sync is logged.
    if (!computations.get(run.row.id)) throw new ValidationError([{ field: 'id', message: `no audience or computed trait with id ${run.row.id}: it was deleted while it synced` }]);
    const t = performance.now();
    // A slice that fails rolls back, its totals with it; the sync stops there.
    const sliceTotals = { ...totals };
    const slice = deps.transaction(() => syncSlice(run, after, limit, sliceTotals));
    Object.assign(totals, sliceTotals);
    if (slice.syncId === null) {
      // Cut at its calls, a slice read profiles it did not take: the next reads about as many as it took.
      const next = slice.cut ? Math.max(SYNC_SLICES.min, Math.ceil(slice.taken * 1.25)) : nextTimedSize(SYNC_SLICES, limit, performance.now() - t);
      // The views show how far it has got (a first sync of 50,000 members takes minutes).
      if (slice.taken > 0) deps.publish([run.row.id]);
      return { next: slice.next as string, limit: next };
    }
    // Ended before the views are told, so what they read says no sync is running.
    syncing.delete(run.row.id);
    progress.delete(run.row.id);
    arm(run.row.id);
    deps.publish([run.row.id]);
    return { summary: computations.sync(slice.syncId) };
  };

  /** Syncs running, by computation: asked again meanwhile, a sync answers with the running one's summary. */
  const syncing = new Map<number, Promise<SyncSummary>>();
  /** What each running sync has done so far (its slices' totals), for the views. */
  const progress = new Map<number, SyncTotals>();
  const syncProgress = (id: number): SyncProgress | null => {
    const totals = progress.get(id);
    return totals ? { entered: totals.entered, exited: totals.exited, changed: totals.changed, sent: totals.sent } : null;
  };
  /** Runs the sync of `row` (a slice at a time, a turn of the event loop between) unless one is running already. */
  const syncOnce = (row: ComputationRow): Promise<SyncSummary> => {
    const running = syncing.get(row.id);
    if (running) return running;
    const totals: SyncTotals = { entered: 0, exited: 0, changed: 0, sent: 0, deliveries: 0, requestId: null };
    progress.set(row.id, totals);
    const slices = async (): Promise<SyncSummary> => {
      const run = syncRunOf(row);
      let at = { next: '', limit: SYNC_SLICES.first };
      for (;;) {
        const step = nextSlice(run, at.next, at.limit, totals);
        if ('summary' in step) return step.summary;
        at = step;
        await (deps.betweenSlices?.() ?? new Promise((resolve) => setImmediate(resolve)));
      }
    };
    let resolve!: (s: SyncSummary) => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<SyncSummary>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // Registered before the first slice runs: a sync of one slice ends before slices() returns.
    syncing.set(row.id, done);
    slices().then(resolve, (err: unknown) => {
      syncing.delete(row.id);
      progress.delete(row.id);
      reject(err);
    });
    return done;
  };

  const sync = async (id: number): Promise<SyncSummary> => {
    const row = computations.get(id);
    if (!row) throw new ValidationError([{ field: 'id', message: `no audience or computed trait with id ${id}` }]);
    if (!syncing.has(id)) requireCurrent();
    return syncOnce(row);
  };

  const save = async (cls: ComputationClass, parsed: ParsedAudience | ParsedTrait, definition: Condition | ComputedTraitRule): Promise<Computation> => {
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
    if (existing) {
      computations.update(existing.id, d, now);
      arm(existing.id);
      deps.publish([existing.id]);
      return viewOf(existing.id);
    }
    requireCurrent();
    const id = computations.insert(d, now);
    deps.publish([id]);
    await syncOnce(computations.get(id) as ComputationRow);
    return viewOf(id);
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
      sync(id).catch((err: unknown) => {
        (deps.onError ?? defaultOnError)(id, err);
        try {
          // Not from the last sync, which is still in the past: that would fire again at once.
          const row = computations.get(id);
          if (running && row && row.sync_every_minutes !== null) armAt(id, deps.clock.now() + row.sync_every_minutes * MINUTE_MS);
        } catch (readErr) {
          // The log cannot even be read (a storage fault): the engine re-arms every sync once it recovers.
          (deps.onError ?? defaultOnError)(id, readErr);
        }
      });
    }, Math.max(0, at - deps.clock.now()));
    timers.set(id, { timer, at });
  };

  return {
    start() {
      running = true;
      stopped = false;
      for (const { timer } of timers.values()) timer.cancel();
      timers.clear();
      for (const row of computations.all()) arm(row.id);
      if (!profiles.isCurrent()) backlog.start();
    },
    stop() {
      running = false;
      stopped = true;
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
