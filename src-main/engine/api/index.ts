/**
 * The contract of src-shared/api.ts implemented over the engine. Transports (headless HTTP in
 * serve/control-api.ts, Electron IPC) differ; this does not (ARCHITECTURE.md: one contract, two transports).
 */
import type { Engine } from '../index';
import { StorageFaultError } from '../store/storage-fault';
import { API_METHODS, DEFAULT_PAGE_LIMIT, type DeliveryPage, type EngineApi, type LiveEvent, type PageResult } from '../../../src-shared/api';
import { createComposeApi } from './compose';
import { createDeliveryQueries } from './deliveries';
import { createConfigApi } from './config';
import { createInboundApi, requestQueryFilter } from './inbound';
import { createPersonasApi } from './personas';
import { createDeletionApi } from './deletion';
import { createRetentionApi } from './retention';
import { createReceiversApi } from './receivers';
import { createTrackingPlanApi } from './tracking-plan';
import { createDetailQuery } from './detail';
import { createDoctorApi } from './doctor';
import { ValidationError, type FieldError, type Source, type SourceInput } from '../../../src-shared/settings';
import { toRequest } from './views';
import { checkingParams } from './dispatch';
import { createTestEventApi } from './test-events';
import { createExportImportApi } from './export-import';

function requireValid(errors: FieldError[]): void {
  if (errors.length > 0) throw new ValidationError(errors);
}

function pageOf<T extends { id: number }>(items: T[], limit: number): PageResult<T> {
  const last = items[items.length - 1];
  return { items, nextBeforeId: items.length === limit && last ? last.id : null };
}

export type ConfigWhat = Extract<LiveEvent, { type: 'config' }>['what'];

export interface EngineApiOptions {
  /** Told after each successful save, so a transport can send a `config` live event. */
  onConfig?: (what: ConfigWhat) => void;
  /** Where the client library reaches this engine's Tracking API; null until the server listens. */
  ingestUrl?: () => string | null;
}

export function createEngineApi(engine: Engine, options: EngineApiOptions = {}): EngineApi {
  const onConfig = options.onConfig ?? ((): void => {});
  const compose = createComposeApi(engine, { ingestUrl: options.ingestUrl ?? (() => null), onConfig });
  const deliveries = createDeliveryQueries(engine.stores.deliveryViews, engine.reads, engine.clock, engine.readBudgetMs);
  const detailOf = createDetailQuery(engine);

  function putSource(s: SourceInput): Source {
    const holder = engine.stores.config.listSources().find((o) => o.writeKey === s.writeKey && o.name !== s.name);
    if (holder) throw new ValidationError([{ field: 'source.writeKey', message: `is already the write key of source "${holder.name}"` }]);
    // Through applyConfig, not the store, so the engine's routing caches are rebuilt.
    engine.applyConfig({ sources: [s], destinations: [] });
    onConfig('sources');
    const saved = engine.stores.config.listSources().find((o) => o.name === s.name);
    if (!saved) throw new Error(`source "${s.name}" vanished while being saved`);
    return saved;
  }
  const api: EngineApi = {
    async listDeliveries(page?: DeliveryPage) {
      return deliveries.list(page);
    },
    async getDelivery(id) {
      return detailOf(id);
    },
    async getDeliverySummaries(ids) {
      return deliveries.summaries(ids);
    },
    async countDeliveries(filter) {
      return deliveries.count(filter);
    },
    ...createInboundApi(engine),
    ...createConfigApi(engine, { onConfig, ingestUrl: options.ingestUrl ?? (() => null) }),
    ...compose,
    ...createPersonasApi(engine),
    ...createDeletionApi(engine),
    ...createRetentionApi(engine, { onConfig }),
    ...createDoctorApi(engine),
    ...createTestEventApi(engine),
    ...createReceiversApi(engine, { onConfig }),
    ...createTrackingPlanApi(engine, { onConfig }),
    ...createExportImportApi(engine, { ingestUrl: options.ingestUrl ?? (() => null) }),
    async countDeliveriesByStatus() {
      return engine.stores.log.countDeliveriesByStatus();
    },
    async getHealth() {
      return engine.health.current();
    },
    async listRequests(page) {
      const p = { beforeId: page?.beforeId ?? Number.MAX_SAFE_INTEGER, limit: page?.limit ?? DEFAULT_PAGE_LIMIT };
      const filter = requestQueryFilter(page);
      if (filter === null && !page?.oldest) return pageOf(engine.stores.requests.page(p.beforeId, p.limit).map(toRequest), p.limit);
      const args = { filter: filter ?? {}, beforeId: p.beforeId, limit: p.limit, oldest: page?.oldest === true };
      // A filter may have to read much of the log to fill a page (a path that no call has): off the engine's thread.
      const rows = await engine.reads.run('requests.filteredPage', args, async () =>
        engine.stores.requests.filteredPage(args.filter, args.beforeId, args.limit, args.oldest),
      );
      // The oldest page has nothing before it; a newer page is reached by dropping `oldest`.
      if (page?.oldest) return { items: rows.map(toRequest), nextBeforeId: null };
      return pageOf(rows.map(toRequest), p.limit);
    },
    async droppedItemsOf(requestId) {
      return engine.stores.requests.droppedItemsOf(requestId);
    },
    async listSources() {
      return engine.stores.config.listSources();
    },
    async saveSource(input) {
      const s: SourceInput = { name: input.name, writeKey: input.writeKey };
      const existing = engine.stores.config.listSources().find((o) => o.name === s.name);
      // A key change cuts off every SDK still sending the old key, so it is never a side effect of "create".
      if (existing && existing.writeKey !== s.writeKey) {
        throw new ValidationError([{ field: 'source.name', message: `is already the name of a source; rotate its write key with rotateWriteKey instead` }]);
      }
      return putSource(s);
    },
    async rotateWriteKey(input) {
      const s: SourceInput = { name: input.name, writeKey: input.writeKey };
      const existing = engine.stores.config.listSources().find((o) => o.name === s.name);
      if (!existing) throw new ValidationError([{ field: 'rotation.name', message: `no source named "${s.name}"` }]);
      if (existing.writeKey === s.writeKey) throw new ValidationError([{ field: 'rotation.writeKey', message: 'is the current write key; a rotation needs a new one' }]);
      return putSource(s);
    },
    async listDestinations() {
      return engine.stores.config.listDestinations();
    },
    async saveDestination(d) {
      const known = new Set(engine.stores.config.listSources().map((s) => s.name));
      requireValid(
        d.sources.flatMap((name, k) => (known.has(name) ? [] : [{ field: `destination.sources[${k}]`, message: `no source named "${name}"` }])),
      );
      engine.applyConfig({ sources: [], destinations: [d] });
      onConfig('destinations');
      const saved = engine.stores.config.listDestinations().find((o) => o.name === d.name);
      if (!saved) throw new Error(`destination "${d.name}" vanished while being saved`);
      return saved;
    },
    async getDeliverySettings() {
      return engine.deliverySettings();
    },
    async saveDeliverySettings(input) {
      engine.applyConfig({ sources: [], destinations: [], delivery: { ...input } });
      onConfig('delivery');
      return engine.deliverySettings();
    },
    async replayDelivery(input) {
      const id = input.id;
      if (!engine.stores.log.getDelivery(id)) throw new ValidationError([{ field: 'replay.id', message: `no delivery with id ${id}` }]);
      // Checked and replayed in the same turn of the event loop: no other call can slip in between.
      const earlier = input.unlessReplayed === true ? engine.stores.log.firstReplayOf(id) : null;
      if (earlier !== null) {
        throw new ValidationError([
          { field: 'replay.unlessReplayed', message: `delivery ${id} was already replayed as #${earlier}; leave unlessReplayed out to replay it again` },
        ]);
      }
      // The body was checked to be a JSON object; its bytes are sent exactly as given.
      const body = input.body !== undefined ? Buffer.from(input.body, 'utf8') : undefined;
      const replayId = engine.replay(id, {
        ...(body !== undefined ? { body } : {}),
        ...(typeof input.targetUrl === 'string' ? { targetUrl: input.targetUrl } : {}),
      });
      const detail = await api.getDelivery(replayId);
      if (!detail) throw new Error(`replay ${replayId} vanished`);
      return detail;
    },
    async retryNow({ id }) {
      const row = engine.stores.log.getDelivery(id);
      if (!row) throw new ValidationError([{ field: 'retryNow.id', message: `no delivery with id ${id}` }]);
      if (!engine.retryNow(id)) {
        throw new ValidationError([
          { field: 'retryNow.id', message: `delivery ${id} is ${row.status}, not waiting: only a pending or retrying delivery can be retried now` },
        ]);
      }
      const detail = await api.getDelivery(id);
      if (!detail) throw new Error(`delivery ${id} vanished`);
      return detail;
    },
  };
  return checkingParams(reportingStorageFaults(engine, api));
}

/**
 * Every call that fails on the log (disk full, locked, damaged) tells the engine's health, and
 * reaches the transport as a StorageFaultError carrying the cause's code, whatever the transport.
 */
function reportingStorageFaults(engine: Engine, api: EngineApi): EngineApi {
  const wrapped = { ...api };
  for (const method of API_METHODS) {
    const call = api[method] as (params: unknown) => Promise<unknown>;
    (wrapped as Record<string, unknown>)[method] = async (params: unknown): Promise<unknown> => {
      try {
        return await call.call(api, params);
      } catch (err) {
        const fault = engine.health.fault(err);
        throw fault ? new StorageFaultError(fault) : err;
      }
    };
  }
  return wrapped;
}
