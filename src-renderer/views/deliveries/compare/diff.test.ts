import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { countChanges, diffBodies, diffHeaders, previousAttempt, sideView, type DiffNode } from './diff';
import type { AttemptView, DeliveryDetail } from '../../../../src-shared/api';
import { summaryFixture } from '../../../testing/summary';

/** The tree as "kind key" lines, nested by two spaces: easy to read in a failure. */
function lines(node: DiffNode, depth = 0): string[] {
  const label = `${'  '.repeat(depth)}${node.kind} ${node.key ?? '(root)'}`;
  if (node.children) return [label, ...node.children.flatMap((c) => lines(c, depth + 1))];
  const value = node.kind === 'changed' ? `${JSON.stringify(node.left)} → ${JSON.stringify(node.right)}` : JSON.stringify(node.kind === 'removed' ? node.left : node.right);
  return [`${label} = ${value}`];
}

test('diffBodies: an original beside its edited replay, key by key', () => {
  const original = '{"type":"track","event":"Order Completed","properties":{"total":10,"currency":"EUR","coupon":"X"},"messageId":"m1"}';
  const edited = '{"type":"track","event":"Order Refunded","properties":{"total":10,"currency":"USD","reason":"damaged"},"messageId":"m1"}';
  const d = diffBodies(original, edited);
  assert.equal(d.kind, 'json');
  if (d.kind !== 'json') return;
  assert.deepEqual(lines(d.root), [
    'changed (root)',
    '  same type = "track"',
    '  changed event = "Order Completed" → "Order Refunded"',
    '  changed properties',
    '    same total = 10',
    '    changed currency = "EUR" → "USD"',
    '    removed coupon = "X"',
    '    added reason = "damaged"',
    '  same messageId = "m1"',
  ]);
  assert.equal(d.changes, 4);
});

test('diffBodies: arrays pair their items in order; added and removed items are named by index', () => {
  const d = diffBodies('{"products":[{"id":"a","q":1},{"id":"b","q":1}]}', '{"products":[{"id":"a","q":2},{"id":"b","q":1},{"id":"c","q":5}]}');
  assert.equal(d.kind, 'json');
  if (d.kind !== 'json') return;
  assert.deepEqual(lines(d.root), [
    'changed (root)',
    '  changed products',
    '    changed [0]',
    '      same id = "a"',
    '      changed q = 1 → 2',
    '    same [1]',
    '      same id = "b"',
    '      same q = 1',
    '    added [2] = {"id":"c","q":5}',
  ]);
  const shorter = diffBodies('{"tags":["x","y","z"]}', '{"tags":["x","z"]}');
  assert.ok(shorter.kind === 'json');
  if (shorter.kind === 'json') assert.deepEqual(lines(shorter.root).slice(1), ['  changed tags', '    same [0] = "x"', '    removed [1] = "y"', '    same [1] = "z"']);
});

test('diffBodies: identical bodies have no changes; a body that is not JSON is compared as text', () => {
  const same = diffBodies('{"a":[1,{"b":null}]}', '{"a":[1,{"b":null}]}');
  assert.ok(same.kind === 'json' && same.changes === 0 && same.root.kind === 'same');
  assert.deepEqual(diffBodies('not json', '{"a":1}'), { kind: 'text', same: false, left: 'not json', right: '{"a":1}' });
  assert.deepEqual(diffBodies(null, null), { kind: 'text', same: true, left: null, right: null });
  assert.equal(countChanges({ key: null, kind: 'added', right: 1 }), 1);
});

test('diffHeaders: paired by name whatever its case, differences marked, repeated names joined', () => {
  const rows = diffHeaders(
    [
      ['host', '127.0.0.1:9001'],
      ['Content-Type', 'application/json'],
      ['X-Team', 'alpha'],
      ['X-Only-Left', '1'],
    ],
    [
      ['Host', '127.0.0.1:9002'],
      ['content-type', 'application/json'],
      ['x-team', 'beta'],
      ['Via', 'a'],
      ['via', 'b'],
    ],
  );
  assert.deepEqual(
    rows.map((r) => [r.name, r.kind, r.left, r.right]),
    [
      ['host', 'changed', '127.0.0.1:9001', '127.0.0.1:9002'],
      ['Content-Type', 'same', 'application/json', 'application/json'],
      ['X-Team', 'changed', 'alpha', 'beta'],
      ['X-Only-Left', 'removed', '1', null],
      ['Via', 'added', null, 'a, b'],
    ],
  );
});

function attempt(id: number, overrides: Partial<AttemptView> = {}): AttemptView {
  return {
    id,
    url: 'http://127.0.0.1:9001/hook',
    startedAt: '2026-01-01T00:00:00.000Z',
    round: id,
    state: 'done',
    verdict: 'retryable',
    httpStatus: 500,
    requestHeaders: { 'Content-Type': 'application/json', 'X-Signature': 'abc' },
    sentHeaders: [['host', '127.0.0.1:9001'], ['Content-Type', 'application/json'], ['X-Signature', 'abc'], ['content-length', '2']],
    timings: null,
    responseHeaders: null,
    responseBody: null,
    responseBytes: 0,
    responseTruncated: false,
    errorKind: 'http',
    errorText: 'HTTP 500',
    retryAfterMs: null,
    ...overrides,
  };
}

function detail(attempts: AttemptView[], overrides: Partial<DeliveryDetail> = {}): DeliveryDetail {
  return {
    ...summaryFixture(7, { status: 'retrying' }),
    body: '{}',
    targetUrl: null,
    edited: false,
    firstAttemptAt: null,
    finishedAt: null,
    attempts,
    signature: { state: 'valid', expected: null, sent: null, explanation: '' },
    nextStep: '',
    originalBody: null,
    destinationName: 'D',
    schedule: { warp: 1, windowMs: 0, windowStart: null, windowEnd: null, rounds: [], plannedAreLatest: false, truncated: false },
    ...overrides,
  };
}

test('sideView: the wire headers when kept, the engine’s headers for an older attempt, none before any attempt', () => {
  const older = attempt(1, { sentHeaders: null });
  const newer = attempt(2, { httpStatus: 200, verdict: 'success', errorKind: null });
  const d = detail([older, newer]);
  const last = sideView(d, { deliveryId: 7 });
  assert.equal(last.headerSource, 'wire');
  assert.equal(last.headers[0]?.[0], 'host');
  assert.equal(last.outcome, 'retrying · HTTP 200 · http://127.0.0.1:9001/hook');
  const first = sideView(d, { deliveryId: 7, attemptId: 1 });
  assert.equal(first.headerSource, 'engine');
  assert.deepEqual(first.headers, [['Content-Type', 'application/json'], ['X-Signature', 'abc']]);
  assert.equal(first.title, '#7 · attempt 1 (round 1)');
  assert.equal(sideView(detail([]), { deliveryId: 7 }).headerSource, 'none');
  assert.equal(sideView(detail([], { test: true }), { deliveryId: 7 }).title, '#7 · test event');
  assert.equal(previousAttempt(d, 2)?.id, 1);
  assert.equal(previousAttempt(d, 1), undefined);
});

test('diffBodies: keys an object inherits (valueOf, constructor) and __proto__ are the body\'s own keys like any other', () => {
  const removed = diffBodies('{"valueOf":""}', '{}');
  assert.equal(removed.kind === 'json' && removed.changes, 1);
  assert.deepEqual(removed.kind === 'json' && removed.root.children?.map((c) => [c.key, c.kind, c.left]), [['valueOf', 'removed', '']]);
  const nested = diffBodies('{"constructor":{"a":1},"toString":2}', '{"constructor":{"a":2},"toString":2}');
  assert.equal(nested.kind === 'json' && nested.changes, 1);
  const proto = diffBodies('{"__proto__":{"x":1},"k":1}', '{"k":1}');
  assert.ok(proto.kind === 'json');
  assert.equal(proto.changes, 1);
  const node = proto.root.children?.find((c) => c.key === '__proto__');
  assert.equal(node?.kind, 'removed');
  assert.equal(JSON.stringify(node?.left), '{"x":1}', 'the value as the body holds it');
  const same = diffBodies('{"__proto__":1,"hasOwnProperty":[1]}', '{"__proto__":1,"hasOwnProperty":[1]}');
  assert.equal(same.kind === 'json' && same.changes, 0);
  // Equal objects in arrays that also hold equal nulls pair up by position.
  const objects = diffBodies('[{},null,null]', '[{},null,null]');
  assert.equal(objects.kind === 'json' && objects.changes, 0);
  const one = diffBodies('[{"a":1},null]', '[{"a":2},null]');
  assert.equal(one.kind === 'json' && one.changes, 1);
});

test('diffBodies (property): no change exactly when the two bodies hold equal JSON', () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  fc.assert(
    fc.property(json, json, (a, b) => {
      const d = diffBodies(JSON.stringify(a), JSON.stringify(b));
      assert.equal(d.kind, 'json');
      if (d.kind !== 'json') return;
      const equal = isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
      assert.equal(d.changes === 0, equal);
    }),
    { numRuns: 300 },
  );
});

test('diffBodies: a long changed string is one change, shown whole on both sides', () => {
  const a = 'a'.repeat(200);
  const b = `${'a'.repeat(100)}b${'a'.repeat(99)}`;
  const d = diffBodies(JSON.stringify({ s: a }), JSON.stringify({ s: b }));
  assert.ok(d.kind === 'json');
  if (d.kind === 'json') assert.deepEqual(d.root.children?.[0], { key: 's', kind: 'changed', left: a, right: b });
});
