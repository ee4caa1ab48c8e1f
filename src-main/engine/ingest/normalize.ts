import { randomUUID } from 'node:crypto';
import { INGEST_LIMITS, isMessageType, type InboundMessage, type MessageType } from '../../../src-shared/events';
import { isJsonObject, type JsonObject, type JsonValue } from '../../../src-shared/json';
import { parseTimestamp, toIso } from './timestamps';

/** What a batch envelope gives every item that lacks its own (wire-facts 8 and 12). */
export interface Envelope {
  context: JsonObject;
  integrations: JsonObject;
  sentAt: string | undefined;
  /** receivedAt as ISO, computed once per request rather than once per item. */
  receivedAtIso?: string;
}

export type NormalizeResult = { ok: true; message: InboundMessage } | { ok: false; reason: string };

/** ids may arrive as JSON null or as numbers (wire-facts 10); empty means absent. */
function idOf(value: JsonValue | undefined): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** Batch-level context and integrations are merged under each item's own (item values win). */
function merged(base: JsonObject, own: JsonValue | undefined): JsonObject {
  const item = objectOf(own);
  if (!item) return { ...base };
  return { ...base, ...item };
}

/**
 * Validates one item and turns it into the message the log stores: required fields per type,
 * messageId (generated when missing), skew-corrected timestamp, merged context and integrations.
 * `forcedType` is the type a single-call path (/v1/track …) implies.
 */
export function normalizeItem(
  raw: unknown,
  envelope: Envelope,
  receivedAt: number,
  forcedType?: MessageType,
  ip?: string,
): NormalizeResult {
  if (!isJsonObject(raw)) return { ok: false, reason: 'item is not a JSON object' };
  const type = forcedType ?? raw.type;
  if (type === undefined || type === null) return { ok: false, reason: 'type is missing' };
  if (!isMessageType(type)) {
    return { ok: false, reason: `type "${String(type)}" is not one of identify, track, page, screen, group, alias` };
  }
  const userId = idOf(raw.userId);
  const anonymousId = idOf(raw.anonymousId);
  if (userId === null && anonymousId === null) return { ok: false, reason: 'userId or anonymousId is required' };

  const event = typeof raw.event === 'string' ? raw.event : undefined;
  const groupId = idOf(raw.groupId) ?? undefined;
  const previousId = idOf(raw.previousId) ?? undefined;
  if (type === 'track' && !event) return { ok: false, reason: 'track needs a non-empty event' };
  if (type === 'group' && !groupId) return { ok: false, reason: 'group needs a groupId' };
  if (type === 'alias' && !previousId) return { ok: false, reason: 'alias needs a previousId' };
  if (type === 'alias' && userId === null) return { ok: false, reason: 'alias needs a userId' };

  let messageId: string;
  if (raw.messageId === undefined || raw.messageId === null || raw.messageId === '') messageId = randomUUID();
  else if (typeof raw.messageId === 'string' || typeof raw.messageId === 'number') messageId = String(raw.messageId);
  else return { ok: false, reason: 'messageId must be a string' };

  const originalTimestamp = typeof raw.timestamp === 'string' ? raw.timestamp : undefined;
  const sentAt = typeof raw.sentAt === 'string' ? raw.sentAt : envelope.sentAt;
  const clientTime = originalTimestamp === undefined ? null : parseTimestamp(originalTimestamp);
  if (originalTimestamp !== undefined && clientTime === null) {
    return { ok: false, reason: `timestamp "${originalTimestamp}" is not an ISO 8601 time` };
  }
  const sentTime = sentAt === undefined ? null : sentAt === envelope.sentAt ? envelopeSentTime(envelope) : parseTimestamp(sentAt);
  // Segment's skew correction: trust the client's clock only for the interval between its event and its send.
  const timestamp =
    clientTime !== null && sentTime !== null
      ? receivedAt - (sentTime - clientTime)
      : (clientTime ?? receivedAt);

  const context = merged(envelope.context, raw.context);
  if (ip !== undefined && context.ip === undefined) context.ip = ip;

  const message: InboundMessage = {
    type,
    messageId,
    userId,
    anonymousId,
    context,
    integrations: merged(envelope.integrations, raw.integrations),
    timestamp: timestamp === receivedAt && envelope.receivedAtIso ? envelope.receivedAtIso : toIso(timestamp),
    receivedAt: envelope.receivedAtIso ?? toIso(receivedAt),
  };
  if (originalTimestamp !== undefined) message.originalTimestamp = originalTimestamp;
  if (sentAt !== undefined) message.sentAt = sentAt;
  if (event !== undefined) message.event = event;
  if (typeof raw.name === 'string') message.name = raw.name;
  if (typeof raw.category === 'string') message.category = raw.category;
  if (groupId !== undefined) message.groupId = groupId;
  if (previousId !== undefined) message.previousId = previousId;
  const traits = objectOf(raw.traits);
  if (traits) message.traits = traits;
  // analytics-go v2 and others send page data as properties; some older clients use traits for identify only.
  const properties = objectOf(raw.properties);
  if (properties) message.properties = properties;
  return { ok: true, message };
}

const sentTimes = new WeakMap<Envelope, number | null>();

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
