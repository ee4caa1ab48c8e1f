/**
 * The request body Hookbench's client library posts for one composed call, laid out key for key as
 * the library lays it out (its call methods, then the batch envelope), so Compose can show what
 * will be sent before it is. A test posts through the library and compares the bytes.
 * Pure, no Node APIs: the renderer uses it.
 */
import type { ComposeType } from './api';

/** The library's name and version, as it puts them in every batch's context. */
export const CLIENT_LIBRARY = { name: 'hookbench-client', version: '0.1.0' } as const;

/** What the library makes at the moment of sending, when the call does not give it. */
export interface SendTimeValues {
  messageId: string;
  timestamp: string;
  sentAt: string;
}

type Message = Record<string, unknown>;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const object = (v: unknown): Message | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Message) : undefined);

/** One call as the library serializes it: each type's own fields in its order, then the common ones. */
export function clientMessage(type: ComposeType, m: Message, made: Pick<SendTimeValues, 'messageId' | 'timestamp'>): Message {
  const ids = { userId: text(m.userId), anonymousId: text(m.anonymousId) };
  const common = {
    context: object(m.context),
    integrations: object(m.integrations),
    timestamp: text(m.timestamp) ?? made.timestamp,
    messageId: text(m.messageId) ?? made.messageId,
  };
  switch (type) {
    case 'identify':
      return { type, ...ids, traits: object(m.traits), ...common };
    case 'track':
      return { type, event: text(m.event), ...ids, properties: object(m.properties), ...common };
    case 'page':
      return { type, name: text(m.name), category: text(m.category), ...ids, properties: object(m.properties), traits: object(m.traits), ...common };
    case 'screen':
      return { type, name: text(m.name), category: text(m.category), ...ids, properties: object(m.properties), ...common };
    case 'group':
      return { type, groupId: text(m.groupId), ...ids, traits: object(m.traits), ...common };
    case 'alias':
      return { type, previousId: text(m.previousId), userId: text(m.userId), ...common };
  }
}

/**
 * The body of the POST to /v1/batch, exactly as sent when the call goes out alone
 * (JSON.stringify drops the fields left undefined, as the library's does).
 */
export function clientBatchBody(type: ComposeType, m: Message, made: SendTimeValues): string {
  const message = JSON.stringify(clientMessage(type, m, made));
  return `{"batch":[${message}],"sentAt":"${made.sentAt}","context":${JSON.stringify({ library: CLIENT_LIBRARY })}}`;
}
