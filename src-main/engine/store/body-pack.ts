/**
 * A delivery's body, packed. For a delivery made from a message the body is that message mapped
 * to a webhook payload: most of its bytes are already in messages.json, and deflate with that JSON
 * as its preset dictionary writes them as back-references (about 700 bytes become about 30). The
 * row keeps body_format beside the bytes, so packed and unpacked rows live side by side (a log
 * from before migration 18 is packed after start, in slices). Readers never see the packed form:
 * every statement that returns a body goes through BODY_OF, which unpacks in SQL with the
 * function registered on each connection.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Db } from './database';
import { registerRequestBodyFunction } from './request-body-pack';

/** deliveries.body_format: the bytes as sent. */
export const BODY_RAW = 0;
/** deliveries.body_format: raw deflate, the delivery's message JSON (UTF-8) as the dictionary. */
export const BODY_DEFLATE_MESSAGE = 1;

/** The SQL function that unpacks: (body, body_format, message JSON) → the bytes as sent. */
export const UNPACK_FUNCTION = 'hookbench_body';

/**
 * Pure: the packed form of body, with the message's JSON as the dictionary, by the deflate given.
 * Self-contained (the ingest's packing thread runs this very function's text), so that a body
 * packed there and one packed here are the same bytes.
 */
export function packWith(deflate: typeof deflateRawSync, body: Uint8Array, messageJson: string): Buffer {
  return deflate(body, { level: 9, dictionary: Buffer.from(messageJson, 'utf8') });
}

/** Pure: the packed form of body, with the message's JSON as the dictionary. */
export function packBody(body: Uint8Array, messageJson: string): Buffer {
  return packWith(deflateRawSync, body, messageJson);
}

/** Pure: the bytes packBody was given. Throws on bytes that are not such a stream. */
export function unpackBody(packed: Uint8Array, messageJson: string): Buffer {
  return inflateRawSync(packed, { dictionary: Buffer.from(messageJson, 'utf8') });
}

/**
 * The stored body as it is read, for a row of deliveries under `alias`: unpacked when packed, as
 * stored otherwise (NULL stays NULL). Only packed rows look up their message.
 */
export const BODY_OF = (alias: string): string =>
  `CASE WHEN ${alias}.body_format = ${BODY_DEFLATE_MESSAGE} THEN ${UNPACK_FUNCTION}(${alias}.body, ${alias}.body_format, (SELECT json FROM messages WHERE id = ${alias}.message_id)) ELSE ${alias}.body END`;

/**
 * Registers the unpacking functions on a connection: a delivery's body's, and a kept Tracking API
 * call's (request-body-pack.ts). A packed delivery body whose message is gone cannot happen (a
 * message goes only with its deliveries, in one transaction); should it, the function fails the
 * statement rather than hand out bytes that are not the delivery's.
 */
export function registerBodyFunctions(db: Db): void {
  db.function(UNPACK_FUNCTION, { deterministic: true, varargs: false }, (body: unknown, format: unknown, json: unknown) => {
    if (body === null) return null;
    if (!Buffer.isBuffer(body)) throw new TypeError('a packed delivery body must be a BLOB');
    if (format !== BODY_DEFLATE_MESSAGE) return body;
    if (typeof json !== 'string') throw new Error('a packed delivery body has no message to unpack it with');
    return unpackBody(body, json);
  });
  registerRequestBodyFunction(db);
}
