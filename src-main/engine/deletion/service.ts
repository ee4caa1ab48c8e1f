/**
 * Deletion requests (docs/delivery.md: one delete notice per affected source).
 *
 * Requesting a deletion stores the request and, for each affected source (one holding messages of
 * the user, identity.ts) and each enabled destination attached to it, one delete notice: an
 * ordinary delivery whose bytes are built here, `{"type":"delete","userId":…,"timestamp":…}`, with
 * no message row. The scheduler sends, signs, retries and replays it like any other delivery.
 *
 * The request's status follows its notices (status.ts). The engine tells this room of every
 * delivery change (deliveriesChanged) and of every replay (replayed); a set of the notices' delivery
 * ids makes that a lookup for every other delivery. When a request becomes forwarded and asked for
 * a purge, the purge starts then (purge.ts): its first short step at once (for most people the
 * whole of it), the rest in the background, a turn of the event loop between steps.
 */
import type { DeletionRequest, DeletionStatus } from '../../../src-shared/personas';
import type { Destination, Source } from '../../../src-shared/settings';
import type { Clock } from '../clock';
import { deletePayload, serializePayload } from '../delivery/payloads';
import { toIso } from '../ingest/timestamps';
import type { Transaction } from '../store/stores';
import type { LogStore } from '../store/log-store';
import { storageFaultCode } from '../store/storage-fault';
import { parseDeletionInput } from './identity';
import { explainStatus, noticeOutcome, requestStatus, type ChainMember } from './status';
import { DeletionStore, type NoticeRow, type RequestRow } from '../store/deletions';
import { createPurge, PURGE_SIZING, type Purge, type PurgeHook, type PurgePrefetch } from './purge';
import type { SliceSizing } from '../sliced-work';

/**
 * Removes the rows another room keeps about a person (the personas room's profiles), inside the
 * purge's last transaction: synchronous, on the engine's database; throwing undoes that step.
 */
export type { PurgeHook } from './purge';

export interface DeletionDeps {
  store: DeletionStore;
  log: LogStore;
  transaction: Transaction;
  clock: Clock;
  sources(): Source[];
  destinations(): Destination[];
  /** Notices were queued: the scheduler should look for due work. */
  wake(): void;
  publish(type: 'deliveries' | 'deletions', ids: number[]): void;
  /** A storage fault in a purge step run in the background (the step is tried again later). */
  onPurgeFault?(err: unknown): void;
  /** How the purge's steps are sized (tests make them tiny). */
  purgeSizing?: SliceSizing;
  /** Reads a purge step's rows ahead of it off the engine's thread (purge.ts, PurgeDeps.prefetch). */
  prefetch?: (next: PurgePrefetch) => Promise<void>;
}

export interface Deletions {
  /** Validates (ValidationError by field), stores the request and queues its notices. */
  request(input: unknown): DeletionRequest;
  /** Newest first. */
  list(): DeletionRequest[];
  get(id: number): DeletionRequest | null;
  /** Every delivery change the scheduler reports; settles the requests whose notices moved. */
  deliveriesChanged(ids: readonly number[]): void;
  /** A replay was made of originalId: if that was a notice (or a replay of one), its request follows the replay too. */
  replayed(originalId: number, replayId: number): void;
  /** At start-up: settles what a stop may have left half done (a notice finished, its status or purge not yet written). */
  resume(): void;
  onPurge(hook: PurgeHook): () => void;
  /** Stops the purges under way (each starts again from where the log is at the next start). */
  stop(): void;
}

export function createDeletions(deps: DeletionDeps): Deletions {
  const store = deps.store;
  const hooks = new Set<PurgeHook>();
  /** Delivery id of every notice and of every replay of one → its request. */
  const watched = new Map<number, number>();
  const requestOfNotice = new Map(store.allNotices().map((n) => [n.delivery_id, n.request_id]));
  for (const [root, chain] of store.chains(null)) {
    const requestId = requestOfNotice.get(root);
    if (requestId !== undefined) for (const m of chain) watched.set(m.id, requestId);
  }

  /** Why the last purge step of a request failed (a hook threw); cleared when one succeeds. Tried again by the next trigger or start. */
  const purgeErrors = new Map<number, string>();
  /** Purges under way in the background, by request. */
  const purges = new Map<number, Purge>();
  // One step size for every purge, carried from step to step and from one purge to the next, so
  // a new purge starts at the size the log's pages allowed last time.
  const sizing = deps.purgeSizing ?? PURGE_SIZING;
  let stepSize = sizing.first;
  const shared: SliceSizing = {
    get first() {
      return stepSize;
    },
    next: (size, ms) => {
      stepSize = sizing.next(size, ms);
      return stepSize;
    },
  };

  const startPurge = (requestId: number, userId: string): void => {
    const purge = createPurge(requestId, userId, {
      store,
      transaction: deps.transaction,
      clock: deps.clock,
      sizing: shared,
      prefetch: deps.prefetch,
      hooks: () => hooks,
      removed: (ids) => deps.publish('deliveries', ids),
      finished: () => {
        purges.delete(requestId);
        purgeErrors.delete(requestId);
        deps.publish('deletions', [requestId]);
      },
      failed: (err) => {
        purges.delete(requestId);
        purgeErrors.set(requestId, err instanceof Error ? err.message : String(err));
        deps.publish('deletions', [requestId]);
      },
      storageFault: (err) => deps.onPurgeFault?.(err),
    });
    try {
      const t = performance.now();
      const done = purge.step(stepSize);
      shared.next(stepSize, performance.now() - t);
      if (done) return;
    } catch (err) {
      // The log itself failed (disk full, locked): the caller reports it, and resume() settles
      // every request again once the engine can write.
      if (storageFaultCode(err) !== null) throw err;
      // The step rolled back whole; the view says why. Thrown on, it would take down the scheduler
      // that reported the change.
      purgeErrors.set(requestId, (err as Error).message);
      deps.publish('deletions', [requestId]);
      return;
    }
    purges.set(requestId, purge);
    purge.continue();
  };

  /** Brings a request's stored status in line with its notices, publishes a change, and starts its purge when due. */
  const settle = (requestId: number): void => {
    const settled = deps.transaction(() => {
      const r = store.request(requestId);
      if (!r) return undefined;
      const status = requestStatus([...store.chains(requestId).values()].map(noticeOutcome));
      if (status === r.status) return { row: r, changed: false };
      store.setStatus(requestId, status);
      return { row: { ...r, status }, changed: true };
    });
    if (!settled) return;
    const { row, changed } = settled;
    if (changed) deps.publish('deletions', [requestId]);
    if (row.status === 'forwarded' && row.purge === 1 && row.purged_at === null && !purges.has(requestId)) startPurge(requestId, row.user_id);
  };

  const view = (row: RequestRow, notices: NoticeRow[], chains: Map<number, ChainMember[]>): DeletionRequest => {
    const views = notices.flatMap((n) => {
      const chain = chains.get(n.delivery_id);
      if (!chain) return [];
      const o = noticeOutcome(chain);
      return [{ deliveryId: o.deliveryId, source: n.source_name, destination: n.destination_name, status: o.status, lastError: o.lastError }];
    });
    const affectedSources = JSON.parse(row.affected_sources) as string[];
    const purgedAt = row.purged_at === null ? null : toIso(row.purged_at);
    return {
      id: row.id,
      userId: row.user_id,
      status: row.status,
      purge: row.purge === 1,
      purgedAt,
      createdAt: toIso(row.created_at),
      affectedSources,
      notices: views.map(({ lastError: _, ...n }) => n),
      explanation: explainStatus({
        userId: row.user_id,
        status: row.status,
        affectedSources,
        notices: views,
        purge: row.purge === 1,
        purgedAt,
        purgeError: purgeErrors.get(row.id) ?? null,
      }),
    };
  };

  const get = (id: number): DeletionRequest | null => {
    const row = store.request(id);
    return row ? view(row, store.noticesOf(id), store.chains(id)) : null;
  };

  return {
    request(input) {
      const { userId, purge: wantsPurge } = parseDeletionInput(input);
      const now = deps.clock.now();
      const created = deps.transaction(() => {
        const person = store.person(userId);
        const sourceNames = new Map(deps.sources().map((s) => [s.id, s.name]));
        const affected = store
          .affectedSourceIds(person)
          .map((id) => sourceNames.get(id) ?? `(removed source #${id})`)
          .sort();
        const enabled = deps.destinations().filter((d) => d.enabled);
        const plan = affected.flatMap((source) => enabled.filter((d) => d.sources.includes(source)).map((destination) => ({ source, destination })));
        const status: DeletionStatus = plan.length === 0 ? 'forwarded' : 'pending';
        const requestId = store.insertRequest({ userId, purge: wantsPurge, status, affectedSources: affected, now });
        // One body for every notice of the request: the same person, asked for at the same moment.
        const body = serializePayload(deletePayload(userId, toIso(now)));
        const deliveryIds = plan.map(({ source, destination }) => {
          const deliveryId = deps.log.createPrebuilt({ destinationId: destination.id, payloadType: 'delete', body, now });
          store.insertNotice({ deliveryId, requestId, source, destination: destination.name });
          return deliveryId;
        });
        return { requestId, deliveryIds };
      });
      for (const id of created.deliveryIds) watched.set(id, created.requestId);
      if (created.deliveryIds.length > 0) {
        deps.publish('deliveries', created.deliveryIds);
        deps.wake();
      }
      deps.publish('deletions', [created.requestId]);
      // Nothing to forward: forwarded at once, so a purge asked for runs now.
      if (created.deliveryIds.length === 0) settle(created.requestId);
      const result = get(created.requestId);
      if (!result) throw new Error(`deletion request ${created.requestId} vanished`);
      return result;
    },
    list() {
      const byRequest = new Map<number, NoticeRow[]>();
      for (const n of store.allNotices()) byRequest.set(n.request_id, [...(byRequest.get(n.request_id) ?? []), n]);
      const chains = store.chains(null);
      return store.requests().map((row) => view(row, byRequest.get(row.id) ?? [], chains));
    },
    get,
    deliveriesChanged(ids) {
      if (watched.size === 0) return;
      const requests = new Set<number>();
      for (const id of ids) {
        const requestId = watched.get(id);
        if (requestId !== undefined) requests.add(requestId);
      }
      for (const id of requests) settle(id);
    },
    replayed(originalId, replayId) {
      const requestId = watched.get(originalId);
      if (requestId === undefined) return;
      watched.set(replayId, requestId);
      settle(requestId);
    },
    resume() {
      for (const id of store.unsettledIds()) settle(id);
    },
    onPurge(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    stop() {
      for (const purge of purges.values()) purge.stop();
      purges.clear();
    },
  };
}
