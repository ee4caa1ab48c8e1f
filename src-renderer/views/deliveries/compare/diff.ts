/**
 * Two deliveries or attempts side by side: their bodies as a JSON tree of differences and their
 * request headers paired by name. Pure: jsondiffpatch finds what changed, these functions turn its
 * delta into rows a view can show without knowing the delta's format.
 */
import { create, type Delta } from 'jsondiffpatch';
import type { AttemptView, DeliveryDetail } from '../../../../src-shared/api';

export type DiffKind = 'same' | 'changed' | 'added' | 'removed';

export interface DiffNode {
  /** The key in its parent object, `[n]` in an array, null at the root. */
  key: string | null;
  kind: DiffKind;
  /** Leaves: the values on each side (absent on the side that lacks them). */
  left?: unknown;
  right?: unknown;
  /** Objects and arrays present on both sides: their entries, in the right side's order. */
  children?: DiffNode[];
  /** For a container with children: '{}' or '[]'. */
  brackets?: '{}' | '[]';
}

// Without a text differ a changed string is one change, shown whole rather than as a patch. Array
// items are matched by position (no move detection), so the walk below can pair them. Said
// outright: left to itself the differ stops matching objects by position as soon as the two
// arrays share any value by reference, as two nulls do, and equal objects then show as changed.
const differ = create({ arrays: { detectMove: false }, matchByPosition: true });

type ObjectDelta = Record<string, Delta | string>;

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null;

/** Every entry of a value present on both sides and unchanged. */
function sameTree(key: string | null, value: unknown): DiffNode {
  if (!isContainer(value)) return { key, kind: 'same', left: value, right: value };
  const children = Array.isArray(value) ? value.map((v, i) => sameTree(`[${i}]`, v)) : Object.entries(value).map(([k, v]) => sameTree(k, v));
  return { key, kind: 'same', children, brackets: Array.isArray(value) ? '[]' : '{}' };
}

function walk(key: string | null, left: unknown, right: unknown, delta: Delta | undefined): DiffNode {
  if (delta === undefined) return sameTree(key, right);
  if (Array.isArray(delta)) {
    if (delta.length === 1) return { key, kind: 'added', right: delta[0] };
    if (delta.length === 2) return { key, kind: 'changed', left: delta[0], right: delta[1] };
    return { key, kind: 'removed', left: delta[0] };
  }
  const d = delta as unknown as ObjectDelta;
  if (d._t === 'a' && Array.isArray(left) && Array.isArray(right)) return { key, kind: 'changed', brackets: '[]', children: walkArray(left, right, d) };
  const l = (isContainer(left) ? left : {}) as Record<string, unknown>;
  const r = (isContainer(right) ? right : {}) as Record<string, unknown>;
  const children: DiffNode[] = [];
  // Right's keys in its order; a removed key stays where it was on the left, before the next kept one.
  const rightKeys = Object.keys(r);
  const leftKeys = Object.keys(l);
  for (const k of leftKeys) if (!(k in r)) children.push(walk(k, l[k], undefined, d[k] as Delta));
  for (const k of rightKeys) children.push(walk(k, l[k], r[k], d[k] as Delta));
  children.sort((a, b) => order(a.key, leftKeys, rightKeys) - order(b.key, leftKeys, rightKeys));
  return { key, kind: 'changed', brackets: '{}', children };
}

/** A key's place: its index on the right, or just after its left neighbour for a removed one. */
function order(key: string | null, leftKeys: string[], rightKeys: string[]): number {
  const k = key ?? '';
  const at = rightKeys.indexOf(k);
  if (at >= 0) return at;
  const before = leftKeys.slice(0, leftKeys.indexOf(k)).reverse().find((p) => rightKeys.includes(p));
  return (before === undefined ? -1 : rightKeys.indexOf(before)) + 0.5;
}

/**
 * Array deltas name removed items by their old index (`_3`) and added or changed ones by their new
 * index (`3`); with moves off, the items kept pair up in order.
 */
function walkArray(left: unknown[], right: unknown[], d: ObjectDelta): DiffNode[] {
  const removed = new Set<number>();
  const added = new Set<number>();
  for (const [k, v] of Object.entries(d)) {
    if (k === '_t' || !Array.isArray(v)) continue;
    if (k.startsWith('_') && v.length === 3) removed.add(Number(k.slice(1)));
    else if (!k.startsWith('_') && v.length === 1) added.add(Number(k));
  }
  const out: DiffNode[] = [];
  let li = 0;
  const flushRemoved = (): void => {
    while (li < left.length && removed.has(li)) {
      out.push({ key: `[${li}]`, kind: 'removed', left: left[li] });
      li++;
    }
  };
  right.forEach((item, ri) => {
    flushRemoved();
    if (added.has(ri)) {
      out.push({ key: `[${ri}]`, kind: 'added', right: item });
      return;
    }
    out.push(walk(`[${ri}]`, left[li], item, d[String(ri)] as Delta));
    li++;
  });
  flushRemoved();
  return out;
}

export type BodyDiff =
  | { kind: 'json'; root: DiffNode; changes: number }
  /** One side is missing or not JSON: compared as text. */
  | { kind: 'text'; same: boolean; left: string | null; right: string | null };

/**
 * While diffing, a key an object inherits a member by (`valueOf`, `constructor`, `__proto__`, …)
 * is renamed with a leading NUL, as is a key that already starts with one, so the rename is one to
 * one: on a plain object `{}`'s inherited `valueOf` would otherwise pass for a value (the differ
 * refuses functions), and the differ skips `__proto__`. The result names every key again
 * (`displayed`).
 */
const MARK = '\u0000';
const marked = (k: string): string => (k in Object.prototype || k.startsWith(MARK) ? MARK + k : k);
const unmarked = (k: string): string => (k.startsWith(MARK) ? k.slice(1) : k);

function objectOf(entries: [string, unknown][], rename: (k: string) => string): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, rename(k), { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

function parse(text: string | null): { ok: true; value: unknown } | { ok: false } {
  if (text === null) return { ok: false };
  try {
    const value = JSON.parse(text, (_k, v: unknown) => (isContainer(v) && !Array.isArray(v) ? objectOf(Object.entries(v), marked) : v)) as unknown;
    return { ok: true, value };
  } catch {
    return { ok: false };
  }
}

/** A value as the body holds it: every key named again. */
function restored(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(restored);
  if (!isContainer(v)) return v;
  return objectOf(Object.entries(v).map(([k, x]) => [k, restored(x)]), unmarked);
}

/** The tree with the body's own keys and values, as a view shows it. */
function displayed(node: DiffNode): DiffNode {
  const out: DiffNode = { ...node, key: node.key === null ? null : unmarked(node.key) };
  if ('left' in node) out.left = restored(node.left);
  if ('right' in node) out.right = restored(node.right);
  if (node.children) out.children = node.children.map(displayed);
  return out;
}

/** The leaves that differ (added, removed or changed values). */
export function countChanges(node: DiffNode): number {
  if (node.children) return node.children.reduce((n, c) => n + countChanges(c), 0);
  return node.kind === 'same' ? 0 : 1;
}

export function diffBodies(left: string | null, right: string | null): BodyDiff {
  const l = parse(left);
  const r = parse(right);
  if (!l.ok || !r.ok) return { kind: 'text', same: left === right, left, right };
  const root = displayed(walk(null, l.value, r.value, differ.diff(l.value, r.value)));
  return { kind: 'json', root, changes: countChanges(root) };
}

export interface HeaderRow {
  /** The name as the left side wrote it (else the right's). */
  name: string;
  left: string | null;
  right: string | null;
  kind: DiffKind;
}

/** Headers paired by name, case-insensitively, in the left side's order, then the right's own. Repeated names are joined with ", ". */
export function diffHeaders(left: [string, string][], right: [string, string][]): HeaderRow[] {
  const group = (pairs: [string, string][]): Map<string, { name: string; value: string }> => {
    const m = new Map<string, { name: string; value: string }>();
    for (const [name, value] of pairs) {
      const k = name.toLowerCase();
      const had = m.get(k);
      m.set(k, had ? { name: had.name, value: `${had.value}, ${value}` } : { name, value });
    }
    return m;
  };
  const l = group(left);
  const r = group(right);
  const rows: HeaderRow[] = [];
  for (const [k, a] of l) {
    const b = r.get(k);
    rows.push({ name: a.name, left: a.value, right: b?.value ?? null, kind: !b ? 'removed' : b.value === a.value ? 'same' : 'changed' });
  }
  for (const [k, b] of r) if (!l.has(k)) rows.push({ name: b.name, left: null, right: b.value, kind: 'added' });
  return rows;
}

/** One side of a comparison: a delivery, or one of its attempts. */
export interface CompareSide {
  deliveryId: number;
  /** Absent: the delivery's last attempt. */
  attemptId?: number;
}

export interface SideView {
  title: string;
  /** What happened to it, e.g. "succeeded · 200" or "attempt round 2 · HTTP 500". */
  outcome: string;
  body: string | null;
  headers: [string, string][];
  /** Where the headers come from, for the caption. */
  headerSource: 'wire' | 'engine' | 'none';
}

/** The attempt a side names: the given one, else the delivery's last. */
export function attemptOf(detail: DeliveryDetail, attemptId?: number): AttemptView | undefined {
  if (attemptId !== undefined) return detail.attempts.find((a) => a.id === attemptId);
  return detail.attempts[detail.attempts.length - 1];
}

/** A side's body, headers and words, from the delivery it belongs to. */
export function sideView(detail: DeliveryDetail, side: CompareSide): SideView {
  const attempt = attemptOf(detail, side.attemptId);
  const what = detail.test ? 'test event' : detail.replayOf !== null ? `replay of #${detail.replayOf}` : detail.type;
  const title = side.attemptId !== undefined && attempt ? `#${detail.id} · attempt ${attempt.id} (round ${attempt.round})` : `#${detail.id} · ${what}`;
  const result = attempt ? (attempt.httpStatus !== null ? `HTTP ${attempt.httpStatus}` : (attempt.errorKind ?? attempt.state)) : 'no attempt yet';
  const outcome = `${detail.status} · ${result}${attempt ? ` · ${attempt.url}` : ''}`;
  if (!attempt) return { title, outcome, body: detail.body, headers: [], headerSource: 'none' };
  if (attempt.sentHeaders) return { title, outcome, body: detail.body, headers: attempt.sentHeaders, headerSource: 'wire' };
  return { title, outcome, body: detail.body, headers: Object.entries(attempt.requestHeaders), headerSource: 'engine' };
}

/** The attempt before this one in the delivery (any URL), for "Compare with previous attempt". */
export function previousAttempt(detail: DeliveryDetail, attemptId: number): AttemptView | undefined {
  const at = detail.attempts.findIndex((a) => a.id === attemptId);
  return at > 0 ? detail.attempts[at - 1] : undefined;
}
