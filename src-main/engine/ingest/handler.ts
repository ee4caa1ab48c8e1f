import type { IncomingMessage, ServerResponse } from 'node:http';
import { INGEST_LIMITS, type MessageType } from '../../../src-shared/events';
import { isJsonObject, type JsonObject } from '../../../src-shared/json';
import type { Clock } from '../clock';
import type { AcceptedItem, DroppedItem, LogStore, RequestRecord } from '../store/log-store';
import { echo } from '../store/refused-log';
import { IngestError } from './errors';
import { webhooksEnabled } from './integrations';
import { checkMessageIdLength, normalizeItem, type Envelope } from './normalize';
import { readBody } from './read-body';
import { toIso } from './timestamps';
import { writeKeyFrom } from './write-key';

const SINGLE_CALL_PATHS: Record<string, MessageType> = {
  '/v1/identify': 'identify',
  '/v1/track': 'track',
  '/v1/page': 'page',
  '/v1/screen': 'screen',
  '/v1/group': 'group',
  '/v1/alias': 'alias',
};
const BATCH_PATHS = new Set(['/v1/batch', '/v1/import']);

export interface IngestRouting {
  sourceByWriteKey(writeKey: string): { id: number } | undefined;
  /** Enabled Webhooks destinations attached to the source. */
  destinationsOf(sourceId: number): number[];
}

export interface IngestDeps {
  log: LogStore;
  routing: IngestRouting;
  clock: Clock;
  /** Runs a write in a transaction shared with concurrent requests; settles after the commit. */
  commit<T>(write: () => T): Promise<T>;
  /** Called after each commit that created deliveries, so the scheduler wakes without polling. */
  onCommitted(result: { accepted: number; deliveries: number }): void;
  /** Called once per logged request, accepted or refused (the Inbound view's live feed). */
  onRequest?(requestId: number): void;
}

/** The Tracking API's path for a request URL, or null when it is not one: `//v1/batch` counts. */
export function ingestPath(url: string): string | null {
  const path = url.split('?')[0]?.replace(/^\/+/, '/').replace(/\/+$/, '') ?? '';
  return BATCH_PATHS.has(path) || path in SINGLE_CALL_PATHS ? path : null;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const OK_BODY = '{"success":true}';

/** The HTTP Tracking API: acknowledges with 200 {"success":true} only after SQLite has committed. */
export function createIngestHandler(deps: IngestDeps): (req: IncomingMessage, res: ServerResponse, path: string) => void {
  return (req, res, path) => {
    const receivedAt = deps.clock.now();
    const record: RequestRecord = {
      sourceId: null,
      path,
      receivedAt,
      httpStatus: 200,
      bytes: 0,
      userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
    };
    const refuse = (err: IngestError): void => {
      record.httpStatus = err.status;
      record.errorCode = err.code;
      record.errorText = err.message;
      try {
        deps.onRequest?.(deps.log.recordRefused(record));
      } finally {
        send(res, err.status, err.toBody());
      }
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
        return accept(deps, req, body, record, forcedType);
      })
      .then((committed) => {
        send(res, 200, OK_BODY);
        if (committed.deliveries > 0) deps.onCommitted(committed);
        deps.onRequest?.(committed.requestId);
      })
      .catch((err: unknown) => {
        if (err instanceof IngestError) refuse(err);
        else refuse(new IngestError(500, 'internal_error', `Hookbench could not store this request: ${String(err)}`));
      });
  };
}

function accept(
  deps: IngestDeps,
  req: IncomingMessage,
  body: Buffer,
  record: RequestRecord,
  forcedType: MessageType | undefined,
): Promise<{ requestId: number; accepted: number; deliveries: number }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
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
    throw new IngestError(401, 'unknown_write_key', `write key "${echo(writeKey)}" belongs to no source; create the source first or check the key`);
  }
  record.sourceId = source.id;

  let rawItems: unknown[];
  let envelope: Envelope;
  if (forcedType) {
    rawItems = [parsed];
    envelope = { context: {}, integrations: {}, sentAt: undefined, receivedAtIso: toIso(record.receivedAt) };
  } else {
    if (!Array.isArray(parsed.batch)) throw new IngestError(400, 'invalid_batch', '"batch" must be an array of messages');
    rawItems = parsed.batch;
    envelope = {
      context: isJsonObject(parsed.context) ? parsed.context : {},
      integrations: isJsonObject(parsed.integrations) ? parsed.integrations : {},
      sentAt: typeof parsed.sentAt === 'string' ? parsed.sentAt : undefined,
      receivedAtIso: toIso(record.receivedAt),
    };
  }
  if (rawItems.length > INGEST_LIMITS.maxBatchItems) {
    throw new IngestError(400, 'batch_too_large', `batch has ${rawItems.length} messages; the limit is ${INGEST_LIMITS.maxBatchItems}`);
  }
  checkItemLimits(rawItems, body.length);

  const ip = req.socket.remoteAddress;
  const destinations = deps.routing.destinationsOf(source.id);
  const items: AcceptedItem[] = [];
  const dropped: DroppedItem[] = [];
  rawItems.forEach((raw, index) => {
    const result = normalizeItem(raw, envelope, record.receivedAt, forcedType, ip);
    if (!result.ok) {
      dropped.push({ index, kind: 'invalid', reason: result.reason, raw: JSON.stringify(stripWriteKey(raw)) ?? 'null' });
      return;
    }
    const routed = destinations.length > 0 && webhooksEnabled(result.message.integrations) ? destinations : [];
    items.push({ index, raw: stripWriteKey(raw), message: result.message, json: JSON.stringify(result.message), destinationIds: routed });
  });
  return deps.commit(() => deps.log.commitRequest(record, source.id, items, dropped, INGEST_LIMITS.dedupeWindowMs));
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
