import type { JsonObject } from './json.js';
import { TRACKING_LIMITS } from './limits.js';

/** The inbound call types the Tracking API accepts. */
export const MESSAGE_TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export function isMessageType(value: unknown): value is MessageType {
  return typeof value === 'string' && (MESSAGE_TYPES as readonly string[]).includes(value);
}

/**
 * A message after ingest has validated and enriched it: what the log stores and what payload
 * mapping reads. `writeKey` is never part of it (docs/tracking-api.md).
 */
export interface InboundMessage {
  type: MessageType;
  messageId: string;
  userId: string | null;
  anonymousId: string | null;
  /** track */
  event?: string;
  /** page, screen */
  name?: string;
  /** page */
  category?: string;
  /** group */
  groupId?: string;
  /** alias */
  previousId?: string;
  traits?: JsonObject;
  properties?: JsonObject;
  context: JsonObject;
  integrations: JsonObject;
  /** ISO 8601 UTC with milliseconds, skew-corrected (docs/tracking-api.md, "Times"). */
  timestamp: string;
  /** The client's own timestamp string, exactly as sent. */
  originalTimestamp?: string;
  sentAt?: string;
  /** ISO 8601 UTC with milliseconds: server time at ingest. */
  receivedAt: string;
}

/**
 * Something the Tracking API could not use in an accepted message, stored with it: a field of the
 * wrong JSON type that was left out (or a number that was turned into a string), or a time that
 * could not be read. `field` is its path in the request body (`batch[2].properties`, `context`).
 */
export interface IngestWarning {
  field: string;
  problem: string;
  /** The value as received, as JSON text cut to a preview. */
  value: string;
}

/** Limits of the Tracking API: the size limits the client library packs to, and the dedupe window. */
export const INGEST_LIMITS = {
  ...TRACKING_LIMITS,
  dedupeWindowMs: 24 * 60 * 60 * 1000,
} as const;
