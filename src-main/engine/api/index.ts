/**
 * The contract of src-shared/api.ts implemented over the engine. Transports (headless HTTP in
 * serve/control-api.ts, Electron IPC) differ; this does not (DESIGN.md: one contract, two transports).
 */
import type { Engine } from '../index';
import { StorageFaultError } from '../store/storage-fault';
import {
  API_METHODS,
  DEFAULT_PAGE_LIMIT,
  DELIVERY_STATUSES,
  MAX_PAGE_LIMIT,
  type DeliveryPage,
  type DeliveryStatus,
  type EngineApi,
  type LiveEvent,
  type PageResult,
} from '../../../src-shared/api';
import { createComposeApi } from './compose';
import { createDeliveryQueries } from './deliveries';
import { createConfigApi } from './config';
import { createInboundApi } from './inbound';
import { createPersonasApi } from './personas';
import { createDeletionApi } from './deletion';
import { createRetentionApi } from './retention';
import { createDetailQuery } from './detail';
import {
  ValidationError,
  validateDeliverySettings,
  validateDestinationInput,
  validateSourceInput,
  validateWebhookUrl,
  type DestinationInput,
  type FieldError,
  type SigningScheme,
  type SourceInput,
} from '../../../src-shared/settings';
import { toRequest } from './views';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

function requireValid(errors: FieldError[]): void {
  if (errors.length > 0) throw new ValidationError(errors);
}

function requireId(value: unknown, field: string): number {
  if (!isId(value)) throw new ValidationError([{ field, message: 'must be a positive whole number' }]);
  return value;
}

/** Params arrive from a transport, so they are checked here whatever the static types say. */
function parsePage(input: unknown): { beforeId: number; limit: number; status: DeliveryStatus | null } {
  if (input === undefined || input === null) return { beforeId: Number.MAX_SAFE_INTEGER, limit: DEFAULT_PAGE_LIMIT, status: null };
  if (!isObject(input)) throw new ValidationError([{ field: 'page', message: 'must be an object { beforeId?, limit?, status? }' }]);
  const errors: FieldError[] = [];
  if (input.beforeId !== undefined && !isId(input.beforeId)) errors.push({ field: 'page.beforeId', message: 'must be a positive whole number' });
  const limit = input.limit;
  if (limit !== undefined && !(typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    errors.push({ field: 'page.limit', message: `must be a whole number from 1 to ${MAX_PAGE_LIMIT}` });
  }
  const status = input.status;
  if (status !== undefined && !(DELIVERY_STATUSES as readonly unknown[]).includes(status)) {
    errors.push({ field: 'page.status', message: `must be one of ${DELIVERY_STATUSES.join(', ')}` });
  }
  requireValid(errors);
  return {
    beforeId: (input.beforeId as number | undefined) ?? Number.MAX_SAFE_INTEGER,
    limit: (limit as number | undefined) ?? DEFAULT_PAGE_LIMIT,
    status: (status as DeliveryStatus | undefined) ?? null,
  };
}

function pageOf<T extends { id: number }>(items: T[], limit: number): PageResult<T> {
  const last = items[items.length - 1];
  return { items, nextBeforeId: items.length === limit && last ? last.id : null };
}

/** Same defaults as a config file, so a destination saved from the UI and one from a file agree. */
function destinationInputOf(d: Record<string, unknown>): DestinationInput {
  return {
    name: d.name as string,
    enabled: (d.enabled as boolean | undefined) ?? true,
    sources: (d.sources as string[] | undefined) ?? [],
    sharedSecret: typeof d.sharedSecret === 'string' && d.sharedSecret !== '' ? d.sharedSecret : null,
    webhooks: (d.webhooks as { url: string; headers?: Record<string, string> }[]).map((w) => ({ url: w.url, headers: w.headers ?? {} })),
    ...(d.signing === undefined ? {} : { signing: d.signing as SigningScheme }),
  };
}

const DELIVERY_SETTING_KEYS = new Set(['timeoutMs', 'retryWindowMs', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs', 'jitter', 'preset']);

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
  const deliveries = createDeliveryQueries(engine.stores.deliveryViews);
  const detailOf = createDetailQuery(engine);

  const api: EngineApi = {
    async listDeliveries(page?: DeliveryPage) {
      return deliveries.list(page);
    },
    async getDelivery(id) {
      return detailOf(requireId(id, 'id'));
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
    async countDeliveriesByStatus() {
      return engine.stores.log.countDeliveriesByStatus();
    },
    async getHealth() {
      return engine.health.current();
    },
    async listRequests(page) {
      if (isObject(page) && page.status !== undefined) {
        throw new ValidationError([{ field: 'page.status', message: 'requests have no status filter' }]);
      }
      const p = parsePage(page);
      return pageOf(engine.stores.requests.page(p.beforeId, p.limit).map(toRequest), p.limit);
    },
    async droppedItemsOf(requestId) {
      return engine.stores.requests.droppedItemsOf(requireId(requestId, 'requestId'));
    },
    async listSources() {
      return engine.stores.config.listSources();
    },
    async saveSource(input) {
      requireValid(validateSourceInput(input, 'source'));
      const s: SourceInput = { name: input.name, writeKey: input.writeKey };
      const holder = engine.stores.config.listSources().find((o) => o.writeKey === s.writeKey && o.name !== s.name);
      if (holder) throw new ValidationError([{ field: 'source.writeKey', message: `is already the write key of source "${holder.name}"` }]);
      // Through applyConfig, not the store, so the engine's routing caches are rebuilt.
      engine.applyConfig({ sources: [s], destinations: [] });
      onConfig('sources');
      const saved = engine.stores.config.listSources().find((o) => o.name === s.name);
      if (!saved) throw new Error(`source "${s.name}" vanished while being saved`);
      return saved;
    },
    async listDestinations() {
      return engine.stores.config.listDestinations();
    },
    async saveDestination(input) {
      requireValid(validateDestinationInput(input, 'destination'));
      const d = destinationInputOf(input as unknown as Record<string, unknown>);
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
      const errors = validateDeliverySettings(input, 'delivery');
      if (input === undefined || input === null) errors.push({ field: 'delivery', message: 'must be an object' });
      else if (isObject(input)) {
        for (const key of Object.keys(input)) {
          if (!DELIVERY_SETTING_KEYS.has(key)) errors.push({ field: `delivery.${key}`, message: 'is not a delivery setting' });
        }
      }
      requireValid(errors);
      engine.applyConfig({ sources: [], destinations: [], delivery: { ...input } });
      onConfig('delivery');
      return engine.deliverySettings();
    },
    async replayDelivery(input) {
      if (!isObject(input)) throw new ValidationError([{ field: 'replay', message: 'must be an object { id, body?, targetUrl? }' }]);
      const id = requireId(input.id, 'replay.id');
      const errors: FieldError[] = [];
      if (!engine.stores.log.getDelivery(id)) errors.push({ field: 'replay.id', message: `no delivery with id ${id}` });
      let body: Uint8Array | undefined;
      if (input.body !== undefined) {
        if (typeof input.body !== 'string') errors.push({ field: 'replay.body', message: 'must be the JSON text to send' });
        else {
          try {
            const parsed: unknown = JSON.parse(input.body);
            if (!isObject(parsed)) errors.push({ field: 'replay.body', message: 'must be a JSON object' });
            else body = Buffer.from(input.body, 'utf8');
          } catch (err) {
            errors.push({ field: 'replay.body', message: `is not valid JSON: ${(err as Error).message}` });
          }
        }
      }
      if (input.targetUrl !== undefined) errors.push(...validateWebhookUrl(input.targetUrl, 'replay.targetUrl'));
      requireValid(errors);
      const replayId = engine.replay(id, {
        ...(body !== undefined ? { body } : {}),
        ...(typeof input.targetUrl === 'string' ? { targetUrl: input.targetUrl } : {}),
      });
      const detail = await api.getDelivery(replayId);
      if (!detail) throw new Error(`replay ${replayId} vanished`);
      return detail;
    },
  };
  return reportingStorageFaults(engine, api);
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
