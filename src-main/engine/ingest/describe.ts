/**
 * Words for values that arrived where something else was expected. Input is never passed to
 * String() or a template literal: an object can carry its own toString (`{"toString":0}` makes
 * String() throw), so a value is described by its JSON type, and quoted only when it is a string
 * or a number, which JSON.stringify renders safely.
 */

import { MAX_MESSAGE_NESTING, valueNesting } from './nesting';

const PREVIEW_CHARS = 200;

/** "an object", "an array", "a string", "a number", "a boolean" or "null". */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'an object';
    default:
      return 'no JSON value';
  }
}

/** For a reason: `the string "purchase"`, `the number 42`, `true`, `null`, `an object` … */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${quoted(value)}`;
  if (typeof value === 'number') return Number.isFinite(value) ? `the number ${JSON.stringify(value)}` : 'a number too large to represent';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return jsonTypeOf(value);
}

/** A string from the input as a JSON string literal, cut short: safe to put in any sentence. */
export function quoted(text: string): string {
  return truncate(JSON.stringify(text), 60);
}

/**
 * The value as JSON text, cut to a preview, for a warning stored with a message.
 */
export function previewOf(value: unknown): string {
  // Callers check nesting first; this guard keeps the function safe on its own.
  if (valueNesting(value) > MAX_MESSAGE_NESTING) return `(${jsonTypeOf(value)} nested over ${MAX_MESSAGE_NESTING} levels)`;
  return truncate(JSON.stringify(value) ?? 'null', PREVIEW_CHARS);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
