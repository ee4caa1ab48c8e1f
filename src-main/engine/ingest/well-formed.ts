/**
 * Text as Segment's servers read it: a JSON escape of a lone UTF-16 surrogate (`"\ud800"`, half
 * of a pair with the other half missing) becomes U+FFFD, the replacement character, as Go's JSON
 * decoder makes it. Kept as it is, such a string cannot be written as UTF-8: the columns a test
 * filters on (userId, anonymousId, event) held bytes that read back as something else, so no
 * query could find the message, while its stored JSON still carried the escape.
 */

/** Deepest body the reviver walks: V8 revives recursively, and a deeper body is refused for its nesting anyway. */
export const REVIVED_NESTING_AT_MOST = 1_000;

// A \u escape of a surrogate (D800–DFFF); a backslash escaped before it only makes this a false alarm.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Pure: whether a JSON text may hold a lone surrogate (only an escape can make one: decoding bytes never does). */
export function mayHoldLoneSurrogates(text: string): boolean {
  return SURROGATE_ESCAPE.test(text);
}

/** Pure: the string with each lone surrogate replaced by U+FFFD; a pair stays. */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JSON.parse reviver that makes every string and key well formed. An object whose keys change is
 * made again in the same order (the stored JSON keeps the order it was sent in).
 */
export function wellFormedReviver(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.every((k) => wellFormed(k) === k)) return value;
  const remade: Record<string, unknown> = {};
  for (const k of keys) Object.defineProperty(remade, wellFormed(k), { value: value[k], enumerable: true, writable: true, configurable: true });
  return remade;
}
