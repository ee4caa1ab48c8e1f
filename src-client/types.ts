import type { Clock, ClockTimer } from '../src-shared/clock.js';
import type { JsonObject } from '../src-shared/json.js';
import type { AnalyticsDeliveryError } from './errors.js';

/** Free-form key/value data (traits, properties, context). Serialized with JSON.stringify. */
export type Attributes = { [key: string]: unknown };

/** Per-destination switches: destination name (case-sensitive) → on/off (or settings); `All: false` turns off the rest. */
export type Integrations = { [destination: string]: boolean | Attributes };

/** Every call needs `userId` or `anonymousId` (or both). */
export type Identity =
  | { userId: string; anonymousId?: string }
  | { userId?: string; anonymousId: string };

export interface CommonFields {
  /** Extra context of the call (ip, locale, …); not attributes of the user. Kept as given. */
  context?: Attributes;
  integrations?: Integrations;
  /** When the call happened, for historical import. ISO 8601 string or Date. Defaults to now. */
  timestamp?: string | Date;
  /** Idempotency key (≤ 100 characters). Generated with crypto.randomUUID() when omitted. */
  messageId?: string;
}

export type IdentifyParams = Identity & CommonFields & { traits?: Attributes };
export type TrackParams = Identity & CommonFields & { event: string; properties?: Attributes };
export type PageParams = Identity &
  CommonFields & {
    name?: string;
    category?: string;
    /** Page properties: url, title, referrer, path are recognized; others allowed. */
    properties?: Attributes;
    traits?: Attributes;
  };
export type ScreenParams = Identity &
  CommonFields & { name?: string; category?: string; properties?: Attributes };
export type GroupParams = Identity & CommonFields & { groupId: string; traits?: Attributes };
export type AliasParams = CommonFields & { userId: string; previousId: string };

export type { MessageType } from '../src-shared/events.js';

/** The clock the engine uses too (src-shared/clock.ts): tests pass a ManualClock. */
export type ClientTimer = ClockTimer;
export type ClientClock = Clock;

/** A batch as it was (or would have been) sent. */
export interface DeliveryBatch {
  /** The messages of the batch, as sent (with messageId and timestamp). */
  messages: JsonObject[];
  /** Bytes of the messages' JSON (the request body is a little larger). */
  bytes: number;
}

/**
 * Why a message will never reach the ingest: the queue was full when it was called
 * (`queue_full`), or its batch was given up: refused with a status that is not retried, such as a
 * 400, or a 2xx whose body says `"success": false` as Hookbench answers an unknown write key
 * (`refused`), or still failing after maxRetries (`retries_exhausted`).
 */
export type DropReason = 'queue_full' | 'refused' | 'retries_exhausted';

export interface DroppedMessage {
  reason: DropReason;
  /** Human readable explanation naming the limit or the ingest's answer. */
  detail: string;
  message: JsonObject;
  /** For a given-up batch: the error reported for the whole batch. */
  error?: AnalyticsDeliveryError;
}

export interface AnalyticsOptions {
  /** Write key of the source; sent as the Basic auth user name with an empty password. */
  writeKey: string;
  /** Base URL of the ingest. Default `http://127.0.0.1:4545` (Hookbench's local ingest). Requests go to `{endpoint}/v1/batch`. */
  endpoint?: string;
  /** Queue length that triggers a background flush. Default 20. 1 disables batching. */
  flushAt?: number;
  /** Alias of flushAt (the name used by analytics-go v2). flushAt wins when both are given. */
  size?: number;
  /** A queued message waits at most this many ms before a background flush. Default 5000. */
  flushAfter?: number;
  /** Messages held (queued plus in unfinished batches) before new calls are dropped. Default 10000. */
  maxQueueSize?: number;
  /** Retries of a failing batch after the first attempt. Default 10. */
  maxRetries?: number;
  /** Per-request timeout in ms. Default 10000. */
  timeoutMs?: number;
  /** First backoff delay in ms (doubles per retry, with jitter). Default 200. */
  retryBaseMs?: number;
  /** Ceiling of one backoff delay, in ms. Default 30000. */
  maxBackoffMs?: number;
  /** Ceiling of an honoured Retry-After, in ms. Default 60000. */
  maxRetryAfterMs?: number;
  /** Batch requests in flight at once. Default 4. */
  maxInFlight?: number;
  /** Time source for the flushAfter timer, timestamps and backoff sleeps. Default: the system clock (unref'd timers). */
  clock?: ClientClock;
  /** Called once when a batch is given up (a 4xx that is not retried, or retries exhausted). */
  onError?: (error: AnalyticsDeliveryError) => void;
  /** Called for every message that is lost: dropped because the queue is full, or in a given-up batch. */
  onDrop?: (drop: DroppedMessage) => void;
  /** Log what the client does to stderr. Default: env DEBUG contains `analytics`. */
  debug?: boolean;
}

export interface AnalyticsStats {
  /** Messages waiting in the queue (not yet in a batch). */
  queued: number;
  /** Messages in batches not yet sent or given up. */
  pending: number;
  sent: number;
  /** Messages in given-up batches (each also reported as a `drop`). */
  failed: number;
  /** Messages dropped because the queue was full. */
  dropped: number;
  requests: number;
}

export interface AnalyticsEvents {
  error: (error: AnalyticsDeliveryError) => void;
  drop: (drop: DroppedMessage) => void;
}
