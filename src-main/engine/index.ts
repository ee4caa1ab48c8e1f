import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_DELIVERY_SETTINGS, DEFAULT_RETENTION, type DeliverySettings, type Destination, type RetentionSettings } from '../../src-shared/settings';
import { systemClock, type Clock } from './clock';
import { deliverySettingsOf, type HookbenchConfig } from './config';
import { createThreadSender } from './delivery/sender-thread';
import { warmUpDelivery, type WarmUpResult } from './delivery/warm-up';
import { Scheduler, type Sender } from './delivery/scheduler';
import { createIngestHandler, type IngestRouting } from './ingest/handler';
import { createSdkSettingsHandler } from './ingest/sdk-settings';
import type { SecretSealer } from './store/config-store';
import { openDatabase, truncateWal, useIncrementalVacuum, type Db } from './store/database';
import { DataDirLockedError, lockDataDir } from './store/data-lock';
import { preparePrivateDatabase, preparePrivateDir } from './store/private-files';
import { startCheckpointer } from './store/checkpointer';
import { createBodyPacker, type BodyPacker } from './store/body-packer';
import { READ_SETTLES_AT_MOST } from './store/profiles';
import { walWatch } from './store/wal-watch';
import { createGroupCommit } from './store/group-commit';
import { webhookBodyOf } from './delivery/payloads';
import { createStores, type Stores } from './store/stores';
import { createDeletions, type Deletions, type PurgeHook } from './deletion/service';
import { webhooksEnabled } from './ingest/integrations';
import { createPersonas, type InternalCommit, type Personas } from './personas/service';
import { INGEST_LIMITS } from '../../src-shared/events';
import type { EngineHealth } from '../../src-shared/api';
import { createHealthMonitor, faultContext, type HealthMonitor } from './health';
import { createStorageProbe } from './store/storage-probe';
import { classifyStorageError, StorageFaultError, type StorageFault } from './store/storage-fault';
import type { SecretsAtRest } from '../../src-shared/api';
import { createRetention, type Retention } from './retention/service';
import { randomUUID } from 'node:crypto';
import type { MessageType } from '../../src-shared/events';
import { sampleMessage } from './delivery/samples';
import { serializePayload, toWebhookPayload } from './delivery/payloads';
import { createReceivers, type Receivers } from './receivers/service';
import { compilePlan, type CompiledPlan } from './tracking-plan/check';
import type { TrackingPlan } from '../../src-shared/tracking-plan';
import { createTextIndexCatchUp } from './text-index';
import { createCommitFollowUp, SEARCH_INDEX_CATCH_UP } from './commit-follow-up';
import { createSlicedWork, fixedSlices, timedSlices, untilDoneInSlices, type SlicedWork, type SliceSizing } from './sliced-work';
import { TALLY_BACKFILL_SLICE } from './store/message-tallies';
import type { BackfillBelow } from './store/backfill-below';
import { nextTidyPages, SEARCH_MERGE_STEPS, SEARCH_TIDY_SLICES } from './store/search-index';
import { createOffThreadReads, type OffThreadReads } from './reads/off-thread';
import { READ_BUDGET_MS } from './api/deliveries';

export interface EngineOptions {
  dataDir: string;
  clock?: Clock;
  random?: () => number;
  /** better_sqlite3.node for the running ABI (Electron); tests and headless use the Node build. */
  nativeBinding?: string;
  /** Extra CA certificates trusted for https webhooks (e.g. a local development CA). */
  ca?: string | Buffer;
  concurrency?: number;
  /** Live-update coalescing interval: the views apply one update per frame, not one per row. */
  liveIntervalMs?: number;
  /** Seals destinations' shared secrets at rest (Electron: safeStorage); plain text when absent. */
  secrets?: SecretSealer;
  /** While degraded by a storage fault, how often (on the clock) a small write checks whether the log can take writes again. */
  probeIntervalMs?: number;
  /** Free space below which the storage check counts the disk as full (1 MiB when absent). */
  minFreeBytes?: number;
  /** Where the engine's one-line storage reports go; stderr when absent. */
  log?: (line: string) => void;
  /** What to tell the user about secrets at rest; said from `secrets` when absent. */
  secretsAtRest?: SecretsAtRest;
  /**
   * The read worker's entry file (reads/worker.ts, or its build). Absent: found beside the
   * sources when running them; null: no worker, long reads run in windows on the engine's thread.
   */
  readWorkerEntry?: string | URL | null;
  /**
   * Start the read worker with the engine rather than at the first long read (which runs on the
   * engine's thread while the worker starts): for a server or the app, which stay up to answer
   * such reads; tests and short CLI runs mostly make none.
   */
  readWorkerAtStart?: boolean;
  /**
   * Runs the delivery path once at start against loopback receivers of its own (delivery/warm-up.ts),
   * so the first second of traffic is not the one that compiles it. The app and `hookbench serve`
   * set it; tests mostly leave it off, as it costs each start a certificate and two servers.
   */
  warmUpAtStart?: boolean;
  /**
   * The read worker thread's nice value (BACKGROUND_NICE unless set; Linux only); null leaves it
   * at the engine's priority, for measuring what the lower one buys.
   */
  readWorkerNice?: number | null;
  /**
   * A sending thread's entry file (delivery/sender-worker.ts, or its build). Absent or null:
   * attempts are sent from the engine's thread, which measured better on two cores
   * (docs/latency.md, change 6).
   */
  senderWorkerEntry?: string | URL | null;
  /** How a purge's steps are sized (deletion/purge.ts); tests make them one message each. */
  purgeSizing?: SliceSizing;
  /**
   * How long (ms) a text count may walk the search index on the read worker: COUNT_BUDGET_MS
   * unless set. The engine's thread reads its own budget on `clock`; tests that compare the two
   * give the worker no limit (Infinity), so a busy machine cannot make them differ.
   */
  readCountBudgetMs?: number;
  /**
   * How long (ms) one page or count of the Deliveries view reads through the log for a filter no
   * index serves (a URL, a type, replays, violations) before it answers with how far it got:
   * READ_BUDGET_MS unless set, on the read worker and here alike. Tests that want whole answers
   * from a log of many windows give it Infinity, so a busy machine cannot cut them short.
   */
  readBudgetMs?: number;
  /** Messages per part of the search index (store/search-index.ts, PART_MESSAGES): smaller in tests. */
  searchIndexPartMessages?: number;
  /**
   * Fewest ingest requests in hand for a request's bodies to go to the packing thread
   * (store/body-packer.ts, PACK_OFF_THREAD_MIN_IN_FLIGHT): 1 in tests that must see the thread used.
   */
  packOffThreadMinInFlight?: number;
}

const SEALED: SecretsAtRest = { sealed: true, reason: 'Shared secrets are encrypted with the system keychain before they are stored.' };
const PLAIN: SecretsAtRest = {
  sealed: false,
  reason: 'Shared secrets are stored as plain text in hookbench.sqlite, a file only your user account can read.',
};

/** What the engine itself reports live; config events come from the API layer that saved them. */
export type EngineLiveEvent =
  | { type: 'deliveries' | 'requests' | 'computations' | 'deletions' | 'receivers'; ids: number[] }
  | { type: 'health'; health: EngineHealth };
type RowsEventType = Extract<EngineLiveEvent, { ids: number[] }>['type'];
export type LiveListener = (event: EngineLiveEvent) => void;

export interface Engine {
  /** Where the database lives (the user data folder in Electron, --data-dir in headless mode). */
  readonly dataDir: string;
  /** Whether shared secrets are sealed at rest, and why (or why not). */
  readonly secretsAtRest: SecretsAtRest;
  /** The engine's data, one store per thing it holds; nothing outside them sees the database. */
  readonly stores: Stores;
  /** Reads that may take long, run on a worker thread with its own connection (or here while none answers). */
  readonly reads: OffThreadReads;
  /** The ingest's packing thread (store/body-packer.ts): whether it is up, and how many bodies it has packed. */
  readonly bodyPacker: Pick<BodyPacker, 'ready' | 'packed'>;
  /**
   * Resolves once every message committed before the call is in the search index, the tallies
   * and the profiles, taken in by the engine's follow-up in its slices: a read on this thread
   * that must see them all awaits it first, so that it never takes a long backlog in at once.
   */
  owedTakenIn(): Promise<void>;
  readonly clock: Clock;
  /** The Deliveries view's budget for a read through the log (EngineOptions.readBudgetMs). */
  readonly readBudgetMs: number;
  /** Storage health: degraded while the log cannot be written, and why (also the `health` live event). */
  readonly health: HealthMonitor;
  /**
   * Tries one small write now, waiting up to waitMs for a lock held by another program. Null when
   * it committed; else the fault (the start-up check of `hookbench serve`).
   */
  checkStorage(waitMs?: number): StorageFault | null;
  start(): { attempts: number; deliveries: number };
  /** Resolves when the start's warm-up (warmUpAtStart) has run, with what it did; null without one. */
  warmedUp(): Promise<WarmUpResult | null>;
  /**
   * Stops delivering and closes the log. Rounds in flight are waited for, for roundsWaitMs at most
   * when given; a round still out then is cut short and its attempts are recovered as interrupted
   * at the next start.
   */
  stop(options?: { roundsWaitMs?: number }): Promise<void>;
  /** Applies a config file (already validated) by name; running it twice changes nothing. */
  applyConfig(config: HookbenchConfig): void;
  deliverySettings(): DeliverySettings;
  /**
   * Removes a source by name, unless a destination is attached to it or an audience or computed
   * trait lives in it (its space): then nothing changes and attachedTo / computations name them.
   * removed is false with both empty when there is no such source.
   */
  deleteSource(name: string): { removed: boolean; attachedTo: string[]; computations: string[] };
  /** Removes a destination by name; its deliveries stay in the log and the queued ones are discarded. False when there is none. */
  deleteDestination(name: string): boolean;
  /** Renames a destination, keeping its id and so its deliveries. */
  renameDestination(from: string, to: string): 'renamed' | 'missing' | 'taken';
  /** Handles one Tracking API request; `path` from ingestPath(). */
  handleIngest(req: IncomingMessage, res: ServerResponse, path: string): void;
  /** Answers an SDK's settings request for writeKey, pointing it back at `host` (how it reached us). */
  handleSdkSettings(req: IncomingMessage, res: ServerResponse, writeKey: string, host: string): void;
  onLive(listener: LiveListener): () => void;
  /** Reports changed rows live (coalesced with the engine's own events): for the personas and deletion rooms. */
  publishLive(type: RowsEventType, ids: number[]): void;
  /**
   * Queues a replay of a delivery: the same bytes unless `body` is given (sent exactly as given and
   * signed anew), to the destination's URLs unless `targetUrl` is given. Returns the new delivery's id.
   */
  replay(deliveryId: number, options?: { body?: Uint8Array; targetUrl?: string }): number;
  /**
   * Sends a waiting (pending or retrying) delivery's next round at once; the rounds after it follow
   * the retry policy from there. False when the delivery is not waiting.
   */
  retryNow(deliveryId: number): boolean;
  /**
   * Queues a test event: a sample call of the type, mapped, signed and sent like real traffic, to
   * the destination's URLs or to `url` alone (one of them), marked as a test. Returns its delivery id.
   */
  sendTestEvent(destinationId: number, options: { type: MessageType; url?: string }): number;
  /** Deletion requests and their delete notices (src-main/engine/deletion). */
  readonly deletions: Deletions;
  /**
   * Registers what a purge must also remove (the personas room's profile rows): called inside the
   * purge's transaction with the userId and the ids linked to it. Returns the unregister function.
   */
  onPurge(hook: PurgeHook): () => void;
  /** Profiles, computed traits and audiences (src-main/engine/personas). */
  readonly personas: Personas;
  /**
   * Commits calls the engine makes itself (audience syncs) exactly like an accepted ingest request
   * of the source: one Inbound request, each message routed to the source's enabled destinations
   * (integrations respected), the scheduler woken. Synchronous; joins the caller's transaction.
   * With `appendTo`, the calls join that request instead. Returns the deliveries this commit made.
   */
  commitInternal(input: InternalCommit): { requestId: number; deliveryIds: number[] };
  /** Age and size limits of the log, applied in small slices on the clock (src-main/engine/retention). */
  readonly retention: Retention;
  retentionSettings(): RetentionSettings;
  /** Test receivers at /receivers/{name} (src-main/engine/receivers). */
  readonly receivers: Receivers;
  /** The tracking plan every accepted message is checked against; null when there is none. */
  trackingPlan(): TrackingPlan | null;
  /**
   * Replaces the tracking plan (null removes it). Compiled first: a schema the validator cannot
   * use is a ValidationError naming it, and nothing changes.
   */
  setTrackingPlan(plan: TrackingPlan | null): void;
}

export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? systemClock;
  const dbPath = join(options.dataDir, 'hookbench.sqlite');
  let unlock: () => void;
  try {
    preparePrivateDir(options.dataDir);
    unlock = lockDataDir(options.dataDir, { nativeBinding: options.nativeBinding });
  } catch (err) {
    // A folder that cannot be made or a lock file that cannot be written (disk full, read-only).
    const fault = err instanceof DataDirLockedError ? null : classifyStorageError(err, faultContext(dbPath, clock.now()));
    throw fault ? new StorageFaultError(fault) : err;
  }
  let db: Db;
  try {
    // Only once the lock is ours: no other engine has this database open.
    preparePrivateDatabase(dbPath);
    db = openDatabase(dbPath, { nativeBinding: options.nativeBinding });
    if (useIncrementalVacuum(db) === 'too_big') {
      process.stderr.write(
        'hookbench: this log was made by an older Hookbench and is too big to convert now: retention keeps it from growing, but the file shrinks only after a start that finds it under 64 MB\n',
      );
    }
  } catch (err) {
    unlock();
    const fault = classifyStorageError(err, faultContext(dbPath, clock.now()));
    throw fault ? new StorageFaultError(fault) : err;
  }
  const checkpointer = startCheckpointer(dbPath, { nativeBinding: options.nativeBinding, onWalCopied: () => truncateWal(db) });
  const wal = walWatch(dbPath);
  const stores = createStores(db, options.secrets, { searchIndexPartMessages: options.searchIndexPartMessages });
  // Started at the first long read, not here: most engines (tests, short CLI runs) never make one.
  const offThread = createOffThreadReads({
    dbPath,
    nativeBinding: options.nativeBinding,
    entry: options.readWorkerEntry,
    clock,
    log: options.log,
    countBudgetMs: options.readCountBudgetMs,
    readBudgetMs: options.readBudgetMs,
    nice: options.readWorkerNice,
  });
  // The worker reads what is committed: before a page of profiles, the follow-up takes in what
  // commits owed when it was asked (in its slices, so ingest goes on; the profiles cost most of
  // it) and the rest, a few hundred messages at most, goes in here. Before a free-text read, only the search index must be current, and it takes messages in
  // several times faster than the profiles: it catches up in slices of its own. Other reads need
  // neither and do not pay for it.
  const reads: typeof offThread = {
    ...offThread,
    run: async (op, args, fallback) => {
      if (op === 'profiles.page') {
        await commitFollowUp.settled();
        stores.profiles.settleForRead();
      } else if ('text' in args && args.text !== null) {
        await untilDoneInSlices((max) => indexed(stores.searchIndex.indexOwed(max)), SEARCH_INDEX_CATCH_UP);
      }
      return offThread.run(op, args, fallback);
    },
  };
  const { config, log } = stores;

  // Small tables read on every request: cached, rebuilt after each config change.
  let sourcesByKey = new Map<string, { id: number }>();
  let destinationsById = new Map<number, Destination>();
  let routes = new Map<number, number[]>();
  let settings: DeliverySettings = DEFAULT_DELIVERY_SETTINGS;
  let retentionSettings: RetentionSettings = DEFAULT_RETENTION;
  // Compiled once per change of the plan, never per message.
  let plan: { text: string; compiled: CompiledPlan } | null = null;
  const loadPlan = (): void => {
    const stored = config.getSetting<TrackingPlan>('trackingPlan') ?? null;
    const text = stored === null ? null : JSON.stringify(stored);
    if (text === (plan?.text ?? null)) return;
    try {
      plan = stored === null || text === null ? null : { text, compiled: compilePlan(stored) };
    } catch (err) {
      // Saved plans were compiled before saving; one that no longer compiles is reported, not applied.
      plan = null;
      process.stderr.write(`hookbench: the stored tracking plan cannot be used: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  };
  const reload = (): void => {
    const sources = config.listSources();
    const destinations = config.listDestinations();
    sourcesByKey = new Map(sources.map((s) => [s.writeKey, { id: s.id }]));
    destinationsById = new Map(destinations.map((d) => [d.id, d]));
    routes = new Map(
      sources.map((s) => [s.id, destinations.filter((d) => d.enabled && d.sources.includes(s.name)).map((d) => d.id)]),
    );
    settings = config.getDeliverySettings(DEFAULT_DELIVERY_SETTINGS);
    retentionSettings = { ...DEFAULT_RETENTION, ...(config.getSetting<Partial<RetentionSettings>>('retention') ?? {}) };
    loadPlan();
  };
  reload();

  const listeners = new Set<LiveListener>();
  const pending: Record<RowsEventType, Set<number>> = {
    requests: new Set(),
    deliveries: new Set(),
    computations: new Set(),
    deletions: new Set(),
    receivers: new Set(),
  };
  // Rows removed in bulk (Clear log, retention) are not listed one by one: the view reads again.
  const readAgain = new Set<RowsEventType>();
  let liveTimer: NodeJS.Timeout | null = null;
  const flushLive = (): void => {
    liveTimer = null;
    for (const type of ['requests', 'deliveries', 'computations', 'deletions', 'receivers'] as const) {
      if (pending[type].size === 0 && !readAgain.has(type)) continue;
      const event: EngineLiveEvent = { type, ids: readAgain.has(type) ? [] : [...pending[type]] };
      pending[type].clear();
      readAgain.delete(type);
      for (const l of listeners) l(event);
    }
  };
  const publishTo = (type: RowsEventType, ids: number[]): void => {
    if (listeners.size === 0) return;
    if (ids.length === 0) readAgain.add(type);
    for (const id of ids) pending[type].add(id);
    liveTimer ??= setTimeout(flushLive, options.liveIntervalMs ?? 50);
  };
  const publish = (ids: number[]): void => publishTo('deliveries', ids);

  const probe = createStorageProbe(db, options.dataDir, options.minFreeBytes);
  let started = false;
  const health: HealthMonitor = createHealthMonitor({
    clock,
    dbPath,
    dataDir: options.dataDir,
    // No wait: a probe blocked on a lock would stall the event loop; it runs again a moment later.
    probe: (now) => probe.check(now, 0),
    probeIntervalMs: options.probeIntervalMs,
    log: options.log,
    // Not coalesced: a change of health is rare and the banner should not lag behind it.
    onChange: (h) => {
      for (const l of listeners) l({ type: 'health', health: h });
    },
    onRecovered: () => {
      if (!started) return;
      scheduler.resume();
      deletions.resume();
      personas.start();
    },
  });
  /** Reports a storage fault from a background task; anything else is a bug and is thrown on. */
  const reportOrThrow = (err: unknown): void => {
    if (health.fault(err) === null) throw err;
  };

  /** Between the slices of a long background write: a turn of the event loop, then room in the WAL. */
  const backgroundTurn = async (): Promise<void> => {
    await new Promise((resolve) => setImmediate(resolve));
    await wal.roomForBackgroundWrite();
  };

  // Indexing merges nothing (schema 26): each transaction that indexes leaves a small segment,
  // and these steps merge them, a few pages each with a turn between, as FTS5 would have merged
  // them inside the indexing transaction, hundreds of pages at a time on a big log
  // (docs/scale.md, "The search index's merging, and its parts").
  const searchMerging = createSlicedWork({
    slice: (pages) => stores.searchIndex.mergeStep(pages),
    sizing: timedSlices(SEARCH_MERGE_STEPS),
    clock,
    // Background work like the tidy: a step waits (a bounded while) for the checkpointer to make room.
    prepare: () => wal.roomForBackgroundWrite(),
    stoppedMessage: 'the merging of the search index stopped',
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: the search index could not be merged: ${String(err)}\n`);
    },
  });
  /** After a transaction that indexed messages: the merging goes on (a step that finds nothing to merge ends it). */
  const indexed = (done: boolean): boolean => {
    searchMerging.start();
    return done;
  };

  // Deletions leave the search index's rows marked gone (schema 25). After a Clear log, which
  // marks nearly all of them, the segments are merged in short steps that wait for room in the
  // WAL. Retention's slices and purges leave theirs to the merge steps above, which drop them
  // when they merge their segment: a tidy after them carried on whatever level merge was half
  // done, which at 10M messages took steps of seconds (docs/scale.md, "Deleting from the search index").
  const searchTidy = createSlicedWork({
    slice: (pages) => stores.searchIndex.tidy(pages),
    sizing: { first: SEARCH_TIDY_SLICES.first, next: nextTidyPages },
    resizeOnStart: true,
    clock,
    prepare: () => wal.roomForBackgroundWrite(),
    stoppedMessage: 'the tidying of the search index stopped',
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: the search index could not be tidied after Clear log: ${String(err)}\n`);
    },
  });

  let warmUp: Promise<WarmUpResult> | null = null;
  const sender: Sender = createThreadSender({ clock, ca: options.ca, entry: options.senderWorkerEntry ?? null, log: options.log });
  // Built before the scheduler, which reports to it; it wakes the scheduler only once running.
  const deletions = createDeletions({
    store: stores.deletions,
    transaction: stores.transaction,
    log,
    clock,
    sources: () => config.listSources(),
    destinations: () => config.listDestinations(),
    wake: () => scheduler.wake(),
    publish: publishTo,
    purgeSizing: options.purgeSizing,
    // Each step's rows read first on the read worker: when the log's pages are not in memory the
    // step would otherwise wait for the disk on this thread (tens of ms for a few messages).
    prefetch: async (next) => {
      // A step's commit writes hundreds of scattered pages: it waits for the checkpointer to have
      // copied the WAL, so that it starts the WAL over rather than pushing it into the inline
      // checkpoint, a copy and an fsync inside a commit on this thread (docs/latency.md).
      await wal.roomForBackgroundWrite();
      await reads.run('deletion.warm', next, async () => 0);
    },
    // A purge step that met a full disk or a held lock is tried again a moment later.
    onPurgeFault: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: a purge step failed: ${String(err)}\n`);
    },
  });
  const scheduler = new Scheduler({
    log,
    clock,
    sender,
    destination: (id) => destinationsById.get(id),
    settings: () => settings,
    random: options.random,
    concurrency: options.concurrency,
    storage: health,
    onChange: (ids) => {
      publish(ids);
      deletions.deliveriesChanged(ids);
    },
  });

  const commitInternal = (input: InternalCommit): { requestId: number; deliveryIds: number[] } => {
    const destinations = routes.get(input.sourceId) ?? [];
    const items = input.messages.map((message, index) => {
      const json = JSON.stringify(message);
      const destinationIds = webhooksEnabled(message.integrations) ? destinations : [];
      return { index, message, json, destinationIds, body: destinationIds.length > 0 ? webhookBodyOf(message) : null };
    });
    const record = {
      sourceId: input.sourceId,
      path: input.path,
      receivedAt: clock.now(),
      httpStatus: 200,
      bytes: items.reduce((n, i) => n + Buffer.byteLength(i.json), 0),
      userAgent: input.userAgent,
      ...(input.appendTo === undefined ? {} : { appendTo: input.appendTo }),
    };
    const { requestId, deliveryIds } = log.commitRequest(record, input.sourceId, items, [], INGEST_LIMITS.dedupeWindowMs);
    if (deliveryIds.length > 0) {
      scheduler.wake();
      publish(deliveryIds);
    }
    publishTo('requests', [requestId]);
    retention.nudge();
    return { requestId, deliveryIds };
  };
  const personas = createPersonas({
    profiles: stores.profiles,
    computations: stores.computations,
    transaction: stores.transaction,
    clock,
    sources: () => config.listSources(),
    commit: commitInternal,
    // A big sync's slices write a commit each, thousands of calls with their deliveries: they wait
    // for room in the WAL like a purge's steps and retention's slices.
    betweenSlices: backgroundTurn,
    publish: (ids) => publishTo('computations', ids),
    onError: (id, err) => {
      if (health.fault(err) === null) {
        process.stderr.write(`hookbench: the interval sync of computation ${id} failed: ${err instanceof Error ? err.message : String(err)}\n`);
      }
    },
    onCatchUpError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: the profiles could not catch up with the log: ${String(err)}\n`);
    },
  });
  deletions.onPurge((person) => personas.forget(person));
  const retention = createRetention({
    store: stores.retention,
    dbPath,
    clock,
    settings: () => retentionSettings,
    profilesReadUpTo: (max) => personas.readUpTo(max),
    removingMessages: (ids) => personas.forgetTracks(ids),
    // A slice's deletes land on scattered pages, like a purge step's: it waits for room in the WAL.
    wal,
    onRemoved: ({ deliveryIds, requestIds, receiverRequests }) => {
      publish(deliveryIds);
      publishTo('requests', requestIds);
      if (receiverRequests > 0) publishTo('receivers', []);
    },
    onCleared: async () => {
      if (!started) {
        // `hookbench clear` on a folder nothing else uses: no ingest to leave turns to.
        while (!stores.searchIndex.tidy(SEARCH_TIDY_SLICES.max)) {
          // The next step.
        }
        return;
      }
      searchTidy.start();
      // Stopped first (the engine stopping): the clear ends without it.
      await searchTidy.done().catch(() => undefined);
    },
    // A storage fault makes the engine degraded like any other write; the next slice tries again.
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: retention could not prune the log: ${String(err)}\n`);
    },
  });

  const commitFollowUp = createCommitFollowUp({
    takeInOwed: (max) => indexed(stores.takeInOwed(max)),
    progress: () => ({ through: stores.takenInThrough(), last: stores.log.lastMessageId() }),
    readTakesInAtMost: READ_SETTLES_AT_MOST,
    clock,
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: the newest messages could not be indexed or read into the profiles: ${String(err)}\n`);
    },
  });

  // A log from before the tallies is tallied in the background, like the search index's catch-up.
  const tallyBackfill = createSlicedWork({
    slice: (max) => stores.tallies.backfill(max),
    sizing: fixedSlices(TALLY_BACKFILL_SLICE),
    clock,
    stoppedMessage: 'the tallies of the log stopped',
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: the log's tallies could not catch up: ${String(err)}\n`);
    },
  });

  // What a log from before the list of rare delivery statuses and the messages' times holds is
  // taken into them in the background, like the tallies. A row is read whole (a delivery's body,
  // a message's JSON): sized by time, about 4 ms a slice.
  const backfillBelowInSlices = (work: BackfillBelow, what: string): SlicedWork =>
    createSlicedWork({
      slice: (max) => work.backfill(max),
      sizing: timedSlices({ first: 500, min: 100, max: 20_000, targetMs: 4 }),
      clock,
      stoppedMessage: `the listing of ${what} stopped`,
      onError: (err) => {
        if (health.fault(err) === null) process.stderr.write(`hookbench: the list of ${what} could not catch up: ${String(err)}\n`);
      },
    });
  const rareStatusBackfill = backfillBelowInSlices(stores.rareStatuses, 'retrying, failed and discarded deliveries');
  const messageTimesBackfill = backfillBelowInSlices(stores.messageTimes, "the messages' times");
  const attemptUrlBackfill = backfillBelowInSlices(stores.attemptUrlRanges, "the attempt URLs' ranges");

  const textIndex = createTextIndexCatchUp({
    slice: (max) => {
      return indexed(stores.deliveryViews.backfillTextIndex(max));
    },
    clock,
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: the search index could not catch up: ${String(err)}\n`);
    },
  });

  // Bodies written before they were packed: a few ms of deflate per slice (about 30 µs a body).
  const bodyPacking = createSlicedWork({
    slice: (max) => log.packBacklog(max),
    clock,
    sizing: timedSlices({ first: 64, min: 16, max: 4_096, targetMs: 4 }),
    stoppedMessage: 'the packing of delivery bodies stopped',
    onError: (err) => {
      if (health.fault(err) === null) process.stderr.write(`hookbench: delivery bodies could not be packed: ${String(err)}\n`);
    },
  });

  const receivers = createReceivers({
    store: stores.receivers,
    clock,
    destinations: () => [...destinationsById.values()],
    publish: (ids) => publishTo('receivers', ids),
    fault: (err) => health.fault(err),
    // A removal's slices delete scattered pages: they wait for room in the WAL like a purge's steps.
    betweenSlices: backgroundTurn,
  });

  const routing: IngestRouting = {
    sourceByWriteKey: (key) => sourcesByKey.get(key),
    destinationsOf: (sourceId) => routes.get(sourceId) ?? [],
  };
  const onRequest = (id: number): void => {
    publishTo('requests', [id]);
    retention.nudge();
  };
  const packer = createBodyPacker({
    minInFlight: options.packOffThreadMinInFlight,
    onError: (message) => process.stderr.write(`hookbench: ${message}; bodies are packed on the engine's thread instead\n`),
  });
  const ingest = createIngestHandler({
    log,
    routing,
    clock,
    commit: createGroupCommit(db),
    packer,
    storage: health,
    onCommitted: () => {
      scheduler.committed();
      // A moment later, after the deliveries this commit made due are sent, with the commits that follow.
      if (started) commitFollowUp.committed();
    },
    onRequest,
    plan: () => plan?.compiled ?? null,
  });
  const sdkSettings = createSdkSettingsHandler({ log, routing, clock, storage: health, onRequest });

  return {
    dataDir: options.dataDir,
    secretsAtRest: options.secretsAtRest ?? (options.secrets?.seal ? SEALED : PLAIN),
    stores,
    reads,
    bodyPacker: packer,
    owedTakenIn: () => commitFollowUp.settled(),
    clock,
    readBudgetMs: options.readBudgetMs ?? READ_BUDGET_MS,
    health,
    checkStorage(waitMs = 2000) {
      try {
        probe.check(clock.now(), waitMs);
        return null;
      } catch (err) {
        const fault = classifyStorageError(err, faultContext(dbPath, clock.now()));
        if (fault === null) throw err;
        return fault;
      }
    },
    start: () => {
      started = true;
      if (options.readWorkerAtStart) offThread.prestart();
      if (options.warmUpAtStart && warmUp === null) warmUp = warmUpDelivery(clock);
      // Each part reports a storage fault and carries on; onRecovered runs them again.
      const recovered = scheduler.start();
      try {
        receivers.recover();
        deletions.resume();
        personas.start();
        retention.start();
        textIndex.start();
        tallyBackfill.start();
        rareStatusBackfill.start();
        messageTimesBackfill.start();
        attemptUrlBackfill.start();
        commitFollowUp.start();
        // From now on the follow-up keeps the profiles close behind ingest, and the API waits for it before a read.
        stores.profiles.limitReadSettling(READ_SETTLES_AT_MOST);
        bodyPacking.start();
      } catch (err) {
        reportOrThrow(err);
      }
      return recovered;
    },
    async stop(stopOptions = {}) {
      started = false;
      health.stop();
      retention.stop();
      deletions.stop();
      textIndex.stop();
      tallyBackfill.stop();
      rareStatusBackfill.stop();
      messageTimesBackfill.stop();
      attemptUrlBackfill.stop();
      searchTidy.stop();
      try {
        commitFollowUp.finish();
      } catch (err) {
        // What is still owed is taken in at the next start, as a crash's tail is.
        if (health.fault(err) === null) process.stderr.write(`hookbench: the newest messages could not be indexed or read into the profiles before stopping: ${String(err)}\n`);
      }
      // After the follow-up's last transactions, which start it again.
      searchMerging.stop();
      bodyPacking.stop();
      personas.stop();
      receivers.stop();
      await warmUp;
      const finished = await scheduler.stop({ waitMs: stopOptions.roundsWaitMs });
      await sender.close({ abort: !finished });
      if (liveTimer) clearTimeout(liveTimer);
      await reads.stop();
      await packer.stop();
      await checkpointer.stop();
      wal.close();
      db.close();
      unlock();
    },
    applyConfig(file) {
      const now = clock.now();
      // Compiled before anything is written: a plan that does not compile leaves the config unapplied.
      const compiled = file.trackingPlan ? compilePlan(file.trackingPlan) : null;
      stores.transaction(() => {
        for (const s of file.sources) config.upsertSource(s, now);
        for (const d of file.destinations) config.upsertDestination(d, now);
        if (file.delivery !== undefined) config.setSetting('delivery', deliverySettingsOf(file.delivery));
        if (file.retention !== undefined) config.setSetting('retention', { ...retentionSettings, ...file.retention });
        for (const r of file.receivers ?? []) stores.receivers.save(r, now);
        if (file.trackingPlan !== undefined) config.setSetting('trackingPlan', file.trackingPlan);
      });
      if (compiled !== null && file.trackingPlan) plan = { text: JSON.stringify(file.trackingPlan), compiled };
      reload();
      scheduler.wake();
      retention.nudge();
    },
    deliverySettings: () => settings,
    retention,
    retentionSettings: () => retentionSettings,
    receivers,
    trackingPlan: () => plan?.compiled.plan ?? null,
    setTrackingPlan(next) {
      const compiled = next === null ? null : compilePlan(next);
      config.setSetting('trackingPlan', next);
      plan = compiled === null || next === null ? null : { text: JSON.stringify(next), compiled };
    },
    deleteSource(name) {
      const outcome = stores.transaction(() => {
        const attachedTo = config.destinationsAttachedTo(name);
        const computations = personas
          .listComputations()
          .filter((c) => c.space === name)
          .map((c) => c.name);
        if (attachedTo.length > 0 || computations.length > 0) return { removed: false, attachedTo, computations };
        return { removed: config.deleteSource(name) !== null, attachedTo, computations };
      });
      if (outcome.removed) reload();
      return outcome;
    },
    deleteDestination(name) {
      const removed = config.deleteDestination(name, clock.now()) !== null;
      if (removed) {
        reload();
        scheduler.wake();
      }
      return removed;
    },
    renameDestination(from, to) {
      const outcome = config.renameDestination(from, to);
      if (outcome === 'renamed') reload();
      return outcome;
    },
    replay(deliveryId, replay = {}) {
      const original = log.getDelivery(deliveryId);
      if (!original) throw new Error(`no delivery with id ${deliveryId}`);
      const id = log.createReplay(original, {
        body: replay.body ?? original.body,
        edited: replay.body !== undefined,
        targetUrl: replay.targetUrl ?? original.target_url,
        now: clock.now(),
      });
      // The original changes too: it now lists this replay, which its row and detail show.
      publish([id, deliveryId]);
      deletions.replayed(deliveryId, id);
      scheduler.wake();
      return id;
    },
    retryNow(deliveryId) {
      const moved = log.retryNow(deliveryId, clock.now());
      if (moved) {
        publish([deliveryId]);
        scheduler.wake();
      }
      return moved;
    },
    sendTestEvent(destinationId, test) {
      const random = options.random ?? Math.random;
      const now = clock.now();
      const message = sampleMessage({ type: test.type, now, newId: randomUUID, pick: (n) => Math.min(n - 1, Math.floor(random() * n)) });
      const id = log.createTest({
        destinationId,
        payloadType: test.type,
        body: serializePayload(toWebhookPayload(message)),
        targetUrl: test.url ?? null,
        now,
      });
      publish([id]);
      scheduler.wake();
      return id;
    },
    deletions,
    onPurge: (hook) => deletions.onPurge(hook),
    personas,
    commitInternal,
    handleIngest: ingest,
    handleSdkSettings: sdkSettings,
    publishLive: publishTo,
    warmedUp: () => warmUp ?? Promise.resolve(null),
    onLive(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

