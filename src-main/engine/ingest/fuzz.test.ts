/**
 * Property-based fuzzing of the real Tracking API (a real engine, SQLite file and HTTP server):
 * malformed items mixed with valid ones, then malformed bodies. Bounded by numRuns; fast-check
 * prints the seed and the shrunk case on failure, and FUZZ_SEED=<seed> replays a run.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { MESSAGE_TYPES } from '../../../src-shared/events';
import { startHarness, WRITE_KEY, type Harness } from '../testing/harness';

const ITEM_FIELDS = [
  'type', 'userId', 'anonymousId', 'event', 'groupId', 'previousId', 'messageId', 'timestamp', 'sentAt',
  'context', 'integrations', 'traits', 'properties', 'name', 'category',
] as const;
const ENVELOPE_FIELDS = new Set(['context', 'integrations', 'sentAt']);
const BATCH_RUNS = 300;
const BODY_RUNS = 1200;
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

let h: Harness;
before(async () => {
  // No destination: the fuzz is about ingest, not about delivering thousands of messages.
  h = await startHarness({ sources: [{ name: 'fuzz', writeKey: WRITE_KEY }], destinations: [] });
});
after(() => h.close());

async function postRaw(path: string, body: Uint8Array, gzip = false): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {
    authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`,
    'content-type': 'application/json',
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  const res = await fetch(`${h.server.url}${path}`, { method: 'POST', headers, body: new Uint8Array(gzip ? gzipSync(body) : body) });
  return { status: res.status, text: await res.text() };
}

const loneSurrogate = fc.constantFrom('\ud800', '\udfff', 'a\ud83d', '\udc00z');
const shortText = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 8 }), loneSurrogate);
/** Values that break naive code: own toString/valueOf, prototype keys, -0, the largest doubles. */
const awkward = fc.constantFrom<unknown>(
  { toString: 0 },
  { valueOf: {}, toString: 'x' },
  JSON.parse('{"__proto__":{"polluted":true}}'),
  { constructor: { prototype: 1 } },
  [],
  {},
  '',
  -0,
  1.7976931348623157e308,
  Number.MIN_VALUE,
  true,
  false,
  null,
);
const anyJson: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 3 }), awkward, shortText);
const id = fc.string({ minLength: 1, maxLength: 16 });

/** An item every rule accepts; its messageId is assigned per post, so valid ones never collide. */
const validItem = fc
  .record({
    type: fc.constantFrom(...MESSAGE_TYPES),
    userId: id,
    anonymousId: fc.option(id, { nil: undefined }),
    event: id,
    groupId: id,
    previousId: id,
    properties: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    timestamp: fc.option(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()), {
      nil: undefined,
    }),
  })
  .map((r): Record<string, unknown> => {
    const item: Record<string, unknown> = { type: r.type, userId: r.userId, properties: r.properties };
    if (r.anonymousId !== undefined) item.anonymousId = r.anonymousId;
    if (r.timestamp !== undefined) item.timestamp = r.timestamp;
    if (r.type === 'track') item.event = r.event;
    if (r.type === 'group') item.groupId = r.groupId;
    if (r.type === 'alias') item.previousId = r.previousId;
    return item;
  });

/** A valid item with some fields replaced by any JSON value, any JSON value, or random keys. */
const malformedItem: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc
    .tuple(validItem, fc.array(fc.tuple(fc.constantFrom(...ITEM_FIELDS), anyJson), { minLength: 1, maxLength: 4 }))
    .map(([item, edits]) => {
      const copy: Record<string, unknown> = { ...item };
      for (const [field, value] of edits) copy[field] = value;
      return copy;
    }) },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...ITEM_FIELDS, '__proto__', 'constructor', 'toString'), fc.string()), anyJson) },
);

const slot = fc.oneof(validItem.map((item) => ({ valid: true, item })), malformedItem.map((item) => ({ valid: false, item })));
const envelope = fc.record(
  { context: anyJson, integrations: anyJson, sentAt: fc.oneof(anyJson, fc.constant('2026-11-22T12:00:00Z')) },
  { requiredKeys: [] },
);

interface Row {
  message_id: string;
  json: string;
  warnings: string | null;
}

let posted = 0;
let malformedPosted = 0;

test(`${BATCH_RUNS} batches of valid and malformed items: never a 5xx, every valid item stored, every drop names its field`, async () => {
  const messagesOf = (requestId: number): Row[] => h.inspect.all<Row>('SELECT message_id, json, warnings FROM messages WHERE request_id = ?', requestId);
  const lastRequest = () =>
    h.inspect.get('SELECT id, http_status, items, accepted, dropped, duplicates FROM requests ORDER BY id DESC LIMIT 1');
  const started = process.hrtime.bigint();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(envelope, fc.array(slot, { minLength: 1, maxLength: 60, size: 'large' }), async (env, slots) => {
      run++;
      const batch = slots.map((s, i) => (s.valid ? { ...(s.item as Record<string, unknown>), messageId: `valid-${run}-${i}` } : s.item));
      posted += batch.length;
      malformedPosted += slots.filter((s) => !s.valid).length;
      const res = await postRaw('/v1/batch', Buffer.from(JSON.stringify({ ...env, batch })));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.text, '{"success":true}');

      const request = lastRequest() as { id: number; items: number; accepted: number; dropped: number; duplicates: number };
      assert.equal(request.items, batch.length);
      assert.equal(request.accepted + request.dropped + request.duplicates, batch.length, 'every item is a message or a dropped item');
      const stored = new Map(messagesOf(request.id).map((r) => [r.message_id, r]));
      slots.forEach((s, i) => {
        if (!s.valid) return;
        const row = stored.get(`valid-${run}-${i}`);
        assert.ok(row, `valid batch[${i}] is stored`);
        const message = JSON.parse(row.json) as Record<string, unknown>;
        assert.equal(JSON.stringify(message.properties), JSON.stringify((s.item as Record<string, unknown>).properties));
        const warned = row.warnings === null ? [] : (JSON.parse(row.warnings) as { field: string }[]);
        for (const w of warned) assert.ok(ENVELOPE_FIELDS.has(w.field), `a valid item is warned only about the batch envelope, not ${w.field}`);
      });
      for (const row of stored.values()) {
        for (const w of row.warnings === null ? [] : (JSON.parse(row.warnings) as { field: string; problem: string }[])) {
          assert.match(w.field, /^(context|integrations|sentAt|batch\[\d+\]\.[a-zA-Z]+)$/);
          assert.ok(w.problem.length > 0);
        }
      }
      for (const d of h.engine.stores.requests.droppedItemsOf(request.id)) {
        if (d.kind === 'duplicate') continue;
        const named = /^batch\[(\d+)\](?:\.([a-zA-Z]+))?: ./.exec(d.reason);
        assert.ok(named, `the reason names the item and field: ${d.reason}`);
        assert.equal(Number(named[1]), d.index);
        if (named[2] !== undefined) assert.ok((ITEM_FIELDS as readonly string[]).includes(named[2]), d.reason);
        assert.equal(slots[d.index]?.valid, false, `only malformed items are dropped: ${d.reason}`);
      }
    }),
    { numRuns: BATCH_RUNS, seed },
  );
  const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
  console.log(`fuzz: ${BATCH_RUNS} batches, ${posted} items (${malformedPosted} malformed) in ${ms} ms`);
});

const validBatchText = fc.array(validItem, { minLength: 1, maxLength: 5 }).map((items) => JSON.stringify({ batch: items }));
const nesting = fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom('[', '{"a":'), fc.constantFrom('properties', 'context', 'traits', 'x'));
const hugeNumber = fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890123456789', '0.0000000000000000000000000001e-400', '1E+999999');

/** Bodies as bytes: random bytes, cut JSON, deep nesting, huge numbers, lone surrogates, prototype keys. */
const body: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.tuple(validBatchText, fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1))),
  fc.tuple(nesting, fc.boolean()).map(([[depth, open, field], inBatch]) => {
    const close = open === '[' ? ']' : '}';
    const value = `${open.repeat(depth)}${open === '[' ? '' : '1'}${close.repeat(depth)}`;
    const item = `{"type":"track","userId":"u","event":"E","${field}":${value}}`;
    return inBatch ? `{"batch":[${item}]}` : `{"context":${value},"batch":[]}`;
  }),
  fc.tuple(hugeNumber, fc.constantFrom('userId', 'messageId', 'timestamp', 'properties', 'anonymousId')).map(
    ([n, field]) => `{"batch":[{"type":"identify","userId":"u","${field}":${field === 'properties' ? `{"n":${n}}` : n}}]}`,
  ),
  fc.tuple(fc.constantFrom('"\\ud800"', '"\\udfff x"', '"a\\ud83d"'), fc.constantFrom('userId', 'event', 'messageId', 'type', 'name')).map(
    ([s, field]) => `{"batch":[{"type":"track","userId":"u","event":"E","${field}":${s}}]}`,
  ),
  fc.constant(Buffer.from([...Buffer.from('{"batch":[{"type":"track","userId":"'), 0xed, 0xa0, 0x80, 0xff, ...Buffer.from('","event":"E"}]}')])),
  fc.tuple(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'), anyJson).map(
    ([key, value]) => `{"${key}":${JSON.stringify(value) ?? 'null'},"batch":[{"${key}":${JSON.stringify(value) ?? 'null'},"type":"track","userId":"u","event":"E","context":{"${key}":1},"integrations":{"${key}":false}}]}`,
  ),
  fc.json({ maxDepth: 4 }),
);
const path = fc.constantFrom('/v1/batch', '/v1/import', '/v1/track', '/v1/identify', '/v1/page', '/v1/alias', '/v1/group', '/v1/screen');

test(`${BODY_RUNS} malformed bodies on every Tracking API path: a 200 or a 400 with a reason, never a 5xx`, async () => {
  const started = process.hrtime.bigint();
  await fc.assert(
    fc.asyncProperty(path, body, fc.boolean(), async (p, b, gzip) => {
      const res = await postRaw(p, typeof b === 'string' ? Buffer.from(b) : b, gzip);
      assert.ok(res.status === 200 || res.status === 400, `${res.status} ${res.text}`);
      const answer = JSON.parse(res.text) as { success: boolean; message?: string };
      assert.equal(answer.success, res.status === 200);
      if (res.status === 400) assert.ok(typeof answer.message === 'string' && answer.message.length > 0);
    }),
    { numRuns: BODY_RUNS, seed },
  );
  console.log(`fuzz: ${BODY_RUNS} bodies in ${Number((process.hrtime.bigint() - started) / 1_000_000n)} ms`);
});
