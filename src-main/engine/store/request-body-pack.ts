/**
 * A Tracking API call's body as Inbound keeps it (requests.body), packed. The body repeats the
 * JSON of the call's messages, which `messages.json` holds too: with traffic as SDKs send it that
 * copy was the largest table of the log (about 1,370 bytes a message for analytics.js's one call
 * per message, 900 for analytics-node's batches; bench/traffic-storage.measure.ts). Raw deflate
 * with a preset dictionary of what every such call spells out (the spec's field names, the SDKs'
 * constant strings) packs one call of about 850 bytes to about 150, and a batch of fifteen to
 * about a ninth. Unlike a delivery body (store/body-pack.ts) the dictionary is not the call's own
 * messages: a call outlives messages of it that a deletion or a Clear log removes, and must stay
 * readable on its own.
 *
 * requests.body_format says which form a row holds, so rows from before stay as they are. The
 * dictionary of a format never changes (a packed row is read with it for as long as the row
 * lives); a better one would be a new format.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Db } from './database';

/** requests.body_format: the body as text. */
export const REQUEST_BODY_TEXT = 0;
/** requests.body_format: raw deflate of the UTF-8 text, TRACKING_DICTIONARY_1 as its dictionary. */
export const REQUEST_BODY_DEFLATE_1 = 1;

/** The SQL function that reads a kept body as text: (body, body_format) → text. */
export const REQUEST_BODY_FUNCTION = 'hookbench_request_body';

/**
 * What the calls of Segment's SDKs have in common, as they put it on the wire. Deflate finds a
 * string the closer to the dictionary's end the cheaper, so the commonest come last. Never edit:
 * see the module's comment.
 */
const TRACKING_DICTIONARY_1 = Buffer.from(
  [
    '{"batch":[{"type":"screen","name":"","category":"","properties":{},"context":{"app":{"name":"","version":"","build":"","namespace":""},',
    '"device":{"id":"","manufacturer":"Apple","model":"iPhone","type":"ios","name":"iPhone"},"os":{"name":"iOS","version":""},',
    '"network":{"wifi":true,"cellular":false,"carrier":""},"screen":{"width":390,"height":844,"density":3},"traits":{},',
    '"instance":{"id":""},"library":{"name":"analytics-swift","version":""}}},',
    '{"type":"group","groupId":"","traits":{"name":"","industry":"","employees":"","plan":""}},',
    '{"type":"alias","previousId":"","userId":""},',
    '{"type":"identify","traits":{"email":"","name":"","firstName":"","lastName":"","plan":"","createdAt":"","phone":"","company":{"name":""}}},',
    '{"library":{"name":"analytics-python","version":""}},{"library":{"name":"analytics-go","version":""}},',
    '{"library":{"name":"@segment/analytics-node","version":""}},{"library":{"name":"analytics-node-next","version":""}},',
    '"_metadata":{"nodeVersion":"","jsRuntime":"node"},"sentAt":"","writeKey":"",',
    '"properties":{"order_id":"","product_id":"","sku":"","category":"","name":"","price":,"quantity":1,"currency":"USD","revenue":,"total":,"coupon":null,"value":}',
    '"event":"Order Completed","event":"Product Viewed","event":"Product Added","event":"Checkout Started","event":"Signed Up",',
    '"userAgent":"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",',
    '"userAgent":"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",',
    '"userAgentData":{"brands":[{"brand":"Chromium","version":""},{"brand":"Google Chrome","version":""}],"mobile":false,"platform":"macOS"},',
    '"campaign":{"name":"","source":"google","medium":"cpc","term":"","content":""},"ip":"","locale":"en-US","timezone":"Europe/',
    '{"type":"page","name":"","category":"","properties":{"path":"/","referrer":"https://www.google.com/","search":"","title":"","url":"https://"},',
    '"context":{"library":{"name":"analytics.js","version":"npm:next-1."},"page":{"path":"/","referrer":"","search":"","title":"","url":"https://www."},',
    '"userAgent":"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",',
    '"integrations":{},"messageId":"ajs-next-","anonymousId":"","userId":"","timestamp":"T00:00:00.000Z","sentAt":"T00:00:00.000Z",',
    '"writeKey":"","_metadata":{"bundled":["Segment.io"],"unbundled":[],"bundledIds":[]}}',
    '{"type":"track","event":"","properties":{},"context":{"library":{"name":"analytics.js","version":"next-1."},"page":{"path":"/","referrer":"https://',
  ].join(''),
  'utf8',
);

/** Pure: the packed form of a kept body (REQUEST_BODY_DEFLATE_1). */
export function packRequestBody(text: string): Buffer {
  return deflateRawSync(Buffer.from(text, 'utf8'), { level: 9, dictionary: TRACKING_DICTIONARY_1 });
}

/** Pure: a kept body as text, from the form its row holds. Throws on a format it does not know. */
export function requestBodyText(body: string | Uint8Array, format: number): string {
  if (format === REQUEST_BODY_TEXT) return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  if (format !== REQUEST_BODY_DEFLATE_1 || typeof body === 'string') throw new Error(`a kept request body in an unknown form (format ${format})`);
  return inflateRawSync(body, { dictionary: TRACKING_DICTIONARY_1 }).toString('utf8');
}

/** The stored body of a requests row under `alias` as text (NULL stays NULL). */
export const REQUEST_BODY_OF = (alias: string): string =>
  `CASE WHEN ${alias}.body_format = ${REQUEST_BODY_TEXT} THEN ${alias}.body ELSE ${REQUEST_BODY_FUNCTION}(${alias}.body, ${alias}.body_format) END`;

/** Registers the function REQUEST_BODY_OF calls on a connection. */
export function registerRequestBodyFunction(db: Db): void {
  db.function(REQUEST_BODY_FUNCTION, { deterministic: true, varargs: false }, (body: unknown, format: unknown) => {
    if (body === null) return null;
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) throw new TypeError('a kept request body must be text or a BLOB');
    return requestBodyText(body, Number(format));
  });
}

/** Pure: a body as a row keeps it: packed, unless packing would not make it smaller (none stays none). */
export function keptRequestBody(text: string): { body: string | Buffer; format: number };
export function keptRequestBody(text: string | null): { body: string | Buffer | null; format: number };
export function keptRequestBody(text: string | null): { body: string | Buffer | null; format: number } {
  if (text === null) return { body: null, format: REQUEST_BODY_TEXT };
  const packed = packRequestBody(text);
  return packed.length < Buffer.byteLength(text, 'utf8') ? { body: packed, format: REQUEST_BODY_DEFLATE_1 } : { body: text, format: REQUEST_BODY_TEXT };
}
