import { randomUUID } from 'node:crypto';
import { systemClock } from '../src-shared/clock.js';
import type { JsonObject } from '../src-shared/json.js';
import { TRACKING_LIMITS } from '../src-shared/limits.js';
import { AnalyticsClosedError, AnalyticsDeliveryError, AnalyticsValidationError, type DeliveryErrorCode } from './errors.js';
import type {
  AliasParams,
  AnalyticsEvents,
  AnalyticsOptions,
  AnalyticsStats,
  Attributes,
  ClientClock,
  ClientTimer,
  DropReason,
  DroppedMessage,
  GroupParams,
  IdentifyParams,
  MessageType,
  PageParams,
  ScreenParams,
  TrackParams,
} from './types.js';

export const LIBRARY_NAME = 'hookbench-client';
export const LIBRARY_VERSION = '0.1.0';
export const DEFAULT_ENDPOINT = 'http://127.0.0.1:4545';
/** Largest JSON of one message, in bytes (32 KB). */
export const MAX_MESSAGE_BYTES = TRACKING_LIMITS.maxMessageBytes;
/** Largest request body of one batch, in bytes (500 KB = 512,000 bytes), envelope included. */
export const MAX_BATCH_BYTES = TRACKING_LIMITS.maxBatchBytes;
/** Most messages in one batch request. */
export const MAX_BATCH_MESSAGES = TRACKING_LIMITS.maxBatchItems;
export const MAX_MESSAGE_ID_LENGTH = TRACKING_LIMITS.maxMessageIdLength;

const LIBRARY_CONTEXT_JSON = JSON.stringify({ library: { name: LIBRARY_NAME, version: LIBRARY_VERSION } });
const BODY_HEAD = '{"batch":[';
const BODY_MID = '],"sentAt":"';
const BODY_TAIL = `","context":${LIBRARY_CONTEXT_JSON}}`;
/** Body bytes of an empty batch (sentAt is always 24 characters: 2026-01-01T00:00:00.000Z). */
const ENVELOPE_BYTES = Buffer.byteLength(BODY_HEAD + BODY_MID + BODY_TAIL) + 24;

interface Batch {
  seq: number;
  /** The messages' JSON joined with commas: the inside of the `batch` array. */
  items: string;
  count: number;
  /** Bytes of `items`. */
  bytes: number;
  done: Promise<void>;
  settle: () => void;
}

type Attempt =
  | { ok: true; status: number }
  | {
      ok: false;
      code: DeliveryErrorCode;
      status?: number;
      retryable: boolean;
      reason: string;
      retryAfterMs?: number;
    };

type Listeners = { [K in keyof AnalyticsEvents]: AnalyticsEvents[K][] };

function intOption(value: number | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || Math.floor(value) !== value) {
    throw new AnalyticsValidationError('invalid_option', name, `analytics: option ${name} must be an integer ≥ ${min}, got ${String(value)}`);
  }
  return value;
}

function isPlainObject(value: unknown): value is Attributes {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** fetch() says only "fetch failed"; the cause (ECONNREFUSED, ENOTFOUND, …) is what a person needs. */
function networkReason(err: unknown): string {
  const e = err as Error & { cause?: Error & { code?: string } };
  const inner = e.cause instanceof Error ? e.cause : e;
  const code = (inner as { code?: string }).code;
  return code && !inner.message.includes(code) ? `${code}: ${inner.message}` : inner.message;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

export class Analytics {
  readonly writeKey: string;
  readonly endpoint: string;
  readonly flushAt: number;
  readonly flushAfter: number;
  readonly maxQueueSize: number;
  readonly maxRetries: number;
  readonly timeoutMs: number;

  private readonly origin: string;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly retryBaseMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly maxInFlight: number;
  private readonly clock: ClientClock;
  private readonly debugOn: boolean;
  private readonly listeners: Listeners = { error: [], drop: [] };

  private queueJson: string[] = [];
  private queueBytes: number[] = [];
  private flushTimer: ClientTimer | undefined;
  private ready: Batch[] = [];
  private readyHead = 0;
  private readonly active = new Set<Batch>();
  private inFlight = 0;
  private pendingCount = 0;
  private batchSeq = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private warnedDrop = false;
  private lastIsoMs = Number.NaN;
  private lastIso = '';
  private readonly counters = { sent: 0, failed: 0, dropped: 0, requests: 0 };

  constructor(options: AnalyticsOptions) {
    if (!isPlainObject(options)) {
      throw new AnalyticsValidationError('invalid_option', 'options', 'analytics: new Analytics({ writeKey }) needs an options object');
    }
    if (typeof options.writeKey !== 'string' || options.writeKey === '') {
      throw new AnalyticsValidationError('missing_field', 'writeKey', 'analytics: option writeKey is required (the write key of the source)');
    }
    this.writeKey = options.writeKey;
    const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new AnalyticsValidationError('invalid_option', 'endpoint', `analytics: option endpoint is not a URL: ${String(endpoint)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AnalyticsValidationError('invalid_option', 'endpoint', `analytics: option endpoint must be http(s), got ${url.protocol}`);
    }
    this.origin = url.origin;
    this.path = `${url.pathname.replace(/\/+$/, '')}/v1/batch`;
    this.endpoint = this.origin + this.path;
    this.flushAt = intOption(options.flushAt ?? options.size, options.flushAt === undefined && options.size !== undefined ? 'size' : 'flushAt', 20, 1);
    this.flushAfter = intOption(options.flushAfter, 'flushAfter', 5000, 0);
    this.maxQueueSize = intOption(options.maxQueueSize, 'maxQueueSize', 10000, 1);
    this.maxRetries = intOption(options.maxRetries, 'maxRetries', 10, 0);
    this.timeoutMs = intOption(options.timeoutMs, 'timeoutMs', 10000, 1);
    this.retryBaseMs = intOption(options.retryBaseMs, 'retryBaseMs', 200, 0);
    this.maxBackoffMs = intOption(options.maxBackoffMs, 'maxBackoffMs', 30000, 0);
    this.maxRetryAfterMs = intOption(options.maxRetryAfterMs, 'maxRetryAfterMs', 60000, 0);
    this.maxInFlight = intOption(options.maxInFlight, 'maxInFlight', 4, 1);
    this.clock = options.clock ?? systemClock;
    this.debugOn = options.debug ?? (process.env.DEBUG ?? '').includes('analytics');
    if (options.onError) this.listeners.error.push(options.onError);
    if (options.onDrop) this.listeners.drop.push(options.onDrop);
    this.headers = {
      authorization: `Basic ${Buffer.from(`${this.writeKey}:`).toString('base64')}`,
      'content-type': 'application/json',
      'user-agent': `${LIBRARY_NAME}/${LIBRARY_VERSION}`,
    };
    this.debug(`client ready: ${this.endpoint}, flushAt ${this.flushAt}, flushAfter ${this.flushAfter} ms, maxQueueSize ${this.maxQueueSize}`);
  }

  // ---------------------------------------------------------------- calls

  identify(params: IdentifyParams): void {
    const p = this.begin('identify', params);
    const ids = this.identity(p);
    this.enqueue('identify', {
      type: 'identify',
      userId: ids.userId,
      anonymousId: ids.anonymousId,
      traits: this.optionalObject(p, 'traits'),
      ...this.common(p),
    });
  }

  track(params: TrackParams): void {
    const p = this.begin('track', params);
    const ids = this.identity(p);
    this.enqueue('track', {
      type: 'track',
      event: this.requiredString(p, 'event'),
      userId: ids.userId,
      anonymousId: ids.anonymousId,
      properties: this.optionalObject(p, 'properties'),
      ...this.common(p),
    });
  }

  page(params: PageParams): void {
    const p = this.begin('page', params);
    const ids = this.identity(p);
    this.enqueue('page', {
      type: 'page',
      name: this.optionalString(p, 'name'),
      category: this.optionalString(p, 'category'),
      userId: ids.userId,
      anonymousId: ids.anonymousId,
      properties: this.optionalObject(p, 'properties'),
      traits: this.optionalObject(p, 'traits'),
      ...this.common(p),
    });
  }

  screen(params: ScreenParams): void {
    const p = this.begin('screen', params);
    const ids = this.identity(p);
    this.enqueue('screen', {
      type: 'screen',
      name: this.optionalString(p, 'name'),
      category: this.optionalString(p, 'category'),
      userId: ids.userId,
      anonymousId: ids.anonymousId,
      properties: this.optionalObject(p, 'properties'),
      ...this.common(p),
    });
  }

  group(params: GroupParams): void {
    const p = this.begin('group', params);
    const ids = this.identity(p);
    this.enqueue('group', {
      type: 'group',
      groupId: this.requiredString(p, 'groupId'),
      userId: ids.userId,
      anonymousId: ids.anonymousId,
      traits: this.optionalObject(p, 'traits'),
      ...this.common(p),
    });
  }

  alias(params: AliasParams): void {
    const p = this.begin('alias', params);
    this.enqueue('alias', {
      type: 'alias',
      previousId: this.requiredString(p, 'previousId'),
      userId: this.requiredString(p, 'userId'),
      ...this.common(p),
    });
  }

  // ---------------------------------------------------------------- lifecycle

  /** Sends everything queued so far; resolves once each of those messages was sent or given up. Never rejects. */
  async flush(): Promise<void> {
    this.drain('flush()');
    if (this.active.size === 0) return;
    const waits = Array.from(this.active, (b) => b.done);
    // Our timers are unref'd, so a backoff sleep alone would let the process exit under a pending
    // `await flush()` (Node then reports an unsettled top-level await). Someone is waiting: stay alive.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    try {
      await Promise.all(waits);
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** Flushes, then stops the timer. Later calls throw AnalyticsClosedError. Never rejects. */
  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.debug('closing');
      this.closing = (async () => {
        await this.flush();
        this.cancelFlushTimer();
        this.debug(`closed (sent ${this.counters.sent}, failed ${this.counters.failed}, dropped ${this.counters.dropped})`);
      })();
    }
    return this.closing;
  }

  on<K extends keyof AnalyticsEvents>(event: K, listener: AnalyticsEvents[K]): this {
    (this.listeners[event] as AnalyticsEvents[K][]).push(listener);
    return this;
  }

  off<K extends keyof AnalyticsEvents>(event: K, listener: AnalyticsEvents[K]): this {
    const list = this.listeners[event] as AnalyticsEvents[K][];
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
    return this;
  }

  stats(): AnalyticsStats {
    return { queued: this.queueJson.length, pending: this.pendingCount, ...this.counters };
  }

  // ---------------------------------------------------------------- validation

  private begin(call: MessageType, params: unknown): Attributes {
    if (this.closed) throw new AnalyticsClosedError(call);
    if (!isPlainObject(params)) {
      throw new AnalyticsValidationError('invalid_field', 'params', `analytics: ${call}() takes an object, got ${describe(params)}`);
    }
    return params;
  }

  private identity(p: Attributes): { userId: string | undefined; anonymousId: string | undefined } {
    const userId = this.optionalId(p, 'userId');
    const anonymousId = this.optionalId(p, 'anonymousId');
    if (userId === undefined && anonymousId === undefined) {
      throw new AnalyticsValidationError('missing_field', 'userId', 'analytics: userId or anonymousId is required');
    }
    return { userId, anonymousId };
  }

  private optionalId(p: Attributes, field: string): string | undefined {
    const v = p[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string') {
      throw new AnalyticsValidationError('invalid_field', field, `analytics: ${field} must be a string, got ${describe(v)}`);
    }
    return v === '' ? undefined : v;
  }

  private requiredString(p: Attributes, field: string): string {
    const v = p[field];
    if (v === undefined || v === null || v === '') {
      throw new AnalyticsValidationError('missing_field', field, `analytics: ${field} is required`);
    }
    if (typeof v !== 'string') {
      throw new AnalyticsValidationError('invalid_field', field, `analytics: ${field} must be a string, got ${describe(v)}`);
    }
    return v;
  }

  private optionalString(p: Attributes, field: string): string | undefined {
    const v = p[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') {
      throw new AnalyticsValidationError('invalid_field', field, `analytics: ${field} must be a string, got ${describe(v)}`);
    }
    return v;
  }

  private optionalObject(p: Attributes, field: string): Attributes | undefined {
    const v = p[field];
    if (v === undefined || v === null) return undefined;
    if (!isPlainObject(v)) {
      throw new AnalyticsValidationError('invalid_field', field, `analytics: ${field} must be an object, got ${describe(v)}`);
    }
    return v;
  }

  private common(p: Attributes): Attributes {
    let messageId = p.messageId;
    if (messageId === undefined || messageId === null) {
      messageId = randomUUID();
    } else if (typeof messageId !== 'string' || messageId === '' || messageId.length > MAX_MESSAGE_ID_LENGTH) {
      throw new AnalyticsValidationError(
        'invalid_field',
        'messageId',
        `analytics: messageId must be a non-empty string of at most ${MAX_MESSAGE_ID_LENGTH} characters`,
      );
    }
    return {
      context: this.optionalObject(p, 'context'),
      integrations: this.optionalObject(p, 'integrations'),
      timestamp: this.timestamp(p.timestamp),
      messageId,
    };
  }

  private timestamp(v: unknown): string {
    if (v === undefined || v === null) {
      const t = this.clock.now();
      if (t !== this.lastIsoMs) {
        this.lastIsoMs = t;
        this.lastIso = new Date(t).toISOString();
      }
      return this.lastIso;
    }
    if (v instanceof Date) {
      if (Number.isNaN(v.getTime())) {
        throw new AnalyticsValidationError('invalid_field', 'timestamp', 'analytics: timestamp is an invalid Date');
      }
      return v.toISOString();
    }
    if (typeof v === 'string' && v !== '' && !Number.isNaN(Date.parse(v))) return v;
    throw new AnalyticsValidationError('invalid_field', 'timestamp', `analytics: timestamp must be an ISO 8601 string or a Date, got ${JSON.stringify(v) ?? describe(v)}`);
  }

  // ---------------------------------------------------------------- queue

  private enqueue(call: MessageType, message: Attributes): void {
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (err) {
      throw new AnalyticsValidationError('invalid_json', 'message', `analytics: ${call}() message cannot be serialized to JSON: ${(err as Error).message}`);
    }
    const bytes = Buffer.byteLength(json);
    if (bytes > MAX_MESSAGE_BYTES) {
      throw new AnalyticsValidationError(
        'message_too_large',
        'message',
        `analytics: ${call}() message is ${bytes} bytes of JSON, over the 32 KB limit (${MAX_MESSAGE_BYTES} bytes); not queued`,
        MAX_MESSAGE_BYTES,
      );
    }
    if (this.queueJson.length + this.pendingCount >= this.maxQueueSize) {
      this.drop(json);
      return;
    }
    this.queueJson.push(json);
    this.queueBytes.push(bytes);
    if (this.debugOn) this.debug(`queued ${call} ${message.messageId as string} (${bytes} bytes, queue ${this.queueJson.length})`);
    if (this.queueJson.length >= this.flushAt) {
      this.drain(`flushAt ${this.flushAt} reached`);
    } else if (this.flushTimer === undefined) {
      this.flushTimer = this.clock.setTimer(this.onFlushTimer, this.flushAfter);
    }
  }

  private readonly onFlushTimer = (): void => {
    this.flushTimer = undefined;
    this.drain(`flushAfter ${this.flushAfter} ms passed`);
  };

  private cancelFlushTimer(): void {
    if (this.flushTimer !== undefined) {
      this.flushTimer.cancel();
      this.flushTimer = undefined;
    }
  }

  private drop(json: string): void {
    this.counters.dropped++;
    const detail = `queue full: ${this.maxQueueSize} messages waiting (maxQueueSize); the new message was dropped`;
    const drop: DroppedMessage = { reason: 'queue_full', detail, message: JSON.parse(json) as JsonObject };
    this.debug(`dropped ${String(drop.message.type)} ${String(drop.message.messageId)}: ${detail}`);
    this.reportDrop(drop);
  }

  /** Moves the whole queue into batches that respect the request limits, and starts sending them. */
  private drain(why: string): void {
    this.cancelFlushTimer();
    const json = this.queueJson;
    const sizes = this.queueBytes;
    const n = json.length;
    if (n === 0) return;
    this.queueJson = [];
    this.queueBytes = [];
    let start = 0;
    while (start < n) {
      let end = start;
      let body = ENVELOPE_BYTES;
      while (end < n && end - start < MAX_BATCH_MESSAGES) {
        const add = (sizes[end] as number) + (end > start ? 1 : 0);
        if (body + add > MAX_BATCH_BYTES) break;
        body += add;
        end++;
      }
      const items = start === 0 && end === n ? json.join(',') : json.slice(start, end).join(',');
      let settle: () => void = () => undefined;
      const done = new Promise<void>((resolve) => {
        settle = resolve;
      });
      const batch: Batch = { seq: ++this.batchSeq, items, count: end - start, bytes: body - ENVELOPE_BYTES, done, settle };
      this.pendingCount += batch.count;
      this.active.add(batch);
      this.ready.push(batch);
      if (this.debugOn) this.debug(`flushing batch #${batch.seq}: ${batch.count} messages, ${body} bytes (${why})`);
      start = end;
    }
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.readyHead < this.ready.length) {
      const batch = this.ready[this.readyHead] as Batch;
      this.readyHead++;
      this.inFlight++;
      this.deliver(batch)
        .catch((err: unknown) => this.debug(`internal error delivering batch #${batch.seq}: ${String(err)}`))
        .finally(() => {
          this.inFlight--;
          this.pendingCount -= batch.count;
          this.active.delete(batch);
          batch.settle();
          this.pump();
        });
    }
    if (this.readyHead === this.ready.length) {
      this.ready = [];
      this.readyHead = 0;
    } else if (this.readyHead > 1024) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  // ---------------------------------------------------------------- wire

  private async deliver(batch: Batch): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.attempt(batch);
      if (result.ok) {
        this.counters.sent += batch.count;
        this.debug(`sent batch #${batch.seq}: ${batch.count} messages, HTTP ${result.status}, attempt ${attempt}`);
        return;
      }
      if (!result.retryable || attempt > this.maxRetries) {
        this.counters.failed += batch.count;
        this.debug(`gave up batch #${batch.seq} after ${attempt} attempts: ${result.reason}`);
        this.reportFailure(batch, attempt, result);
        return;
      }
      const delay = result.retryAfterMs ?? this.backoff(attempt);
      this.debug(
        `retrying batch #${batch.seq} in ${delay} ms (attempt ${attempt + 1} of ${this.maxRetries + 1}): ${result.reason}` +
          (result.retryAfterMs !== undefined ? ' (Retry-After)' : ''),
      );
      await new Promise<void>((resolve) => {
        this.clock.setTimer(resolve, delay);
      });
    }
  }

  /** Exponential backoff with jitter: a random delay in [d/2, d], d = base · 2^(attempt−1), at most maxBackoffMs. */
  private backoff(attempt: number): number {
    const d = Math.min(this.maxBackoffMs, this.retryBaseMs * 2 ** (attempt - 1));
    return Math.round(d / 2 + (Math.random() * d) / 2);
  }

  private retryAfter(raw: string | null): number | undefined {
    if (raw === null || raw.trim() === '') return undefined;
    let ms: number;
    if (/^\s*\d+(\.\d+)?\s*$/.test(raw)) {
      ms = Number(raw) * 1000;
    } else {
      const at = Date.parse(raw);
      if (Number.isNaN(at)) return undefined;
      ms = at - this.clock.now();
    }
    return Math.round(Math.min(this.maxRetryAfterMs, Math.max(0, ms)));
  }

  private async attempt(batch: Batch): Promise<Attempt> {
    const sentAt = new Date(this.clock.now()).toISOString();
    const body = BODY_HEAD + batch.items + BODY_MID + sentAt + BODY_TAIL;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`request timed out after ${this.timeoutMs} ms`));
    }, this.timeoutMs);
    timer.unref();
    this.counters.requests++;
    try {
      const res = await fetch(this.endpoint, { method: 'POST', headers: this.headers, body, signal: controller.signal });
      const status = res.status;
      if (status >= 200 && status < 300) {
        const answer = await res.text();
        // Hookbench answers an unknown write key 200 (as Segment does, so other SDKs do not retry)
        // with success false: this client reports that as the refusal it is.
        if (refusedDespite2xx(answer)) {
          return { ok: false, code: 'http_status', status, retryable: false, reason: `HTTP ${status}: ${answer.slice(0, 500)}` };
        }
        return { ok: true, status };
      }
      let text = '';
      try {
        text = (await res.text()).slice(0, 500);
      } catch {
        // the status says enough
      }
      const retryable = status >= 500 || status === 429 || status === 408;
      const retryAfterMs = retryable ? this.retryAfter(res.headers.get('retry-after')) : undefined;
      return {
        ok: false,
        code: 'http_status',
        status,
        retryable,
        reason: `HTTP ${status}${text ? `: ${text}` : ''}`,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    } catch (err) {
      if (timedOut) {
        return { ok: false, code: 'timeout', retryable: true, reason: `timeout: no answer within ${this.timeoutMs} ms` };
      }
      return { ok: false, code: 'network_error', retryable: true, reason: networkReason(err) };
    } finally {
      clearTimeout(timer);
    }
  }

  // ---------------------------------------------------------------- reporting

  /** A given-up batch is lost: one `error` for the batch, then one `drop` for each message in it. */
  private reportFailure(batch: Batch, attempts: number, result: Extract<Attempt, { ok: false }>): void {
    const messages = JSON.parse(`[${batch.items}]`) as JsonObject[];
    const error = new AnalyticsDeliveryError({
      code: result.code,
      ...(result.status !== undefined ? { status: result.status } : {}),
      attempts,
      retryable: result.retryable,
      reason: result.reason,
      batch: { messages, bytes: batch.bytes },
    });
    if (this.listeners.error.length === 0) {
      process.stderr.write(`${error.message} (listen to 'error' or pass onError to handle this)\n`);
    } else {
      this.emit('error', error);
    }
    const reason: DropReason = result.retryable ? 'retries_exhausted' : 'refused';
    const detail = result.retryable
      ? `batch #${batch.seq} given up after ${attempts} attempts (maxRetries ${this.maxRetries}): ${result.reason}`
      : `batch #${batch.seq} refused by the ingest, not retried: ${result.reason}`;
    // The error above already said so on stderr when nobody listens: no second warning for the drops.
    for (const message of messages) this.reportDrop({ reason, detail, message, error }, false);
  }

  private reportDrop(drop: DroppedMessage, warn = true): void {
    if (this.listeners.drop.length === 0) {
      if (warn && !this.warnedDrop) {
        this.warnedDrop = true;
        process.stderr.write(`analytics: ${drop.detail} (further drops are counted in stats(); listen to 'drop' to see them)\n`);
      }
      return;
    }
    this.emit('drop', drop);
  }

  private emit<K extends keyof AnalyticsEvents>(event: K, arg: Parameters<AnalyticsEvents[K]>[0]): void {
    for (const listener of [...this.listeners[event]]) {
      try {
        (listener as (a: typeof arg) => void)(arg);
      } catch (err) {
        process.stderr.write(`analytics: an '${event}' listener threw: ${String(err)}\n`);
      }
    }
  }

  private debug(line: string): void {
    if (this.debugOn) process.stderr.write(`analytics ${new Date().toISOString()} ${line}\n`);
  }
}

/** A 2xx whose JSON body says `"success": false`: refused, not taken. */
function refusedDespite2xx(text: string): boolean {
  if (!text.includes('"success"')) return false;
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null && (body as { success?: unknown }).success === false;
  } catch {
    return false;
  }
}
