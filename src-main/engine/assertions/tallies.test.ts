import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHarness, type Harness } from '../testing/harness';
import { turnsDuring } from '../testing/wait';
import { ANY_MESSAGE, deliveryPageSql, messagePageSql, type MessageQueryFilter } from '../store/assertions';
import { TALLY_BLOCK_IDS } from '../store/message-tallies';
import type { InboundMessage } from '../../../src-shared/events';
import { createAssertions, type Assertions } from './service';
import { planSegments } from './tally-plan';

const NO_FILTER = ANY_MESSAGE;
const T0 = Date.UTC(2026, 10, 1);
/** Five blocks and a bit: whole blocks, a marker inside one, and a partial last block. */
const MESSAGES = 5 * TALLY_BLOCK_IDS + 3_000;
const PER_REQUEST = 1_000;
const TYPES = ['track', 'track', 'identify', 'page', 'track', 'group', 'screen', 'alias'] as const;
const EVENTS = ['Order Completed', 'Product Viewed', 'Signed Up', 'Rare Event'];

function message(i: number): { message: InboundMessage; violations?: { path: string; rule: string; message: string }[] } {
  const type = TYPES[i % TYPES.length] as (typeof TYPES)[number];
  // 'Rare Event' only in the second block, so most blocks hold none.
  const event = i > TALLY_BLOCK_IDS && i < TALLY_BLOCK_IDS + 500 && i % 7 === 0 ? 'Rare Event' : (EVENTS[i % 3] as string);
  const m = {
    type,
    messageId: `m-${i}`,
    userId: `user_${i % 300}`,
    anonymousId: `anon-${i % 11}`,
    ...(type === 'track' ? { event } : {}),
    // An identify with "event": "" (SDKs send it) must stay apart from one without an event.
    ...(type === 'identify' && i % 4 === 2 ? { event: '' } : {}),
    ...(type === 'group' ? { groupId: 'g' } : {}),
    ...(type === 'alias' ? { previousId: 'p' } : {}),
    properties: {},
    context: {},
    integrations: {},
  } as unknown as InboundMessage;
  const violating = i % 13 === 0;
  return violating
    ? { message: m, violations: Array.from({ length: 1 + (i % 3) }, () => ({ path: '/properties/x', rule: 'required', message: 'x is required' })) }
    : { message: m };
}

describe('the assertions count whole blocks from the message tallies and read only the blocks that may match', () => {
  let h: Harness;
  let assertions: Assertions;
  let sources: number[];

  const commit = (from: number, to: number): void => {
    for (let start = from; start < to; start += PER_REQUEST) {
      const items = [];
      for (let i = start; i < Math.min(to, start + PER_REQUEST); i++) {
        const { message: m, violations } = message(i);
        items.push({ message: m, json: JSON.stringify(m), destinationIds: [], ...(violations ? { violations } : {}) });
      }
      // One second per request: since and until cut through blocks.
      const receivedAt = T0 + Math.floor(start / PER_REQUEST) * 1000;
      const sourceId = sources[Math.floor(start / PER_REQUEST) % 3 === 0 ? 1 : 0] as number;
      h.engine.stores.log.commitRequest({ sourceId, path: '/v1/batch', receivedAt, httpStatus: 200, bytes: 0, userAgent: 'test' }, sourceId, items, [], 0);
    }
  };
  const tallyAll = (): void => {
    while (!h.engine.stores.tallies.tallyOwed(5_000)) {
      // the rest
    }
  };
  /** The tallies kept against the same sums made from the messages now: equal counts, bounds that hold. */
  const assertTalliesExact = (label: string): void => {
    const { below, through } = h.engine.stores.tallies.range();
    const fresh = h.inspect.all<{ k: string; n: number; v: number; first: number; last: number }>(
      `SELECT type || '|' || COALESCE(event, '') || '|' || source_id || '|' || (id >> 14) AS k, COUNT(*) AS n,
         SUM(violations IS NOT NULL) AS v, MIN(received_at) AS first, MAX(received_at) AS last
       FROM messages WHERE id >= ? AND id <= ? GROUP BY k ORDER BY k`,
      below,
      through,
    );
    const kept = h.inspect.all<{ k: string; n: number; v: number; first: number; last: number }>(
      `SELECT type || '|' || event || '|' || source_id || '|' || block AS k, messages AS n, violating AS v, first_at AS first, last_at AS last
       FROM message_tallies WHERE messages > 0 ORDER BY k`,
    );
    assert.deepEqual(
      kept.map((r) => [r.k, r.n, r.v]),
      fresh.map((r) => [r.k, r.n, r.v]),
      `${label}: the tallies equal the messages' own counts`,
    );
    kept.forEach((r, i) => assert.ok(r.first <= (fresh[i]?.first ?? 0) && r.last >= (fresh[i]?.last ?? 0), `${label}: ${r.k}'s times hold`));
  };

  before(async () => {
    // The reads run here, on the engine's thread, so that a test can count the loop's turns (and
    // the background tallying waits for them); the read worker's answers are compared in reads/off-thread.test.ts.
    h = await startHarness(
      {
        sources: [
          { name: 'web', writeKey: 'wk_web' },
          { name: 'server', writeKey: 'wk_server' },
        ],
        destinations: [],
      },
      { readWorkerEntry: null },
    );
    sources = h.engine.stores.config.listSources().map((s) => s.id);
    assertions = createAssertions(h.engine);
    commit(0, MESSAGES);
    tallyAll();
  });
  after(async () => {
    await h.close();
  });

  const FILTERS: { input: Record<string, unknown>; filter: Partial<MessageQueryFilter> }[] = [
    { input: {}, filter: {} },
    { input: { type: 'track' }, filter: { type: 'track' } },
    { input: { event: 'Rare Event' }, filter: { event: 'Rare Event' } },
    { input: { event: 'Never Sent' }, filter: { event: 'Never Sent' } },
    { input: { type: 'identify', source: 'server' }, filter: { type: 'identify', source: 'server' } },
    { input: { source: 'server' }, filter: { source: 'server' } },
    { input: { violations: 'any' }, filter: { violations: 'any' } },
    { input: { type: 'track', violations: 'none' }, filter: { type: 'track', violations: 'none' } },
    { input: { since: T0 + 20_500, until: T0 + 70_000 }, filter: { since: T0 + 20_500, until: T0 + 70_000 } },
    { input: { event: 'Signed Up', since: T0 + 33_000 }, filter: { event: 'Signed Up', since: T0 + 33_000 } },
    { input: { type: 'track', anonymousId: 'anon-3' }, filter: { type: 'track', anonymousId: 'anon-3' } },
    { input: { userId: 'user_17' }, filter: { userId: 'user_17' } },
  ];

  /** Every filter, from the start and from a marker inside a block: the service's answers equal one statement's. */
  const assertSameAnswers = async (label: string): Promise<void> => {
    const store = h.engine.stores.assertions;
    const mid = TALLY_BLOCK_IDS + 1_234;
    store.mark(`mid-${label}`, T0);
    // A marker is made at the newest message; this one is moved inside the second block.
    const marker = TALLY_BLOCK_IDS + 4_321;
    h.inspect.run('UPDATE log_markers SET message_id = ? WHERE name = ?', marker, `mid-${label}`);
    for (const { input, filter: f } of FILTERS) {
      for (const [markerName, afterMessageId] of [
        [undefined, null],
        [`mid-${label}`, marker],
      ] as const) {
        const filter: MessageQueryFilter = { ...NO_FILTER, ...f, afterMessageId };
        const name = `${label} ${JSON.stringify(input)}${markerName ? ' after a marker' : ''}`;
        const given = { ...input, ...(markerName ? { marker: markerName } : {}) };
        assert.equal(await assertions.count(given), store.countMessages(filter), `${name}: count`);
        for (const afterId of [0, mid]) {
          const page = await assertions.messages({ ...given, after: afterId, limit: 30 });
          assert.deepEqual(
            page.messages.map((m) => m.id),
            store.messages(filter, afterId, 30).map((m) => m.id),
            `${name} after ${afterId}: page`,
          );
        }
      }
    }
    assert.deepEqual(await assertions.violationCounts(), store.violationCounts(0), `${label}: violation counts`);
    const within = await assertions.violationCountsWithin(60_000);
    assert.deepEqual(within, { counts: store.violationCounts(0), from: null }, `${label}: violation counts within a budget`);
  };

  test('tallied: counts, pages and violation counts equal one statement, from the start and after a marker inside a block', async () => {
    assertTalliesExact('after the commits');
    await assertSameAnswers('tallied');
  });

  test('an event nobody sent, over a tallied log: answered from the tallies without reading the log', async () => {
    const page = await turnsDuring(() => assertions.messages({ event: 'Never Sent' }));
    assert.deepEqual(page.value, { messages: [], next: null });
    assert.equal(page.turns, 0, 'no window of rows was read');
    const count = await turnsDuring(() => assertions.count({ type: 'track' }));
    assert.equal(count.value, h.engine.stores.assertions.countMessages({ ...NO_FILTER, type: 'track' }));
    assert.ok(count.turns <= 2, `whole blocks counted from the tallies: the loop turned ${count.turns} times`);
  });

  test('removed messages leave the tallies (the trigger), and messages not tallied yet are read row by row', async () => {
    const doomed = h.inspect.all<{ id: number }>('SELECT id FROM messages WHERE id % 17 = 0 OR (id > ? AND id < ?)', 2 * TALLY_BLOCK_IDS, 2 * TALLY_BLOCK_IDS + 900).map((r) => r.id);
    h.engine.stores.transaction(() => h.engine.stores.retention.removeMessages(doomed));
    assertTalliesExact('after a removal');
    // Newer messages, committed and not tallied yet: the tail above `through`.
    commit(MESSAGES, MESSAGES + 2_500);
    assert.ok(h.engine.stores.tallies.range().through < h.engine.stores.assertions.lastMessageId(), 'a tail is owed');
    await assertSameAnswers('with an owed tail');
    tallyAll();
    assertTalliesExact('the tail tallied');
  });

  test('rows emptied by a removal take the times of the messages tallied into them next, not their old ones', async () => {
    const all = h.inspect.all<{ id: number }>('SELECT id FROM messages').map((r) => r.id);
    h.engine.stores.transaction(() => h.engine.stores.retention.removeMessages(all));
    assert.equal(h.inspect.value('SELECT COALESCE(SUM(messages), 0) FROM message_tallies'), 0, 'every tally is back at zero');
    // The same ids again (given from the largest left: 1 up), an hour later.
    const later = T0 + 3_600_000;
    const items = Array.from({ length: 2 * TALLY_BLOCK_IDS }, (_, i) => {
      const { message: m } = message(i);
      return { message: { ...m, messageId: `again-${i}` }, json: JSON.stringify(m), destinationIds: [] };
    });
    const sourceId = sources[0] as number;
    h.engine.stores.log.commitRequest({ sourceId, path: '/v1/batch', receivedAt: later, httpStatus: 200, bytes: 0, userAgent: 'test' }, sourceId, items, [], 0);
    tallyAll();
    assertTalliesExact('refilled');
    const stale = h.inspect.value('SELECT COUNT(*) FROM message_tallies WHERE messages > 0 AND first_at <> ?', later);
    assert.equal(stale, 0, 'no row kept a time from before the removal');
    const since = await turnsDuring(() => assertions.count({ type: 'track', since: later }));
    assert.equal(since.value, h.engine.stores.assertions.countMessages({ ...NO_FILTER, type: 'track', since: later }));
    assert.equal(since.turns, 0, 'whole blocks inside the times: counted from the tallies');
    commit(MESSAGES, MESSAGES + 3 * TALLY_BLOCK_IDS);
    tallyAll();
  });

  test('a log from before the tallies (as migration 23 leaves it) is read row by row, then tallied downwards in the background', async () => {
    h.inspect.exec(`DELETE FROM message_tallies;
      UPDATE message_tally_range SET below = (SELECT MAX(id) + 1 FROM messages), through = (SELECT MAX(id) FROM messages);`);
    await assertSameAnswers('untallied');
    // Half of it tallied: below inside the log.
    h.engine.stores.tallies.backfill(2 * TALLY_BLOCK_IDS + 77);
    assert.ok(h.engine.stores.tallies.range().below > 1);
    assertTalliesExact('half backfilled');
    await assertSameAnswers('half backfilled');
    while (!h.engine.stores.tallies.backfill(10_000)) {
      // the rest
    }
    assert.equal(h.engine.stores.tallies.range().below, 0);
    assertTalliesExact('backfilled');
    await assertSameAnswers('backfilled');
  });
});

test("a page after a marker has one lower bound on the id, the later of the marker's and the page's: SQLite seeks on it", () => {
  const marked = { ...NO_FILTER, event: 'x', afterMessageId: 10 };
  const messages = messagePageSql(marked, 500, 30, 9_000);
  assert.equal(messages.sql.split('m.id > ?').length - 1, 1, messages.sql);
  assert.ok(messages.params.includes(500) && !messages.params.includes(10));
  assert.equal(messagePageSql(marked, 3, 30).params.includes(10), true, 'the marker when it is the later');
  const deliveries = deliveryPageSql(NO_FILTER, { afterDeliveryId: 10, status: null, destination: null }, 500, 30, 9_000);
  assert.equal(deliveries.sql.split('d.id > ?').length - 1, 1, deliveries.sql);
  assert.ok(deliveries.params.includes(500) && !deliveries.params.includes(10));
});

test('planSegments: the newest block is whole up to the tallies\' last id, and only when the range reaches it', () => {
  const B = TALLY_BLOCK_IDS;
  const blocks = [0, 1, 2].map((block) => ({ block, matches: 5, firstAt: 0, lastAt: 10 }));
  const tallied = { below: 1, through: 2 * B + 500 };
  const plan = (high: number) => planSegments({ low: 0, high, tallied, blocks, since: null, until: null, countable: true });
  // The log's newest id is the tallies' last: block 2 counts from its tally, nothing is read.
  assert.deepEqual(plan(2 * B + 500), [{ after: 0, through: 2 * B + 500, blocks: [0, 1, 2] }]);
  // Newer ids not tallied yet: the tail is read, block 2 still counts whole.
  assert.deepEqual(plan(2 * B + 700), [
    { after: 0, through: 2 * B + 500, blocks: [0, 1, 2] },
    { after: 2 * B + 500, through: 2 * B + 700, blocks: [], times: null },
  ]);
  // A range that stops inside block 2, before the tallies' last id: its rows are read.
  assert.deepEqual(plan(2 * B + 450), [
    { after: 0, through: 2 * B - 1, blocks: [0, 1] },
    { after: 2 * B - 1, through: 2 * B + 450, blocks: [], times: { firstAt: 0, lastAt: 10 } },
  ]);
});

test('planSegments: every id of (low, high] that may match is in exactly one segment, and a whole block is only one fully inside the tallies and the times', () => {
  const B = TALLY_BLOCK_IDS;
  const arbitrary = fc.record({
    low: fc.integer({ min: 0, max: 8 * B }),
    span: fc.integer({ min: 0, max: 8 * B }),
    below: fc.integer({ min: 0, max: 9 * B }),
    through: fc.integer({ min: 0, max: 9 * B }),
    blocks: fc.uniqueArray(fc.record({ block: fc.integer({ min: 0, max: 9 }), matches: fc.integer({ min: 0, max: 3 }), firstAt: fc.integer({ min: 0, max: 50 }), width: fc.integer({ min: 0, max: 50 }) }), {
      selector: (b) => b.block,
    }),
    since: fc.option(fc.integer({ min: 0, max: 100 })),
    until: fc.option(fc.integer({ min: 0, max: 100 })),
    countable: fc.boolean(),
  });
  fc.assert(
    fc.property(arbitrary, (a) => {
      const high = a.low + a.span;
      const tallied = { below: Math.min(a.below, a.through + 1), through: a.through };
      const blocks = [...a.blocks].sort((x, y) => x.block - y.block).map((b) => ({ block: b.block, matches: b.matches, firstAt: b.firstAt, lastAt: b.firstAt + b.width }));
      const segments = planSegments({ low: a.low, high, tallied, blocks, since: a.since, until: a.until, countable: a.countable });
      // Ascending, disjoint, inside (low, high].
      let edge = a.low;
      for (const s of segments) {
        assert.ok(s.after >= edge && s.through > s.after && s.through <= high);
        edge = s.through;
      }
      const covered = (id: number): boolean => segments.some((s) => s.after < id && id <= s.through);
      const isTallied = (id: number): boolean => id >= tallied.below && id <= tallied.through;
      const blockOf = (id: number) => blocks.find((b) => b.block === Math.floor(id / B));
      const since = a.since ?? -Infinity;
      const until = a.until ?? Infinity;
      // Every id that may match is covered: untallied ones, and tallied ones in a block that may match in the times asked.
      for (let id = a.low + 1; id <= high; id += 97) {
        const b = blockOf(id);
        const mayMatch = !isTallied(id) || (b !== undefined && b.matches > 0 && b.lastAt >= since && b.firstAt < until);
        if (mayMatch) assert.ok(covered(id), `id ${id} may match and is read`);
      }
      for (const s of segments) {
        if (s.blocks.length === 0 && s.times) {
          // Bounds given: every id tallied, and every block's matches inside them.
          for (let id = s.after + 1; id <= s.through; id += 97) {
            assert.ok(isTallied(id), `id ${id} of a segment with times is tallied`);
            const b = blockOf(id);
            if (b !== undefined) assert.ok(b.firstAt >= s.times.firstAt && b.lastAt <= s.times.lastAt, `block ${b.block} inside the segment's times`);
          }
        }
        if (s.blocks.length === 0) continue;
        assert.ok(a.countable, 'whole blocks only when their tallies count exactly');
        // A block's ids up to the tallies' last one: the newest block is whole up to there.
        const lastOf = (block: number): number => Math.min((block + 1) * B - 1, tallied.through);
        const ids = s.blocks.flatMap((block) => [Math.max(block * B, 1), lastOf(block)]);
        assert.equal(Math.min(...ids) - 1, s.after, 'the segment is exactly its blocks');
        assert.equal(Math.max(...ids), s.through);
        for (const block of s.blocks) {
          const b = blocks.find((x) => x.block === block);
          assert.ok(b && b.firstAt >= since && b.lastAt < until, 'a whole block lies inside the times');
          assert.ok(isTallied(Math.max(block * B, 1)) && isTallied(lastOf(block)), 'a whole block is tallied');
          assert.ok(Math.max(block * B, 1) > a.low && lastOf(block) <= high, 'a whole block is inside the range');
        }
      }
    }),
    { numRuns: 500 },
  );
});
