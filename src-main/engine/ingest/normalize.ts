import { randomUUID } from 'node:crypto';
import { INGEST_LIMITS, isMessageType, MESSAGE_TYPES, type InboundMessage, type IngestWarning, type MessageType } from '../../../src-shared/events';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src-shared/json';
import { describeValue, jsonTypeOf, previewOf } from './describe';
import { parseTimestamp, toIso } from './timestamps';

/** What a batch envelope gives every item that lacks its own (docs/tracking-api.md). */
export interface Envelope {
  context: JsonObject;
  integrations: JsonObject;
  sentAt: string | undefined;
  /** receivedAt as ISO, computed once per request rather than once per item. */
  receivedAtIso?: string;
  /** Problems with the envelope itself, reported with every message made from it. */
  warnings?: IngestWarning[];
  /**
   * An importer's batch (the as-recorded header): each item that is a log line (it carries the
   * receivedAt of its first receipt) keeps its timestamp, originalTimestamp and sentAt as
   * recorded, without clock-skew correction; other items are calls like any other.
   */
  asRecorded?: boolean;
}

/** A refusal names the field (its path in the body) and what was wrong with it. */
export type NormalizeResult =
  | { ok: true; message: InboundMessage; warnings: IngestWarning[] }
  | { ok: false; field: string; problem: string; reason: string };

const TYPE_RULE = `must be one of ${MESSAGE_TYPES.join(', ')}`;

/** `batch[2]` + `type` → `batch[2].type`; a single call's fields have no prefix. */
export function pathOf(at: string, field: string): string {
  if (at === '') return field;
  return field === '' ? at : `${at}.${field}`;
}

/** null and absent both mean "not sent", as SDKs write either for an unset field. */
const absent = (value: JsonValue | undefined): value is null | undefined => value === undefined || value === null;

type Id = { ok: true; value: string | null; coerced: boolean } | { ok: false };

/** ids may arrive as JSON null or as numbers, which are turned into strings; empty means absent. */
function idOf(value: JsonValue | undefined): Id {
  if (absent(value) || value === '') return { ok: true, value: null, coerced: false };
  if (typeof value === 'string') return { ok: true, value, coerced: false };
  if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value: JSON.stringify(value), coerced: true };
  return { ok: false };
}

/** Batch-level context and integrations are merged under each item's own (item values win). */
function merged(base: JsonObject, own: JsonObject | undefined): JsonObject {
  if (!own) return { ...base };
  return { ...base, ...own };
}

/**
 * What the batch envelope gives its items, and what was wrong with it: a batch-level context or
 * integrations that is not an object, or a sentAt that is not a readable time.
 */
export function envelopeOf(body: JsonObject, receivedAtIso: string): Envelope {
  const warnings: IngestWarning[] = [];
  const objectField = (field: 'context' | 'integrations'): JsonObject => {
    const value = body[field];
    if (isJsonObject(value)) return value;
    if (!absent(value)) warnings.push({ field, problem: `must be an object; got ${jsonTypeOf(value)}; left out`, value: previewOf(value) });
    return {};
  };
  const context = objectField('context');
  const integrations = objectField('integrations');
  let sentAt: string | undefined;
  if (typeof body.sentAt === 'string') sentAt = body.sentAt;
  else if (!absent(body.sentAt)) {
    warnings.push({ field: 'sentAt', problem: `must be an ISO 8601 time as a string; got ${jsonTypeOf(body.sentAt)}; left out`, value: previewOf(body.sentAt) });
  }
  return { context, integrations, sentAt, receivedAtIso, warnings };
}

function refusal(at: string, field: string, problem: string): NormalizeResult {
  const path = pathOf(at, field);
  return { ok: false, field: path, problem, reason: path === '' ? problem : `${path}: ${problem}` };
}

/**
 * One item's refusals and warnings, each naming its field by its path in the body. A class rather
 * than closures inside normalizeItem, which runs for every item of every batch.
 */
class ItemCheck {
  readonly warnings: IngestWarning[] = [];

  constructor(
    private readonly raw: JsonObject,
    private readonly at: string,
  ) {}

  refuse(field: string, problem: string): NormalizeResult {
    return refusal(this.at, field, problem);
  }

  /** An optional field of the wrong type: left out of the message, with a warning. */
  leftOut(field: string, expected: string, consequence = ''): void {
    const value = this.raw[field];
    this.warnings.push({ field: pathOf(this.at, field), problem: `${expected}; got ${jsonTypeOf(value)}; left out${consequence}`, value: previewOf(value) });
  }

  coerced(field: string, id: string): void {
    this.warnings.push({ field: pathOf(this.at, field), problem: `a number; stored as the string "${id}"`, value: previewOf(this.raw[field]) });
  }

  /** An object field, or undefined when absent or (with a warning) of another type. */
  object(field: 'context' | 'integrations' | 'traits' | 'properties'): JsonObject | undefined {
    const value = this.raw[field];
    if (isJsonObject(value)) return value;
    if (!absent(value)) this.leftOut(field, 'must be an object');
    return undefined;
  }
}

/**
 * Validates one item and turns it into the message the log stores: required fields per type,
 * messageId (generated when missing), skew-corrected timestamp, merged context and integrations.
 * `forcedType` is the type a single-call path (/v1/track …) implies; `at` is the item's path in
 * the body (`batch[2]`, or '' for a single call), used to name fields in reasons and warnings.
 *
 * Any JSON value may sit in any field. A wrong required field drops the item with a reason; a wrong
 * optional one is left out of the message and reported as a warning stored with it.
 */
export function normalizeItem(
  raw: unknown,
  envelope: Envelope,
  receivedAt: number,
  forcedType?: MessageType,
  ip?: string,
  at = '',
): NormalizeResult {
  if (!isJsonObject(raw)) return refusal(at, '', `must be a JSON object; got ${describeValue(raw)}`);
  const check = new ItemCheck(raw, at);

  const type = forcedType ?? raw.type;
  if (absent(type)) return check.refuse('type', `is missing; it ${TYPE_RULE}`);
  if (!isMessageType(type)) return check.refuse('type', `${TYPE_RULE}; got ${describeValue(type)}`);

  const ids: Record<'userId' | 'anonymousId' | 'groupId' | 'previousId', string | null> = {
    userId: null,
    anonymousId: null,
    groupId: null,
    previousId: null,
  };
  for (const field of ['userId', 'anonymousId', 'groupId', 'previousId'] as const) {
    const id = idOf(raw[field]);
    const required = field === 'userId' || field === 'anonymousId' || (field === 'groupId' && type === 'group') || (field === 'previousId' && type === 'alias');
    if (!id.ok) {
      if (required) return check.refuse(field, `must be a string or a number; got ${describeValue(raw[field])}`);
      check.leftOut(field, 'must be a string or a number');
      continue;
    }
    if (id.coerced && id.value !== null) check.coerced(field, id.value);
    ids[field] = id.value;
  }
  const { userId, anonymousId } = ids;
  if (userId === null && anonymousId === null) return check.refuse('userId', 'is required (or anonymousId); neither was sent');

  let event: string | undefined;
  if (typeof raw.event === 'string') event = raw.event;
  else if (!absent(raw.event)) {
    if (type === 'track') return check.refuse('event', `must be a non-empty string; got ${describeValue(raw.event)}`);
    check.leftOut('event', 'must be a string');
  }
  const groupId = ids.groupId ?? undefined;
  const previousId = ids.previousId ?? undefined;
  if (type === 'track' && !event) return check.refuse('event', 'is required for track (a non-empty string)');
  if (type === 'group' && !groupId) return check.refuse('groupId', 'is required for group');
  if (type === 'alias' && !previousId) return check.refuse('previousId', 'is required for alias');
  if (type === 'alias' && userId === null) return check.refuse('userId', 'is required for alias');

  let messageId: string;
  const rawMessageId = raw.messageId;
  if (absent(rawMessageId) || rawMessageId === '') messageId = randomUUID();
  else if (typeof rawMessageId === 'string') messageId = rawMessageId;
  else if (typeof rawMessageId === 'number' && Number.isFinite(rawMessageId)) {
    messageId = JSON.stringify(rawMessageId);
    check.coerced('messageId', messageId);
  } else return check.refuse('messageId', `must be a string; got ${describeValue(rawMessageId)}`);

  let originalTimestamp: string | undefined;
  if (typeof raw.timestamp === 'string') originalTimestamp = raw.timestamp;
  else if (!absent(raw.timestamp)) check.leftOut('timestamp', 'must be an ISO 8601 time as a string', ', so the time of receipt was used');
  let sentAt = envelope.sentAt;
  let sentAtField = 'sentAt';
  if (typeof raw.sentAt === 'string') {
    sentAt = raw.sentAt;
    sentAtField = pathOf(at, 'sentAt');
  } else if (!absent(raw.sentAt)) check.leftOut('sentAt', 'must be an ISO 8601 time as a string', envelope.sentAt === undefined ? '' : ", so the batch's was used");
  const clientTime = originalTimestamp === undefined ? null : parseTimestamp(originalTimestamp);
  if (originalTimestamp !== undefined && clientTime === null) {
    return check.refuse('timestamp', `is not an ISO 8601 time; got ${describeValue(originalTimestamp)}`);
  }
  const sentTime = sentAt === undefined ? null : sentAt === envelope.sentAt ? envelopeSentTime(envelope) : parseTimestamp(sentAt);
  if (sentAt !== undefined && sentTime === null) {
    check.warnings.push({ field: sentAtField, problem: 'is not an ISO 8601 time; kept as sent, but clock skew was not corrected', value: previewOf(sentAt) });
  }
  // Segment's skew correction: trust the client's clock only for the interval between its event and its send.
  // A log line being imported (it has the receivedAt of its first receipt) was corrected then: its time stands.
  const recorded = envelope.asRecorded === true && typeof raw.receivedAt === 'string';
  const timestamp =
    clientTime !== null && sentTime !== null && !recorded
      ? receivedAt - (sentTime - clientTime)
      : (clientTime ?? receivedAt);
  if (recorded) originalTimestamp = recordedOriginal(raw.originalTimestamp);

  const context = merged(envelope.context, check.object('context'));
  if (ip !== undefined && context.ip === undefined) context.ip = ip;
  const integrations = merged(envelope.integrations, check.object('integrations'));

  const message: InboundMessage = {
    type,
    messageId,
    userId,
    anonymousId,
    context,
    integrations,
    timestamp: timestamp === receivedAt && envelope.receivedAtIso ? envelope.receivedAtIso : toIso(timestamp),
    receivedAt: envelope.receivedAtIso ?? toIso(receivedAt),
  };
  if (originalTimestamp !== undefined) message.originalTimestamp = originalTimestamp;
  if (sentAt !== undefined) message.sentAt = sentAt;
  if (event !== undefined) message.event = event;
  for (const field of ['name', 'category'] as const) {
    const value = raw[field];
    if (typeof value === 'string') message[field] = value;
    else if (!absent(value)) check.leftOut(field, 'must be a string');
  }
  if (groupId !== undefined) message.groupId = groupId;
  if (previousId !== undefined) message.previousId = previousId;
  const traits = check.object('traits');
  if (traits) message.traits = traits;
  // analytics-go v2 and others send page data as properties; some older clients use traits for identify only.
  const properties = check.object('properties');
  if (properties) message.properties = properties;
  return { ok: true, message, warnings: envelope.warnings ? [...envelope.warnings, ...check.warnings] : check.warnings };
}

const sentTimes = new WeakMap<Envelope, number | null>();

/** An imported line's originalTimestamp: the client's string as first recorded, when it had one. */
function recordedOriginal(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && parseTimestamp(value) !== null ? value : undefined;
}

/** The envelope's sentAt applies to every item without its own: parse it once per request. */
function envelopeSentTime(envelope: Envelope): number | null {
  let t = sentTimes.get(envelope);
  if (t === undefined) {
    t = envelope.sentAt === undefined ? null : parseTimestamp(envelope.sentAt);
    sentTimes.set(envelope, t);
  }
  return t;
}

export function checkMessageIdLength(raw: unknown): string | null {
  if (!isJsonObject(raw)) return null;
  const id = raw.messageId;
  if (typeof id === 'string' && id.length > INGEST_LIMITS.maxMessageIdLength) {
    return `messageId is ${id.length} characters; the limit is ${INGEST_LIMITS.maxMessageIdLength}`;
  }
  return null;
}
