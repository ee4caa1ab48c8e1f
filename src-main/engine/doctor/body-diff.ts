/**
 * How a body a receiver parsed and wrote out again differs from the bytes that were signed: the
 * findings a person can act on (key order, whitespace, escapes, number spelling, a trailing
 * newline, or values that really differ), each with a few examples at their JSON path. Pure.
 */
import { readLexical, type LexNode } from './json-lexical';

export type BodyFindingCode =
  | 'identical'
  | 'not_json'
  | 'values_differ'
  | 'key_order'
  | 'whitespace'
  | 'unicode_escapes'
  | 'escaped_slashes'
  | 'string_escapes'
  | 'number_format'
  | 'trailing_newline'
  | 'json_stringify';

export interface Example {
  /** JSONPath-like: `$.properties.price`. */
  path: string;
  /** As the signed bytes have it. */
  ours: string;
  /** As the pasted text has it. */
  theirs: string;
}

export interface BodyFinding {
  code: BodyFindingCode;
  examples: Example[];
}

const MAX_EXAMPLES = 3;

const pathOf = (parent: string, key: string | number): string =>
  typeof key === 'number' ? `${parent}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;

/** Why two spellings of one string differ. */
function escapeKind(ours: string, theirs: string): BodyFindingCode {
  const unicode = /\\u(?!00[01][0-9a-fA-F])[0-9a-fA-F]{4}/;
  if (unicode.test(ours) !== unicode.test(theirs)) return 'unicode_escapes';
  if (ours.includes('\\/') !== theirs.includes('\\/')) return 'escaped_slashes';
  return 'string_escapes';
}

const short = (s: string): string => (s.length > 60 ? `${s.slice(0, 57)}…` : s);

/** Compares two parsed texts; the findings by code, examples in document order. */
function compareTrees(ours: LexNode, theirs: LexNode): Map<BodyFindingCode, Example[]> {
  const found = new Map<BodyFindingCode, Example[]>();
  const note = (code: BodyFindingCode, example: Example): void => {
    const list = found.get(code) ?? [];
    if (list.length < MAX_EXAMPLES) list.push({ ...example, ours: short(example.ours), theirs: short(example.theirs) });
    found.set(code, list);
  };
  const work: { a: LexNode; b: LexNode; path: string }[] = [{ a: ours, b: theirs, path: '$' }];
  for (let item = work.pop(); item; item = work.pop()) {
    const { a, b, path } = item;
    if (a.kind === 'object' && b.kind === 'object') {
      const theirsByKey = new Map(b.members.map((m) => [m.key, m]));
      const oursKeys = a.members.map((m) => m.key);
      const theirsKeys = b.members.map((m) => m.key);
      const missing = oursKeys.filter((k) => !theirsByKey.has(k));
      const extra = theirsKeys.filter((k) => !oursKeys.includes(k));
      if (missing.length > 0 || extra.length > 0) {
        note('values_differ', { path, ours: `keys ${oursKeys.join(', ')}`, theirs: `keys ${theirsKeys.join(', ')}` });
      } else if (oursKeys.join('\u0000') !== theirsKeys.join('\u0000')) {
        note('key_order', { path, ours: oursKeys.join(', '), theirs: theirsKeys.join(', ') });
      }
      const pending: typeof work = [];
      for (const m of a.members) {
        const other = theirsByKey.get(m.key);
        if (!other) continue;
        const at = pathOf(path, m.key);
        if (m.rawKey !== other.rawKey) note(escapeKind(m.rawKey, other.rawKey), { path: `${at} (key)`, ours: m.rawKey, theirs: other.rawKey });
        pending.push({ a: m.value, b: other.value, path: at });
      }
      work.push(...pending.reverse());
    } else if (a.kind === 'array' && b.kind === 'array') {
      if (a.items.length !== b.items.length) note('values_differ', { path, ours: `${a.items.length} items`, theirs: `${b.items.length} items` });
      const n = Math.min(a.items.length, b.items.length);
      for (let i = n - 1; i >= 0; i--) work.push({ a: a.items[i] as LexNode, b: b.items[i] as LexNode, path: pathOf(path, i) });
    } else if (a.kind === 'string' && b.kind === 'string') {
      if (a.value !== b.value) note('values_differ', { path, ours: a.raw, theirs: b.raw });
      else if (a.raw !== b.raw) note(escapeKind(a.raw, b.raw), { path, ours: a.raw, theirs: b.raw });
    } else if (a.kind === 'number' && b.kind === 'number') {
      if (a.value !== b.value) note('values_differ', { path, ours: a.raw, theirs: b.raw });
      else if (a.raw !== b.raw) note('number_format', { path, ours: a.raw, theirs: b.raw });
    } else if (a.kind === 'literal' && b.kind === 'literal') {
      if (a.raw !== b.raw) note('values_differ', { path, ours: a.raw, theirs: b.raw });
    } else {
      note('values_differ', { path, ours: a.kind, theirs: b.kind });
    }
  }
  return found;
}

const visible = (ws: string): string => ws.replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t').replace(/ /g, '·');

/** The findings for a pasted body against the signed bytes, most telling first; `identical` when the bytes are the same. */
export function diagnoseBody(signed: string, pasted: string): BodyFinding[] {
  if (signed === pasted) return [{ code: 'identical', examples: [] }];
  const findings: BodyFinding[] = [];
  const endsNl = (s: string): boolean => /\r?\n$/.test(s);
  const strip = (s: string): string => s.replace(/\r?\n$/, '');
  if (endsNl(signed) !== endsNl(pasted)) {
    findings.push({
      code: 'trailing_newline',
      examples: [{ path: '(end)', ours: endsNl(signed) ? 'ends with a newline' : 'no newline at the end', theirs: endsNl(pasted) ? 'ends with a newline' : 'no newline at the end' }],
    });
  }
  const ours = readLexical(strip(signed));
  const theirs = readLexical(strip(pasted));
  if (!ours || !theirs) {
    findings.push({ code: 'not_json', examples: [{ path: '$', ours: ours ? 'JSON' : 'not JSON', theirs: theirs ? 'JSON' : 'not JSON' }] });
    return findings;
  }
  const ws = (list: string[]): string => list.join('');
  if (ws(ours.whitespace) !== ws(theirs.whitespace)) {
    const sample = (list: string[]): string => (list.length === 0 ? 'none between tokens' : `${list.length} runs, e.g. "${visible(list[0] as string)}"`);
    findings.push({ code: 'whitespace', examples: [{ path: '$', ours: sample(ours.whitespace), theirs: sample(theirs.whitespace) }] });
  }
  const order: BodyFindingCode[] = ['values_differ', 'key_order', 'unicode_escapes', 'escaped_slashes', 'string_escapes', 'number_format'];
  const tree = compareTrees(ours.root, theirs.root);
  for (const code of order) {
    const examples = tree.get(code);
    if (examples) findings.push({ code, examples });
  }
  if (!tree.has('values_differ')) {
    let stringified: string | null = null;
    try {
      stringified = JSON.stringify(JSON.parse(signed));
    } catch {
      stringified = null;
    }
    if (stringified === strip(pasted) && stringified !== signed) findings.push({ code: 'json_stringify', examples: [] });
  }
  return findings;
}
