/**
 * How deeply JSON is nested. JSON.parse is iterative in V8, but JSON.stringify and every recursive
 * walk are not: a message nested a few thousand levels deep (a few KB of brackets) overflows the
 * stack. Both functions here use loops only, so they are safe on any input.
 */

/**
 * The limit for one message, the message object itself counting as level 1. Real SDK payloads stay
 * within about 6 levels (context.device, properties.products[].variant …), and Ruby's JSON generator,
 * which analytics-ruby uses, refuses anything deeper than 100 levels, so 100 refuses no payload a
 * Segment SDK can build, while staying far below the depth where stringifying overflows the stack.
 */
export const MAX_MESSAGE_NESTING = 100;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The deepest bracket nesting of a JSON text, from one pass over its bytes: `{` and `[` outside
 * strings open a level, `}` and `]` close one. UTF-8 continuation bytes never equal these ASCII
 * bytes, so no decoding is needed. Meant as a fast pre-check: valid traffic never needs more.
 */
export function textNesting(bytes: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/** Levels of a parsed value: a scalar is 0, `{}` and `[]` are 1, `{"a":[1]}` is 2. */
export function valueNesting(value: unknown): number {
  let max = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (typeof top.value !== 'object' || top.value === null) continue;
    const depth = top.depth + 1;
    if (depth > max) max = depth;
    const children = Array.isArray(top.value) ? (top.value as unknown[]) : Object.values(top.value);
    for (const child of children) if (typeof child === 'object' && child !== null) stack.push({ value: child, depth });
  }
  return max;
}

/** The item's field that holds its deepest nesting (for the refusal's wording), or null. */
export function deepestField(item: unknown): string | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
  let best: string | null = null;
  let bestDepth = 0;
  for (const [key, child] of Object.entries(item)) {
    const d = valueNesting(child);
    if (d > bestDepth) {
      bestDepth = d;
      best = key;
    }
  }
  return best;
}
