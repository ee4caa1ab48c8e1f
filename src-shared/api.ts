/**
 * The renderer ↔ engine contract (ARCHITECTURE.md: one contract, two transports). Electron's preload and
 * headless mode's HTTP control API both carry exactly these calls and live events; the renderer
 * sees nothing else. Plain data only: no Node, no DOM imports, so both sides compile it.
 */
import type {
  AudienceInput,
  Computation,
  ComputedTraitInput,
  ComputedTraitRule,
  Condition,
  DeletionRequest,
  PreviewResult,
  ProfileView,
  SyncSummary,
} from './personas';
import type { IngestWarning } from './events';
import type { Violation } from './assertions';
import type { TrackingPlan, TrackingPlanInput } from './tracking-plan';
import type { DeliverySettings, Destination, DestinationInput, RetentionSettings, RETRY_PRESETS, Source, SourceInput } from './settings';

export type DeliveryStatus = 'pending' | 'in_flight' | 'succeeded' | 'retrying' | 'failed' | 'discarded';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'in_flight', 'succeeded', 'retrying', 'failed', 'discarded'];

/** The log is keyset-paged (never loaded whole): pass the previous page's nextBeforeId. */
export interface Page {
  beforeId?: number;
  /** At most MAX_PAGE_LIMIT; DEFAULT_PAGE_LIMIT when absent. */
  limit?: number;
}
/**
 * What the Deliveries view filters on. Every field narrows; absent fields do not. Shared by
 * listDeliveries, countDeliveries and the bulk replay, so "the current filter" means one thing.
 */
export interface DeliveryFilter {
  /** One status, or any of several. */
  status?: DeliveryStatus | DeliveryStatus[];
  /** Payload type: track, identify, page, screen, group, alias. */
  type?: string;
  /** Substring of a URL the delivery was (or will be) sent to: an entry of its destination, its replay target, or an attempt's URL. */
  url?: string;
  /** Substring of the userId or anonymousId, the event name, or the messageId (case-insensitive). */
  text?: string;
  /** The message failed the tracking plan ('any'), or did not ('none'). */
  violations?: 'any' | 'none';
}
export interface DeliveryPage extends Page, DeliveryFilter {
  /** Only rows newer than this id (the live tail catching up); still newest first. */
  afterId?: number;
}
export interface DeliveryCounts {
  /** Every delivery in the log. */
  total: number;
  /** Those the filter lets through (equal to total without a filter). */
  matching: number;
}
export interface PageResult<T> {
  /** Newest first. */
  items: T[];
  /** Id to pass as beforeId for the next page; null once the log is exhausted. */
  nextBeforeId: number | null;
}
export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 500;

/** One delivery as a list row: no body, no attempts, so a page stays small. Times are ISO 8601 UTC. */
export interface DeliverySummary {
  id: number;
  /** The messages row the delivery was made from; null for a delivery not born from a message. */
  messageRowId: number | null;
  destinationId: number;
  /** Payload type: track, identify, … */
  type: string;
  status: DeliveryStatus;
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  /** The message's own messageId (from the SDK or assigned at ingest). */
  messageId: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
  rounds: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  replayOf: number | null;
  /** Webhook URLs this delivery goes to (its destination's entries, or its replay target). */
  entries: number;
  /** Total time of the last finished attempt, in ms; null before any. */
  latencyMs: number | null;
  /** Replays made of this delivery (newest first, ids only). */
  replays: number[];
  /** How many tracking-plan violations its message has. */
  violations: number;
}

export interface AttemptTimingsView {
  dnsMs?: number;
  connectMs?: number;
  tlsMs?: number;
  firstByteMs?: number;
  totalMs: number;
}

export interface AttemptView {
  id: number;
  url: string;
  startedAt: string;
  round: number;
  state: 'in_flight' | 'done' | 'interrupted';
  /** The retry policy's reading of this attempt (e.g. succeeded, retryable, fatal); null while in flight. */
  verdict: string | null;
  httpStatus: number | null;
  /** Exactly the headers sent, X-Signature included. */
  requestHeaders: Record<string, string>;
  timings: AttemptTimingsView | null;
  responseHeaders: Record<string, string | string[]> | null;
  /** The kept prefix of the response body as UTF-8 (invalid sequences replaced). */
  responseBody: string | null;
  responseBytes: number | null;
  responseTruncated: boolean;
  errorKind: string | null;
  errorText: string | null;
  retryAfterMs: number | null;
}

export interface DeliveryDetail extends DeliverySummary {
  /** The exact bytes signed and sent, as UTF-8; null until the first round mapped them. */
  body: string | null;
  /** A replay sent to one URL instead of the destination's entries. */
  targetUrl: string | null;
  edited: boolean;
  firstAttemptAt: string | null;
  finishedAt: string | null;
  attempts: AttemptView[];
  /** X-Signature recomputed from the stored bytes and the destination's current secret. */
  signature: SignatureCheck;
  /** When the next round is due, or why there will be none, in plain words. */
  nextStep: string;
  /** The original body when this is an edited replay (the edit is kept beside it). */
  originalBody: string | null;
  destinationName: string | null;
}

export interface SignatureCheck {
  /** no_secret: the destination has no shared secret, so nothing is signed. */
  state: 'valid' | 'mismatch' | 'no_secret' | 'not_sent';
  /** Lowercase hex HMAC-SHA1 of the stored body with the current secret; null without a secret or a body. */
  expected: string | null;
  /** The X-Signature of the last attempt, as sent. */
  sent: string | null;
  /** A sentence for the UI, e.g. "matches the body and the current secret". */
  explanation: string;
}

/** One HTTP call to the Tracking API, accepted or refused. */
export interface InboundRequest {
  id: number;
  sourceId: number | null;
  path: string;
  receivedAt: string;
  httpStatus: number;
  bytes: number;
  items: number;
  accepted: number;
  dropped: number;
  duplicates: number;
  userAgent: string | null;
  errorCode: string | null;
  errorText: string | null;
}

/** An item of an accepted request that did not become a message. */
export interface DroppedItemView {
  index: number;
  kind: 'invalid' | 'duplicate';
  reason: string;
  /** The item as received (JSON text). */
  raw: string;
}

/** A message the request produced, as stored (enriched; writeKey stripped). */
export interface InboundMessageView {
  id: number;
  messageId: string;
  type: string;
  userId: string | null;
  anonymousId: string | null;
  event: string | null;
  receivedAt: string;
  /** The stored message as JSON text. */
  json: string;
  /** What ingest could not use in it (fields left out or turned into strings); empty for most. */
  warnings: IngestWarning[];
  /** Where it failed the tracking plan; empty when it passed or no plan applied. */
  violations: Violation[];
  /** Deliveries made from it. */
  deliveryIds: number[];
}

/** Messages with tracking-plan violations, per call type and event. */
export interface ViolationCount {
  type: string;
  event: string | null;
  messages: number;
  violations: number;
}

export interface TrackingPlanView {
  /** The plan in force; null when there is none. */
  plan: TrackingPlan | null;
  /** Over the whole log, most affected first. */
  counts: ViolationCount[];
}

/** What the Compose view sends through the client library to the running ingest. */
export type ComposeType = 'track' | 'identify' | 'page' | 'screen' | 'group' | 'alias';
export const COMPOSE_TYPES: readonly ComposeType[] = ['track', 'identify', 'page', 'screen', 'group', 'alias'];
export interface ComposeInput {
  /** Name of the source whose write key the client library uses. */
  source: string;
  type: ComposeType;
  /**
   * The call's fields as the client library takes them (userId, anonymousId, event, name, category,
   * groupId, previousId, properties, traits, context, integrations, timestamp, messageId).
   */
  message: Record<string, unknown>;
  /** Send this many copies (1 to MAX_COMPOSE_COPIES); each gets its own messageId unless one is given. */
  copies?: number;
}
export const MAX_COMPOSE_COPIES = 1000;
export interface ComposeResult {
  /** Messages the ingest acknowledged. */
  sent: number;
  /** The messageIds the client library gave them. */
  messageIds: string[];
  /** The ingest address the client library posted to. */
  endpoint: string;
  /** Something worth knowing about what was sent, e.g. that copies sharing one messageId were deduped. */
  notice?: string;
}
export interface ComposeTemplate {
  name: string;
  input: Omit<ComposeInput, 'copies'> & { copies?: number };
  savedAt: string;
}

export type DeliverySettingsInput = Partial<DeliverySettings> & { preset?: keyof typeof RETRY_PRESETS };

/**
 * Every call takes at most one argument, so a transport carries `{ method, params }` and nothing
 * positional can be misread. All return promises, whatever the transport.
 */
export interface EngineApi {
  listDeliveries(page?: DeliveryPage): Promise<PageResult<DeliverySummary>>;
  /** Summaries of these deliveries (at most MAX_PAGE_LIMIT ids), for refreshing rows on screen. */
  getDeliverySummaries(ids: number[]): Promise<DeliverySummary[]>;
  countDeliveries(filter?: DeliveryFilter): Promise<DeliveryCounts>;
  /** null when no delivery has that id. */
  getDelivery(id: number): Promise<DeliveryDetail | null>;
  countDeliveriesByStatus(): Promise<Partial<Record<DeliveryStatus, number>>>;
  listRequests(page?: Page): Promise<PageResult<InboundRequest>>;
  droppedItemsOf(requestId: number): Promise<DroppedItemView[]>;
  messagesOf(requestId: number): Promise<InboundMessageView[]>;
  listSources(): Promise<Source[]>;
  /** Creates the source, or updates the write key of the one with that name. */
  saveSource(input: SourceInput): Promise<Source>;
  listDestinations(): Promise<Destination[]>;
  /** Creates or replaces, whole, the destination with that name. */
  saveDestination(input: DestinationInput): Promise<Destination>;
  getDeliverySettings(): Promise<DeliverySettings>;
  /** Replaces the settings: preset first, then explicit fields, over the defaults. */
  saveDeliverySettings(input: DeliverySettingsInput): Promise<DeliverySettings>;
  /**
   * Replays a delivery as a new delivery linked to it (replayOf): the same bytes, or `body` sent
   * exactly as given and signed anew; to the destination's URLs, or to `targetUrl` alone.
   */
  replayDelivery(input: ReplayInput): Promise<DeliveryDetail>;
  /** Sends composed calls through the client library to this engine's own ingest, as an SDK would. */
  composeEvents(input: ComposeInput): Promise<ComposeResult>;
  listTemplates(): Promise<ComposeTemplate[]>;
  /** Creates or replaces the template with that name. */
  saveTemplate(input: { name: string; input: ComposeTemplate['input'] }): Promise<ComposeTemplate>;
  deleteTemplate(name: string): Promise<void>;
  /** Removes a source; refused while a destination is attached to it. */
  deleteSource(name: string): Promise<void>;
  /** Removes a destination; its deliveries stay in the log, queued ones are discarded. */
  deleteDestination(name: string): Promise<void>;

  // Profiles, audiences and computed traits (src-main/engine/personas).
  listProfiles(page?: { text?: string; limit?: number; after?: string }): Promise<{ items: ProfileView[]; next: string | null }>;
  getProfile(profileId: string): Promise<ProfileView | null>;
  listComputations(): Promise<Computation[]>;
  /** Creates (and runs the initial sync: every member is sent) or replaces, by name, an audience. */
  saveAudience(input: AudienceInput): Promise<Computation>;
  /** Creates (and runs the initial sync) or replaces, by name, a computed trait. */
  saveComputedTrait(input: ComputedTraitInput): Promise<Computation>;
  deleteComputation(id: number): Promise<void>;
  /** Members (or values) a definition would have now, without saving or sending anything. */
  previewComputation(input: { condition: Condition } | { rule: ComputedTraitRule }): Promise<PreviewResult>;
  /** Sends identify for every profile whose membership (or value) changed since the previous sync. */
  syncComputation(id: number): Promise<SyncSummary>;
  listSyncs(computationId: number): Promise<SyncSummary[]>;

  // Deletion requests (src-main/engine/deletion).
  requestDeletion(input: { userId: string; purge?: boolean }): Promise<DeletionRequest>;
  listDeletions(): Promise<DeletionRequest[]>;
  getDeletion(id: number): Promise<DeletionRequest | null>;
  // The log's retention and size.
  /** The retention settings in force and how big the log is now. */
  getStorage(): Promise<StorageStatus>;
  /** Replaces the given retention fields (days, megabytes); the others keep their value. */
  saveRetention(input: Partial<RetentionSettings>): Promise<StorageStatus>;
  /**
   * Removes every request, message, dropped item, finished delivery and attempt received until
   * now. Sources, destinations, settings, templates, profiles, audiences and deletion requests
   * stay, and so do deliveries still pending, in flight or retrying (with their messages), which
   * go on as usual.
   */
  clearLog(): Promise<ClearLogResult>;
  /** The tracking plan in force and how many messages of the log failed it, per event. */
  getTrackingPlan(): Promise<TrackingPlanView>;
  /** Replaces the tracking plan (null removes it); a schema the validator cannot use is refused by its field. */
  saveTrackingPlan(plan: TrackingPlanInput | null): Promise<TrackingPlanView>;
  /**
   * Where this engine listens for the Tracking API (null until it does) and where it keeps its data.
   * The renderer cannot guess the ingest address: in Electron the page's origin is not the ingest.
   */
  getEnvironment(): Promise<EngineEnvironment>;
  /** Whether the log can be written now, and if not, why and what to do (also sent live as `health`). */
  getHealth(): Promise<EngineHealth>;
}

/**
 * The engine's storage health. `degraded` while the log cannot be written (disk full, a lock held by
 * another program, I/O errors, a damaged file): the Tracking API then answers 503 with the problem's
 * code, and nothing is lost. The engine recovers by itself once the cause clears, except from a
 * damaged file, which the user moves aside.
 */
export interface EngineHealth {
  status: 'ok' | 'degraded';
  problem: HealthProblem | null;
}
export interface HealthProblem {
  /** disk_full, database_locked, io_error, database_corrupt or not_writable. */
  code: string;
  /** What went wrong, naming the file or folder. */
  message: string;
  /** What to do about it. */
  advice: string;
  /** False for a damaged file: it does not clear by itself. */
  retryable: boolean;
  dataDir: string;
  /** When the problem began (ISO 8601 UTC). */
  since: string;
}

export interface EngineEnvironment {
  /** The Tracking API's base address, e.g. http://127.0.0.1:4545 (SDKs post to /v1/batch under it). */
  ingestUrl: string | null;
  dataDir: string | null;
  /** How destinations' shared secrets are kept on disk. */
  secrets: SecretsAtRest;
}

export interface SecretsAtRest {
  /** true: encrypted with the system keychain before they are written; false: stored as plain text. */
  sealed: boolean;
  /** Why, in a sentence for the Configure view. */
  reason: string;
}

export interface StorageStatus {
  retention: RetentionSettings;
  /** The SQLite file and its write-ahead log, as they are on disk now. */
  databaseBytes: number;
  walBytes: number;
  /** What the rows take inside the file (the rest is free space that retention gives back). */
  usedBytes: number;
  /** False for a file made before retention and too big to convert at start: it does not shrink. */
  incrementalVacuum: boolean;
}

export interface ClearLogResult {
  requests: number;
  messages: number;
  deliveries: number;
  attempts: number;
  droppedItems: number;
  /** Deliveries still pending, in flight or retrying: kept with their messages. */
  keptActiveDeliveries: number;
}

export interface ReplayInput {
  id: number;
  /** An edited body: must be a JSON object; its bytes are sent as given. */
  body?: string;
  /** Send to this URL only (e.g. a local receiver) instead of the destination's entries. */
  targetUrl?: string;
}

export type ApiMethod = keyof EngineApi;

/** The names a transport accepts; anything else is refused before it reaches the engine. */
export const API_METHODS = [
  'listDeliveries',
  'getDeliverySummaries',
  'countDeliveries',
  'getDelivery',
  'countDeliveriesByStatus',
  'listRequests',
  'droppedItemsOf',
  'messagesOf',
  'listSources',
  'saveSource',
  'listDestinations',
  'saveDestination',
  'getDeliverySettings',
  'saveDeliverySettings',
  'replayDelivery',
  'composeEvents',
  'listTemplates',
  'saveTemplate',
  'deleteTemplate',
  'deleteSource',
  'deleteDestination',
  'getEnvironment',
  'listProfiles',
  'getProfile',
  'listComputations',
  'saveAudience',
  'saveComputedTrait',
  'deleteComputation',
  'previewComputation',
  'syncComputation',
  'listSyncs',
  'requestDeletion',
  'listDeletions',
  'getDeletion',
  'getHealth',
  'getStorage',
  'saveRetention',
  'clearLog',
  'getTrackingPlan',
  'saveTrackingPlan',
] as const satisfies readonly ApiMethod[];

// Compile-time proof that API_METHODS lists every method of EngineApi, not just some of them.
type Missing = Exclude<ApiMethod, (typeof API_METHODS)[number]>;
const _everyMethodListed: [Missing] extends [never] ? true : Missing = true;
void _everyMethodListed;

export type ApiParams<M extends ApiMethod> = Parameters<EngineApi[M]>[0];
export type ApiResult<M extends ApiMethod> = Awaited<ReturnType<EngineApi[M]>>;

/** A call as carried by a transport, and its answer. */
export interface ApiCall<M extends ApiMethod = ApiMethod> {
  method: M;
  params?: ApiParams<M>;
}
export interface ApiFieldError {
  field: string;
  message: string;
}
export interface ApiError {
  /** Stable, machine-readable: validation_failed, unknown_method, bad_request, unauthorized, … */
  code: string;
  message: string;
  fields?: ApiFieldError[];
}
export type ApiResponse<T = unknown> = { ok: true; result: T } | { ok: false; error: ApiError };

/** Live events, coalesced by the engine: the views apply one update per frame. */
export type LiveEvent =
  /** These deliveries changed (created, attempted, finished): refetch the ones on screen. */
  | { type: 'deliveries'; ids: number[] }
  /** Sources, destinations or delivery settings were saved through the API. */
  | { type: 'config'; what: 'sources' | 'destinations' | 'delivery' | 'templates' | 'retention' | 'trackingPlan' }
  /** Computations were saved, deleted or synced (also by their interval): refetch them. */
  | { type: 'computations'; ids: number[] }
  /** Deletion requests were created or changed status: refetch them. */
  | { type: 'deletions'; ids: number[] }
  /** Tracking API requests were logged (accepted or refused): the Inbound view refetches. */
  | { type: 'requests'; ids: number[] }
  /** The engine's storage health changed (degraded, its cause, or ok again). */
  | { type: 'health'; health: EngineHealth }
  /** The engine is stopping: the last event of the stream, which then ends. */
  | { type: 'stopped' };
