import type { IncomingMessage, ServerResponse } from 'node:http';
import { INGEST_LIMITS, type MessageType } from '../../../src-shared/events';
import { isJsonObject, type JsonObject } from '../../../src-shared/json';
import type { Clock } from '../clock';
import type { CompiledPlan } from '../tracking-plan/check';
import type { AcceptedItem, DroppedItem, LogStore, RequestRecord } from '../store/log-store';
import type { StorageFault } from '../store/storage-fault';
import type { BodyPacker } from '../store/body-packer';
import { clipBody, echo } from '../store/refused-log';
import { REQUEST_BODY_LIMITS } from '../../../src-shared/api';
import { headersText } from './raw-request';
import { IngestError } from './errors';
import { webhooksEnabled } from './integrations';
import { webhookBodyOf } from '../delivery/payloads';
import { jsonTypeOf, quoted } from './describe';
import { deepestField, MAX_MESSAGE_NESTING, textNesting, valueNesting } from './nesting';
import { mayHoldLoneSurrogates, REVIVED_NESTING_AT_MOST, wellFormedReviver } from './well-formed';
import { checkMessageIdLength, envelopeOf, normalizeItem, type Envelope } from './normalize';
import { readBody } from './read-body';
import { toIso } from './timestamps';
import { writeKeyFrom } from './write-key';
import { BATCH_PATHS, SINGLE_CALL_PATHS } from '../../../src-shared/tracking-paths';
import { AS_RECORDED_HEADER, AS_RECORDED_VALUE, INGEST_RESULT_HEADER, ingestResultHeader } from '../../../src-shared/import-file';

/**
 * An unknown write key is answered 200, as Segment answers it, with a body that says it was
 * refused: SDKs treat any other status as a reason to retry or to block (analytics-go v2 retries a
 * 401 for 43 s inside Close()), while the log and the UI show the call as refused.
 */
export const UNKNOWN_WRITE_KEY_STATUS = 200;

export interface IngestRouting {
  sourceByWriteKey(writeKey: string): { id: number } | undefined;
  /** Enabled Webhooks destinations attached to the source. */
  destinationsOf(sourceId: number): number[];
}

export interface IngestDeps {
  log: LogStore;
  routing: IngestRouting;
  clock: Clock;
  /** Runs a write in a transaction shared with concurrent requests; settles after the commit. Weight: the messages it carries. */
  commit<T>(write: () => T, weight?: number): Promise<T>;
  /** Called after each commit that created deliveries, so the scheduler wakes without polling. */
  onCommitted(result: { accepted: number; deliveries: number }): void;
  /** Called once per logged request, accepted or refused (the Inbound view's live feed). */
  onRequest?(requestId: number): void;
  /** The engine's storage health: consulted before each write, told of each fault and each commit. */
  storage?: IngestStorage;
  /** The tracking plan in force, compiled; null or absent when there is none. */
  plan?: () => CompiledPlan | null;
  /** Packs a request's delivery bodies off the engine's thread before its commit; absent, the commit packs them. */
  packer?: BodyPacker;
}

/** A storage fault, or the engine's current problem (its code as plain text, as on the wire). */
type Problem = Pick<StorageFault, 'message' | 'advice' | 'retryable'> & { code: string };

export interface IngestStorage {
  /** False while the log cannot take writes: the call is answered 503 at once. */
  writable(): boolean;
  current(): { problem: Problem | null };
  /** Classifies a failed write; null when it was no storage fault. */
  fault(err: unknown): Problem | null;
  succeeded(): void;
}

/** Seconds an SDK waits before sending again while the log cannot be written. */
export const STORAGE_RETRY_AFTER_S = 5;
/** A damaged file needs the user: SDKs keep their queue and try again less often. */
export const CORRUPT_RETRY_AFTER_S = 60;

function storageUnavailable(problem: Problem): IngestError {
  return new IngestError(
    503,
    problem.code,
    `Hookbench cannot store calls right now and kept nothing of this one: ${problem.message}; ${problem.advice}` +
      (problem.retryable ? '. It takes calls again by itself once that is done: send this one again' : ''),
    { 'retry-after': String(problem.retryable ? STORAGE_RETRY_AFTER_S : CORRUPT_RETRY_AFTER_S) },
  );
}

/** The Tracking API's path for a request URL, or null when it is not one: `//v1/batch` counts. */
export function ingestPath(url: string): string | null {
  const path = url.split('?')[0]?.replace(/^\/+/, '/').replace(/\/+$/, '') ?? '';
  return BATCH_PATHS.has(path) || path in SINGLE_CALL_PATHS ? path : null;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const OK_BODY = '{"success":true}';

/** The HTTP Tracking API: acknowledges with 200 {"success":true} only after SQLite has committed. */
export function createIngestHandler(deps: IngestDeps): (req: IncomingMessage, res: ServerResponse, path: string) => void {
  // Requests read and not yet committed (or refused): how far the engine is behind.
  const inFlight = { count: 0 };
  return (req, res, path) => {
    const receivedAt = deps.clock.now();
    const record: RequestRecord = {
      sourceId: null,
      path,
      receivedAt,
      httpStatus: 200,
      bytes: 0,
      userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
      headers: headersText(req.headers),
    };
    const refuse = (err: IngestError): void => {
      // Answered already (a listener failed after the 200): nothing more can be said to this client.
      if (res.headersSent) return;
      record.httpStatus = err.status;
      record.errorCode = err.code;
      record.errorText = err.message;
      // A refusal is logged when the log can take it; a failure to log it never stops the answer.
      if (err.status !== 503 && (deps.storage?.writable() ?? true)) {
        try {
          deps.onRequest?.(deps.log.recordRefused(record));
        } catch (logErr) {
          if (!deps.storage?.fault(logErr)) {
            process.stderr.write(`hookbench: could not log a refused call: ${logErr instanceof Error ? logErr.message : String(logErr)}\n`);
          }
        }
      }
      send(res, err.status, err.toBody(), err.headers);
    };
    if (req.method !== 'POST') {
      refuse(new IngestError(405, 'method_not_allowed', `${req.method ?? 'this method'} is not allowed; the Tracking API takes POST`));
      return;
    }
    const forcedType = SINGLE_CALL_PATHS[path];
    const limit = forcedType ? INGEST_LIMITS.maxMessageBytes : INGEST_LIMITS.maxBatchBytes;
    const limitName = forcedType ? 'one message' : 'one batch request';
    readBody(req, limit, limitName)
      .then((body) => {
        record.bytes = body.length;
        const kept = clipBody(body.toString('utf8'), REQUEST_BODY_LIMITS.accepted);
        record.body = kept.body;
        record.bodyClipped = kept.clipped;
        inFlight.count++;
        return accept(deps, inFlight, req, body, record, forcedType).finally(() => inFlight.count--);
      })
      .then((committed) => {
        deps.storage?.succeeded();
        // What became of each item, for an importer: the body stays Segment's own.
        send(res, 200, OK_BODY, { [INGEST_RESULT_HEADER]: ingestResultHeader(committed) });
        if (committed.deliveries > 0) deps.onCommitted(committed);
        deps.onRequest?.(committed.requestId);
      })
      .catch((err: unknown) => {
        if (err instanceof IngestError) return refuse(err);
        const fault = deps.storage?.fault(err);
        if (fault) return refuse(storageUnavailable(fault));
        refuse(new IngestError(500, 'internal_error', `Hookbench could not store this request: ${String(err)}`));
      });
  };
}

async function accept(
  deps: IngestDeps,
  inFlight: { count: number },
  req: IncomingMessage,
  body: Buffer,
  record: RequestRecord,
  forcedType: MessageType | undefined,
): Promise<{ requestId: number; accepted: number; invalid: number; duplicates: number; deliveries: number }> {
  let parsed: unknown;
  try {
    const text = body.toString('utf8');
    // A lone surrogate becomes U+FFFD, as Segment's servers read it (ingest/well-formed.ts).
    const revive = mayHoldLoneSurrogates(text) && textNesting(body) <= REVIVED_NESTING_AT_MOST;
    parsed = revive ? JSON.parse(text, wellFormedReviver) : JSON.parse(text);
  } catch (err) {
    throw new IngestError(400, 'invalid_json', `the body is not valid JSON: ${(err as Error).message}`);
  }
  if (!isJsonObject(parsed)) throw new IngestError(400, 'invalid_body', 'the body must be a JSON object');
  const writeKey = writeKeyFrom(req.headers, parsed);
  if (writeKey === null) {
    throw new IngestError(400, 'missing_write_key', 'no write key: send it as the Basic auth user name or as "writeKey" in the body');
  }
  const source = deps.routing.sourceByWriteKey(writeKey);
  if (!source) {
    throw new IngestError(
      UNKNOWN_WRITE_KEY_STATUS,
      'unknown_write_key',
      `write key "${echo(writeKey)}" belongs to no source, so nothing was stored; create a source with this key in Configure or check the key (answered 200, as Segment does, so that SDKs do not retry)`,
    );
  }
  record.sourceId = source.id;

  let rawItems: unknown[];
  if (forcedType) {
    rawItems = [parsed];
  } else {
    if (!Array.isArray(parsed.batch)) {
      const got = parsed.batch === undefined ? 'it is missing' : `got ${jsonTypeOf(parsed.batch)}`;
      throw new IngestError(400, 'invalid_batch', `"batch" must be an array of messages; ${got}`);
    }
    rawItems = parsed.batch;
  }
  if (rawItems.length > INGEST_LIMITS.maxBatchItems) {
    throw new IngestError(400, 'batch_too_large', `batch has ${rawItems.length} messages; the limit is ${INGEST_LIMITS.maxBatchItems}`);
  }
  // First of all: from here on values get serialized (a bad envelope is described, items are stored).
  checkNesting(body, parsed, rawItems, forcedType !== undefined);
  checkItemLimits(rawItems, body.length);
  const receivedAtIso = toIso(record.receivedAt);
  const envelope: Envelope = forcedType ? { context: {}, integrations: {}, sentAt: undefined, receivedAtIso } : envelopeOf(parsed, receivedAtIso);
  if (req.headers[AS_RECORDED_HEADER] === AS_RECORDED_VALUE) envelope.asRecorded = true;

  const ip = req.socket.remoteAddress;
  const destinations = deps.routing.destinationsOf(source.id);
  const plan = deps.plan?.() ?? null;
  const items: AcceptedItem[] = [];
  const dropped: DroppedItem[] = [];
  rawItems.forEach((raw, index) => {
    const result = normalizeItem(raw, envelope, record.receivedAt, forcedType, ip, forcedType ? '' : `batch[${index}]`);
    if (!result.ok) {
      dropped.push({ index, kind: 'invalid', reason: result.reason, raw: JSON.stringify(stripWriteKey(raw)) ?? 'null' });
      return;
    }
    const violations = plan?.check(result.message) ?? [];
    // A held message is kept in the log with its violations and sent nowhere.
    const held = plan !== null && plan.hold && violations.length > 0;
    const routed = !held && destinations.length > 0 && webhooksEnabled(result.message.integrations) ? destinations : [];
    items.push({
      index,
      raw: stripWriteKey(raw),
      message: result.message,
      json: JSON.stringify(result.message),
      destinationIds: routed,
      body: routed.length > 0 ? webhookBodyOf(result.message) : null,
      warnings: result.warnings,
      violations,
    });
  });
  // Judged first (a bad call is a 4xx whatever the disk), then refused at once while the log cannot take it.
  const problem = deps.storage?.writable() === false ? deps.storage.current().problem : null;
  if (problem) throw storageUnavailable(problem);
  if (deps.packer) await packBodies(deps.packer, items, inFlight.count);
  const committed = await deps.commit(() => deps.log.commitRequest(record, source.id, items, dropped, INGEST_LIMITS.dedupeWindowMs), items.length + dropped.length);
  return { ...committed, invalid: dropped.length };
}

/** Each routed item's body packed by the packing thread, when it takes the request. */
async function packBodies(packer: BodyPacker, items: AcceptedItem[], requestsInFlight: number): Promise<void> {
  const routed = items.filter((i): i is AcceptedItem & { body: Uint8Array } => i.body != null && i.destinationIds.length > 0);
  const packed = await packer.pack(
    routed.map((i) => ({ body: i.body, json: i.json })),
    requestsInFlight,
  );
  if (packed !== null) routed.forEach((item, k) => (item.packedBody = packed[k]));
}

/**
 * Nesting beyond the limit refuses the whole request (400), naming the item: stored and forwarded
 * messages are serialized recursively, so one nested thousands of levels deep cannot be kept. The
 * byte scan settles every ordinary body; only a deep one is walked, to find the item.
 */
function checkNesting(body: Buffer, parsed: JsonObject, items: unknown[], single: boolean): void {
  if (textNesting(body) <= MAX_MESSAGE_NESTING) return;
  const tooDeep = (what: string, depth: number, under: string | null): IngestError =>
    new IngestError(
      400,
      'message_too_deep',
      `${what} is nested ${depth} levels deep${under === null ? '' : ` (deepest under ${quoted(under)})`}; the limit is ${MAX_MESSAGE_NESTING} levels`,
    );
  if (single) {
    const depth = valueNesting(parsed);
    if (depth > MAX_MESSAGE_NESTING) throw tooDeep('the message', depth, deepestField(parsed));
    return;
  }
  items.forEach((raw, index) => {
    const depth = valueNesting(raw);
    if (depth > MAX_MESSAGE_NESTING) throw tooDeep(`batch[${index}]`, depth, deepestField(raw));
  });
  // The batch's context and integrations become part of every message, one level down.
  for (const field of ['context', 'integrations'] as const) {
    const depth = valueNesting(parsed[field]) + 1;
    if (depth > MAX_MESSAGE_NESTING) throw tooDeep(`the batch's ${field} (inside each message)`, depth, deepestField(parsed[field]));
  }
}

/** Size limits refuse the whole request (400) and name the offending item's index. */
function checkItemLimits(items: unknown[], bodyBytes: number): void {
  items.forEach((raw, index) => {
    const idProblem = checkMessageIdLength(raw);
    if (idProblem) throw new IngestError(400, 'message_id_too_long', `batch[${index}]: ${idProblem}`);
  });
  // No item can exceed the per-message limit when the whole body is within it: skip the re-serialization.
  if (bodyBytes <= INGEST_LIMITS.maxMessageBytes) return;
  items.forEach((raw, index) => {
    const size = Buffer.byteLength(JSON.stringify(raw) ?? '');
    if (size > INGEST_LIMITS.maxMessageBytes) {
      throw new IngestError(
        400,
        'message_too_large',
        `batch[${index}] is ${size} bytes of JSON; the limit for one message is ${INGEST_LIMITS.maxMessageBytes} bytes (32 KB)`,
      );
    }
  });
}

function stripWriteKey(raw: unknown): unknown {
  if (!isJsonObject(raw) || !('writeKey' in raw)) return raw;
  const copy: JsonObject = { ...raw };
  delete copy.writeKey;
  return copy;
}
