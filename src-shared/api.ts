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
  ProfilePage,
  ProfileView,
  SyncSummary,
} from './personas';
import type { IngestWarning } from './events';
import type { AttemptFailure } from './delivery-outcomes';
import type { ReceiverInput, ReceiverRequestDetail, ReceiverRequestSummary, ReceiverView } from './receivers';
import type { MessageFilterInput, Violation } from './assertions';
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
  /** Substring of the userId or anonymousId or the event name (case-insensitive), or the start of the messageId (exact case). */
  text?: string;
  /** true: only deliveries that were replayed at least once; false: only those never replayed. */
  replayed?: boolean;
  /** The message failed the tracking plan ('any'), or did not ('none'). */
  violations?: 'any' | 'none';
  /** Created at or after this time (ISO 8601). */
  from?: string;
  /** Created before this time (ISO 8601). */
  to?: string;
}
export interface DeliveryPage extends Page, DeliveryFilter {
  /** Only rows newer than this id (the live tail catching up); still newest first. */
  afterId?: number;
  /**
   * Only these deliveries (at most MAX_PAGE_LIMIT): which of them the filter lets through, each
   * found by its id. The live list asks this of the rows an event named, whatever the filter, so
   * that it never reads through the log for them.
   */
  ids?: number[];
  /** The oldest matching rows (listed newest first within the page); nextBeforeId is then null. */
  oldest?: boolean;
}
export interface DeliveryCounts {
  /** Every delivery in the log. */
  total: number;
  /** Those the filter lets through (equal to total without a filter); at most COUNT_LIMIT when capped. */
  matching: number;
  /**
   * True when a filter on type, URL or text matched more than COUNT_LIMIT deliveries: counting
   * stopped there, and `matching` is COUNT_LIMIT ("10,000+"). Counts by status alone are exact.
   */
  capped?: boolean;
  /**
   * True while the free-text index is still taking in a log that existed before it: the text
   * filter is then read from the log itself, slower, with the same results.
   */
  textIndexCatchingUp?: boolean;
  /**
   * Set when a count with a text filter stopped before the oldest delivery: the text is one no
   * index answers (under three characters, a messageId start shared by very many messages, or
   * while the search index catches up) and the log is longer than one call reads, or the count
   * through the index ran out of its time (a needle whose matches are spread thin through a big
   * log). `matching` counts exactly the matching deliveries created at or after this time (ISO
   * 8601), so the real figure is at least that. Calling again counts again from the newest.
   */
  searchedTo?: string;
}
/** Where a count over a type, URL or text filter stops: past it, the exact figure would mean reading the whole log. */
export const COUNT_LIMIT = 10_000;
export interface PageResult<T> {
  /** Newest first. */
  items: T[];
  /** Id to pass as beforeId for the next page; null once the log is exhausted. */
  nextBeforeId: number | null;
  /**
   * Set when the call stopped reading before its page was full and before the end of the log: the
   * items are every match among the deliveries it read, not the last ones. Only a text filter no
   * index answers does this (see DeliveryCounts.searchedTo), so that no call reads the whole log.
   */
  partial?: PartialRead;
}
/** Where a call that reads through the log stopped, and how to go on from there. */
export interface PartialRead {
  /**
   * Creation time (ISO 8601) of the last delivery read: the oldest one newest first, the newest one
   * with `oldest`. Everything on the read side of it was searched.
   */
  searchedTo: string;
  /**
   * Merge into the same filter to read on. Newest first it is `{ beforeId }` and equals nextBeforeId;
   * with `oldest` it is `{ afterId }` (keep `oldest`): the next call returns the oldest matches above it.
   */
  resume: { beforeId: number } | { afterId: number };
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
  /** Time-warp factor it was created with: 1 is real time; above 1 its retry times are compressed that many times. */
  warp: number;
  /** The destination's current name; null once it is removed. */
  destinationName: string | null;
  /** The source the message came in on (or a delete notice was made for); null when unknown. */
  sourceName: string | null;
  /** The name of a page or screen call; null for other types. */
  name: string | null;
  /** The latest attempt at each URL tried so far, in the order they were first tried. */
  urls: UrlOutcome[];
  /** A test event: made from a sample in Hookbench, not from a call to the Tracking API. */
  test: boolean;
  /** How many tracking-plan violations its message has. */
  violations: number;
}

/** The latest attempt at one URL of a delivery: what a list row shows per URL. */
export interface UrlOutcome {
  url: string;
  round: number;
  state: 'in_flight' | 'done' | 'interrupted';
  httpStatus: number | null;
  /** Why it did not succeed; null for a success and while in flight. */
  failure: AttemptFailure | null;
  startedAt: string;
}

export interface AttemptTimingsView {
  /** Waiting for a free connection to the receiver; absent when the attempt went at once. */
  queuedMs?: number;
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
  /** The headers the engine gave the request, X-Signature included. */
  requestHeaders: Record<string, string>;
  /**
   * The headers as written on the wire for this attempt, in order, Host, Connection and
   * Content-Length included; null when no request was written (refused connection) and on attempts
   * recorded before they were kept.
   */
  sentHeaders: [string, string][] | null;
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
  /** The whole retry life: rounds sent, the next one, the planned ones, and where the window ends. */
  schedule: DeliverySchedule;
}

/** One round of a delivery's schedule. Times are real clock times (ISO 8601 UTC), compressed when warped. */
export interface ScheduleRound {
  round: number;
  at: string;
  /** sent and in_flight happened; next is due; planned is what the policy would do if every round failed. */
  state: 'sent' | 'in_flight' | 'next' | 'planned';
  /** For a sent round: "200", "500", "timeout", or several URLs' outcomes joined by " / ". */
  outcome: string | null;
  succeeded: boolean;
}

export interface DeliverySchedule {
  /** 1 is real time. */
  warp: number;
  /** The retry window on the schedule's own clock (e.g. 4 h), whatever the warp. */
  windowMs: number;
  /** The window's start (the first attempt) and end in real time; null before anything is due. */
  windowStart: string | null;
  windowEnd: string | null;
  rounds: ScheduleRound[];
  /** Planned rounds are at their latest: jitter may bring each earlier by up to half its wait. */
  plannedAreLatest: boolean;
  /** More planned rounds follow than are listed. */
  truncated: boolean;
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
  /** With more than one scheme: each scheme's own check (X-Signature first); the fields above are then the summary. */
  parts?: SchemeCheck[];
}

/** One scheme's part of a SignatureCheck. */
export interface SchemeCheck {
  scheme: 'x-signature' | 'standard-webhooks';
  /** The header carrying the signature. */
  header: string;
  state: SignatureCheck['state'];
  expected: string | null;
  sent: string | null;
  explanation: string;
}

/** What the signature doctor is asked: a delivery, and what its receiver computed or parsed. */
export interface DoctorInput {
  id: number;
  /** A signature the receiver computed, or the body it parsed and wrote out again. */
  pasted: string;
  /** How to read `pasted`; 'auto' reads text starting with `{` or `[` as a body. */
  as?: 'auto' | 'signature' | 'body';
}

/** One thing the doctor found, with examples at their JSON path where it has some. */
export interface DoctorFinding {
  code: string;
  title: string;
  detail: string;
  examples: { path: string; ours: string; theirs: string }[];
}

export interface DoctorReport {
  /** How the pasted text was read. */
  read: 'signature' | 'body';
  /** ok: it is what was sent; differs: the findings say how; unknown: nothing Hookbench tried explains it. */
  verdict: 'ok' | 'differs' | 'unknown';
  summary: string;
  findings: DoctorFinding[];
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

/** One call as it arrived: its headers and body, for the Inbound inspector. */
export interface InboundRequestDetail extends InboundRequest {
  /** Header names (lower case) and values as received; credentials masked. null for calls logged before headers were kept. */
  headers: Record<string, string> | null;
  /** The body as text (gzip inflated), or null when none was read (refused before its body, or logged before bodies were kept). */
  body: string | null;
  /** True when the body was cut to REQUEST_BODY_LIMITS (refused calls keep less than accepted ones). */
  bodyClipped: boolean;
  /** The body was removed by a deletion request that named someone in it; the call's line stays. */
  bodyRemoved: boolean;
}

/** How much of a call's body the log keeps, in characters. */
export const REQUEST_BODY_LIMITS = { accepted: 16 * 1024, refused: 1024 } as const;

/** Inbound's filters: all optional, combined with AND. */
export interface RequestFilter {
  /** accepted: the call was taken (its items may still have been dropped); refused: it was answered with an error. */
  status?: 'accepted' | 'refused';
  sourceId?: number;
  /** Substring of the path (/v1/batch, /v1/track…). */
  path?: string;
  /** Received at or after this time (ISO 8601). */
  from?: string;
  /** Received before this time (ISO 8601). */
  to?: string;
}
export interface RequestPage extends Page, RequestFilter {
  /** The oldest page first (still listed newest first within it): jump to the start of the log. */
  oldest?: boolean;
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
  /** Over the whole log, most affected first; or over its newest part when `countedFrom` is set. */
  counts: ViolationCount[];
  /**
   * Set when the log was too big to count in a moment: the counts cover the messages received
   * since this time (ISO), the newest ones.
   */
  countedFrom?: string;
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
export interface TestEventInput {
  /** The destination's name. */
  destination: string;
  /** One of the destination's URLs; absent: all of them, like real traffic. */
  url?: string;
  type: ComposeType;
}
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

export type ExportFormat = 'ndjson' | 'csv' | 'har';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['ndjson', 'csv', 'har'];
/** At most this many messages (or attempts, for HAR) per page of an export. */
export const MAX_EXPORT_PAGE = 1000;
/** messagesOf answers at most this many of a call's messages (an audience sync's one call may carry 50,000). */
export const MESSAGES_OF_LIMIT = 500;

/** One page of an export of the messages a filter matches, oldest first. */
export interface ExportInput {
  format: ExportFormat;
  /** The assertions API's message filter (type, event, userId, anonymousId, source, since, until, deliveryStatus, violations…); absent: the whole log. */
  filter?: MessageFilterInput;
  /** The previous page's `next`; absent for the first page. */
  after?: number;
  /** At most MAX_EXPORT_PAGE; MAX_EXPORT_PAGE when absent. */
  limit?: number;
}
export interface ExportPage {
  /**
   * This page's piece of the file: the first page opens it (CSV's header line, HAR's opening), the
   * last closes it (HAR). Joined in order, the pages are the file `GET /api/export` streams.
   */
  text: string;
  /** Messages (NDJSON, CSV) or attempts (HAR) in this page. */
  items: number;
  /** Pass as `after` for the next page; null once the file is complete. */
  next: number | null;
  /** On the first page of NDJSON and CSV: how many messages the filter matches now (for progress). */
  total?: number;
}

/** One batch of an import, sent through this engine's own Tracking API with a source's write key. */
export interface ImportBatchInput {
  writeKey: string;
  /** The messages, as a batch call carries them (at most 100; the file's parsing and batching are src-shared/import-file.ts). */
  messages: unknown[];
}
/** What the ingest did with the batch, in the words the CLI uses. */
export type ImportBatchResult =
  | { ok: true; requestId: number; accepted: number; invalid: number; duplicates: number; invalidReasons: string[] }
  | { ok: false; refusal: string };

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
  listRequests(page?: RequestPage): Promise<PageResult<InboundRequest>>;
  /** One call with its headers and body as received; null when no call has that id. */
  getRequest(id: number): Promise<InboundRequestDetail | null>;
  droppedItemsOf(requestId: number): Promise<DroppedItemView[]>;
  /**
   * The call's messages, oldest first, at most MESSAGES_OF_LIMIT of them: an audience sync of
   * 50,000 members is one call, and its request's `accepted` says how many there are.
   */
  messagesOf(requestId: number): Promise<InboundMessageView[]>;
  listSources(): Promise<Source[]>;
  /** Creates the source; refused when a source of that name has another write key (see rotateWriteKey). */
  saveSource(input: SourceInput): Promise<Source>;
  /** Replaces the write key of an existing source: calls with the old key are refused from then on. */
  rotateWriteKey(input: SourceInput): Promise<Source>;
  listDestinations(): Promise<Destination[]>;
  /** Creates or replaces, whole, the destination with that name. */
  saveDestination(input: DestinationInput): Promise<Destination>;
  /** Gives a destination a new name; its deliveries, which keep pointing at it, show the new name. */
  renameDestination(input: { from: string; to: string }): Promise<Destination>;
  getDeliverySettings(): Promise<DeliverySettings>;
  /** Replaces the settings: preset first, then explicit fields, over the defaults. */
  saveDeliverySettings(input: DeliverySettingsInput): Promise<DeliverySettings>;
  /**
   * Replays a delivery as a new delivery linked to it (replayOf): the same bytes, or `body` sent
   * exactly as given and signed anew; to the destination's URLs, or to `targetUrl` alone.
   */
  replayDelivery(input: ReplayInput): Promise<DeliveryDetail>;
  /** The signature doctor: how a receiver's signature or re-serialised body differs from what was sent. */
  diagnoseSignature(input: DoctorInput): Promise<DoctorReport>;
  /**
   * Sends a waiting (pending or retrying) delivery's next round now; the retry schedule after it
   * goes on as the policy says. Refused, naming the status, for a delivery that is not waiting.
   */
  retryNow(input: { id: number }): Promise<DeliveryDetail>;
  /**
   * Sends a sample call of `type` to the destination's URLs, or to `url` alone (one of its URLs),
   * mapped, signed and retried like real traffic and marked as a test. Returns the delivery's id.
   */
  sendTestEvent(input: TestEventInput): Promise<number>;
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
  /** With `catchingUp` while profiles still read a log kept before they followed each commit. */
  listProfiles(page?: { text?: string; limit?: number; after?: string }): Promise<ProfilePage>;
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
  /** One page of an export of the log or a filter of it (read page by page: never the whole log in one call). */
  exportMessages(input: ExportInput): Promise<ExportPage>;
  /** Sends one batch of an import through this engine's Tracking API, like `hookbench import`: the same checks, dedupe, tracking plan and delivery. */
  importBatch(input: ImportBatchInput): Promise<ImportBatchResult>;
  /** Replaces the tracking plan (null removes it); a schema the validator cannot use is refused by its field. */
  saveTrackingPlan(plan: TrackingPlanInput | null): Promise<TrackingPlanView>;
  /**
   * Where this engine listens for the Tracking API (null until it does) and where it keeps its data.
   * The renderer cannot guess the ingest address: in Electron the page's origin is not the ingest.
   */
  getEnvironment(): Promise<EngineEnvironment>;
  /** Whether the log can be written now, and if not, why and what to do (also sent live as `health`). */
  getHealth(): Promise<EngineHealth>;

  // Test receivers at /receivers/{name} (src-main/engine/receivers).
  listReceivers(): Promise<ReceiverView[]>;
  /** Creates or replaces, by name, a receiver and its script; a changed script starts over at its first step. */
  saveReceiver(input: ReceiverInput): Promise<ReceiverView>;
  /** Removes a receiver and the requests it got. */
  deleteReceiver(name: string): Promise<void>;
  /** Starts the receiver's script over: the next request gets the first step. */
  resetReceiver(name: string): Promise<ReceiverView>;
  /** The requests a receiver got, newest first. */
  listReceiverRequests(page: ReceiverRequestPage): Promise<PageResult<ReceiverRequestSummary>>;
  /** One request with its exact header lines and body; null when there is none with that id. */
  getReceiverRequest(id: number): Promise<ReceiverRequestDetail | null>;
}

export interface ReceiverRequestPage extends Page {
  receiver: string;
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
  /** A "Clear log" under way (it runs in short slices beside ingest), or null. */
  clearing: ClearProgress | null;
}

export interface ClearProgress {
  /** When it started (ms since the epoch, the engine's clock). */
  startedAt: number;
  /** Messages removed so far, and about how many there were to look at when it started. */
  removedMessages: number;
  aboutMessages: number;
  /** Done removing rows; tidying the search index, then giving the freed space back to the file system, of which this much is left. */
  releasing: boolean;
  freeBytesLeft: number;
}

export interface ClearLogResult {
  requests: number;
  messages: number;
  deliveries: number;
  attempts: number;
  droppedItems: number;
  /** Requests test receivers got. */
  receiverRequests: number;
  /** Deliveries still pending, in flight or retrying: kept with their messages. */
  keptActiveDeliveries: number;
}

export interface ReplayInput {
  id: number;
  /** An edited body: must be a JSON object; its bytes are sent as given. */
  body?: string;
  /** Send to this URL only (e.g. a local receiver) instead of the destination's entries. */
  targetUrl?: string;
  /** Refuse (naming the replay made before) when the delivery was already replayed: a bulk replay never replays twice unless asked. */
  unlessReplayed?: boolean;
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
  'getRequest',
  'droppedItemsOf',
  'messagesOf',
  'listSources',
  'saveSource',
  'rotateWriteKey',
  'listDestinations',
  'saveDestination',
  'renameDestination',
  'getDeliverySettings',
  'saveDeliverySettings',
  'replayDelivery',
  'diagnoseSignature',
  'retryNow',
  'sendTestEvent',
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
  'listReceivers',
  'saveReceiver',
  'deleteReceiver',
  'resetReceiver',
  'listReceiverRequests',
  'getReceiverRequest',
  'getTrackingPlan',
  'saveTrackingPlan',
  'exportMessages',
  'importBatch',
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
  | { type: 'config'; what: 'sources' | 'destinations' | 'delivery' | 'templates' | 'retention' | 'receivers' | 'trackingPlan' }
  /** Computations were saved, deleted or synced (also by their interval): refetch them. */
  | { type: 'computations'; ids: number[] }
  /** Deletion requests were created or changed status: refetch them. */
  | { type: 'deletions'; ids: number[] }
  /** Tracking API requests were logged (accepted or refused): the Inbound view refetches. */
  | { type: 'requests'; ids: number[] }
  /** Test receivers got or answered these requests; no ids: read them all again (some were removed). */
  | { type: 'receivers'; ids: number[] }
  /** The engine's storage health changed (degraded, its cause, or ok again). */
  | { type: 'health'; health: EngineHealth }
  /** The engine is stopping: the last event of the stream, which then ends. */
  | { type: 'stopped' };
