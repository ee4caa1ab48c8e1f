import type { JsonObject } from './json';

/**
 * Outbound webhook payloads, one shape per type (docs/delivery.md, "Payload shapes").
 * Besides the documented fields every payload but delete carries messageId (receivers dedupe on it),
 * anonymousId when present, and the context object.
 */
interface VersionedPayload {
  version: 1;
  timestamp: string;
  messageId: string;
  anonymousId?: string;
  context: JsonObject;
}

interface UserPayload extends VersionedPayload {
  /** Present on every type but alias; null when the call carried only an anonymousId. */
  userId: string | null;
}

export interface TrackPayload extends UserPayload {
  type: 'track';
  event: string;
  properties: JsonObject;
}

export interface PagePayload extends UserPayload {
  type: 'page';
  name?: string;
  category?: string;
  properties: JsonObject;
}

export interface ScreenPayload extends UserPayload {
  type: 'screen';
  name: string | null;
  properties?: JsonObject;
}

export interface IdentifyPayload extends UserPayload {
  type: 'identify';
  traits: JsonObject;
}

export interface GroupPayload extends UserPayload {
  type: 'group';
  groupId: string;
  traits: JsonObject;
}

/** Alias keys contain a space and there is no userId key (source document wins over Segment's spec). */
export interface AliasPayload extends VersionedPayload {
  type: 'alias';
  'Previous ID': string;
  'User ID': string;
}

/** Delete notices carry exactly these three keys. */
export interface DeletePayload {
  type: 'delete';
  userId: string;
  timestamp: string;
}

export type WebhookPayload =
  | TrackPayload
  | PagePayload
  | ScreenPayload
  | IdentifyPayload
  | GroupPayload
  | AliasPayload
  | DeletePayload;

export type PayloadType = WebhookPayload['type'];
