/**
 * A JSON reader that keeps how each token was written (escapes, number spelling, key order,
 * whitespace), which JSON.parse throws away. The signature doctor compares two texts of the same
 * value with it to say *how* a receiver's re-serialised body differs from the bytes that were
 * signed. Pure; iterative, so a deeply nested body cannot overflow the stack.
 */

export type LexNode =
  | { kind: 'object'; members: { key: string; rawKey: string; value: LexNode }[] }
  | { kind: 'array'; items: LexNode[] }
  | { kind: 'string'; raw: string; value: string }
  | { kind: 'number'; raw: string; value: number }
  | { kind: 'literal'; raw: 'true' | 'false' | 'null' };

export interface LexDocument {
  root: LexNode;
  /** Every run of whitespace between tokens, in order (leading and trailing included). */
  whitespace: string[];
}

const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// Control characters must be escaped inside a JSON string, so they end a match.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

type Frame = { kind: 'object'; node: Extract<LexNode, { kind: 'object' }>; key: { key: string; rawKey: string } | null } | { kind: 'array'; node: Extract<LexNode, { kind: 'array' }> };

/** Parses text as JSON keeping its spelling; null when it is not JSON. */
export function readLexical(text: string): LexDocument | null {
  let pos = 0;
  const whitespace: string[] = [];
  const skip = (): void => {
    WS.lastIndex = pos;
    const m = WS.exec(text);
    const run = m ? m[0] : '';
    if (run !== '') whitespace.push(run);
    pos += run.length;
  };
  const match = (re: RegExp): string | null => {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return null;
    pos += m[0].length;
    return m[0];
  };
  const stack: Frame[] = [];
  let root: LexNode | null = null;

  const place = (node: LexNode): boolean => {
    const top = stack[stack.length - 1];
    if (!top) {
      root = node;
      return true;
    }
    if (top.kind === 'array') top.node.items.push(node);
    else if (top.key) {
      top.node.members.push({ ...top.key, value: node });
      top.key = null;
    } else return false;
    return true;
  };

  skip();
  for (;;) {
    // A value is expected here (or a closing bracket right after an opening one).
    const top = stack[stack.length - 1];
    if (top?.kind === 'object' && top.key === null) {
      const rawKey = match(STRING);
      if (rawKey === null) return null;
      skip();
      if (text[pos] !== ':') return null;
      pos++;
      skip();
      top.key = { key: JSON.parse(rawKey) as string, rawKey };
    }
    const c = text[pos];
    if (c === '{' || c === '[') {
      pos++;
      skip();
      const node: LexNode = c === '{' ? { kind: 'object', members: [] } : { kind: 'array', items: [] };
      if (!place(node)) return null;
      const closer = c === '{' ? '}' : ']';
      if (text[pos] === closer) {
        pos++;
      } else {
        stack.push(node.kind === 'object' ? { kind: 'object', node, key: null } : { kind: 'array', node: node as Extract<LexNode, { kind: 'array' }> });
        continue;
      }
    } else if (c === '"') {
      const raw = match(STRING);
      if (raw === null || !place({ kind: 'string', raw, value: JSON.parse(raw) as string })) return null;
    } else if (c === 't' || c === 'f' || c === 'n') {
      const raw = (['true', 'false', 'null'] as const).find((w) => text.startsWith(w, pos));
      if (!raw) return null;
      pos += raw.length;
      if (!place({ kind: 'literal', raw })) return null;
    } else {
      const raw = match(NUMBER);
      if (raw === null || !place({ kind: 'number', raw, value: Number(raw) })) return null;
    }
    // After a value: a comma, a closer, or the end.
    for (;;) {
      skip();
      const open = stack[stack.length - 1];
      if (!open) {
        return pos === text.length && root !== null ? { root, whitespace } : null;
      }
      const ch = text[pos];
      if (ch === ',') {
        pos++;
        skip();
        break;
      }
      if ((open.kind === 'object' && ch === '}') || (open.kind === 'array' && ch === ']')) {
        pos++;
        stack.pop();
        continue;
      }
      return null;
    }
  }
}
