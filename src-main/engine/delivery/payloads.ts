/**
 * Payload mapping: one inbound message becomes one webhook body (docs/delivery.md,
 * "Payload shapes"). Pure: no clock, no I/O, inputs are not mutated.
 *
 * Key order is fixed per type because the serialized bytes are what gets signed, sent and stored;
 * the same message must always produce the same bytes.
 */
import type { InboundMessage } from '../../../src-shared/events';
import type { JsonObject } from '../../../src-shared/json';
import type {
  AliasPayload,
  DeletePayload,
  GroupPayload,
  IdentifyPayload,
  PagePayload,
  ScreenPayload,
  TrackPayload,
  WebhookPayload,
} from '../../../src-shared/payloads';

/**
 * A message lacks a field its type cannot do without. Ingest refuses such messages,
 * so meeting one here means a stored row is damaged or a caller skipped validation; sending a
 * made-up value would hide that, so mapping refuses instead.
 */
export class PayloadMappingError extends Error {
  readonly code = 'payload_mapping_failed';
  constructor(
    readonly messageId: string,
    readonly field: string,
    message: string,
  ) {
    super(`message ${messageId}: ${message}`);
    this.name = 'PayloadMappingError';
  }
}

function required(msg: InboundMessage, field: 'event' | 'groupId' | 'previousId' | 'userId'): string {
  const value = msg[field];
  if (typeof value !== 'string') {
    throw new PayloadMappingError(msg.messageId, field, `a ${msg.type} call needs ${field}, and this one has none`);
  }
  return value;
}

/** The fields every non-delete payload ends with; anonymousId only when the call carried one. */
function tail(msg: InboundMessage): { messageId: string; anonymousId?: string; timestamp: string; context: JsonObject } {
  return msg.anonymousId === null
    ? { messageId: msg.messageId, timestamp: msg.timestamp, context: msg.context }
    : { messageId: msg.messageId, anonymousId: msg.anonymousId, timestamp: msg.timestamp, context: msg.context };
}

export function toWebhookPayload(msg: InboundMessage): WebhookPayload {
  switch (msg.type) {
    case 'track': {
      const p: TrackPayload = {
        version: 1,
        type: 'track',
        userId: msg.userId,
        event: required(msg, 'event'),
        properties: msg.properties ?? {},
        ...tail(msg),
      };
      return p;
    }
    case 'page': {
      const p: PagePayload = {
        version: 1,
        type: 'page',
        userId: msg.userId,
        ...(msg.name !== undefined ? { name: msg.name } : {}),
        ...(msg.category !== undefined ? { category: msg.category } : {}),
        // path, referrer, title and url live inside properties and pass through untouched.
        properties: msg.properties ?? {},
        ...tail(msg),
      };
      return p;
    }
    case 'screen': {
      const p: ScreenPayload = {
        version: 1,
        type: 'screen',
        userId: msg.userId,
        name: msg.name ?? null,
        ...(msg.properties !== undefined ? { properties: msg.properties } : {}),
        ...tail(msg),
      };
      return p;
    }
    case 'identify': {
      const p: IdentifyPayload = {
        version: 1,
        type: 'identify',
        userId: msg.userId,
        traits: msg.traits ?? {},
        ...tail(msg),
      };
      return p;
    }
    case 'group': {
      const p: GroupPayload = {
        version: 1,
        type: 'group',
        userId: msg.userId,
        groupId: required(msg, 'groupId'),
        traits: msg.traits ?? {},
        ...tail(msg),
      };
      return p;
    }
    case 'alias': {
      // The source document's key names (with spaces) win over Segment's general spec (docs/delivery.md).
      const p: AliasPayload = {
        version: 1,
        type: 'alias',
        'Previous ID': required(msg, 'previousId'),
        'User ID': required(msg, 'userId'),
        ...tail(msg),
      };
      return p;
    }
  }
}

/** A deletion notice carries exactly these three keys and nothing else. */
export function deletePayload(userId: string, timestamp: string): DeletePayload {
  return { type: 'delete', userId, timestamp };
}

/**
 * The webhook body of a message, mapped once when it is committed so the first attempt reuses the
 * bytes instead of reading, parsing and mapping the message again; null when it cannot be mapped
 * (the scheduler then maps it itself and discards the delivery with the reason).
 */
export function webhookBodyOf(msg: InboundMessage): Buffer | null {
  try {
    return serializePayload(toWebhookPayload(msg));
  } catch {
    return null;
  }
}

/**
 * The one serialization of a payload: compact JSON as UTF-8. These bytes are signed, sent and stored,
 * so a replay can resend them unchanged. Lone surrogates come out as \uXXXX escapes,
 * so the encoding never loses a character.
 */
export function serializePayload(p: WebhookPayload): Buffer {
  return Buffer.from(JSON.stringify(p), 'utf8');
}
