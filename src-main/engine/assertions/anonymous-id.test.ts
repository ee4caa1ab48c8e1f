import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startHarness, type Harness } from '../testing/harness';
import { turnsDuring } from '../testing/wait';
import { ANY_MESSAGE, byIndexThenRows, partsOverlapping, type IndexedCandidates, type MessageQueryFilter } from '../store/assertions';
import type { TextPart } from '../store/search-index';
import type { InboundMessage } from '../../../src-shared/events';
import { CANDIDATES_PER_BATCH, createAssertions, type Assertions } from './service';

/** Messages per part of the search index here: the log spans several parts. */
const PART = 2_000;
const MESSAGES = 9_000;

const anonymousIdOf = (i: number): string =>
  // "anon-1" is inside "anon-10" and "anon-12": the index finds them all, the exact check keeps one.
  // A NUL ends what the index holds of a field: such a value is read row by row.
  i % 10 === 9 ? `ANON-${i % 13}` : i % 101 === 0 ? `nul\u0000${i % 2}` : `anon-${i % 13}`;

function message(i: number): InboundMessage {
  return {
    type: i % 4 === 0 ? 'identify' : 'track',
    messageId: `m-${i}`,
    // A user's messages have an index of their own; these have an anonymousId and, on most, a userId too.
    userId: i % 3 === 0 ? null : `user_${i % 50}`,
    anonymousId: anonymousIdOf(i),
    ...(i % 4 === 0 ? {} : { event: 'Viewed anon-1 page' }),
    properties: {},
    context: {},
    integrations: {},
  } as unknown as InboundMessage;
}

const CONFIG = {
  sources: [{ name: 'web', writeKey: 'wk_web' }],
  destinations: [{ name: 'off', enabled: false, sources: ['web'], sharedSecret: 's', webhooks: [{ url: 'http://127.0.0.1:9/never', headers: {} }] }],
};

/** Messages [from, to) committed through the store, 500 a request. */
function commitMessages(h: Harness, from: number, to: number): void {
  const source = h.engine.stores.config.listSources()[0]!.id;
  const destination = h.engine.stores.config.listDestinations()[0]!.id;
  for (let start = from; start < to; start += 500) {
    const items = [];
    for (let i = start; i < Math.min(to, start + 500); i++) {
      const m = message(i);
      // Deliveries for two messages in three, to a destination that is off (they are discarded, and stay).
      items.push({ message: m, json: JSON.stringify(m), destinationIds: i % 3 === 2 ? [] : [destination] });
    }
    h.engine.stores.log.commitRequest({ sourceId: source, path: '/v1/batch', receivedAt: Date.UTC(2026, 10, 1) + start, httpStatus: 200, bytes: 0, userAgent: 'test' }, source, items, [], 0);
  }
}

describe('an anonymousId is looked up through the search index, and answers as reading every row does', () => {
  let h: Harness;
  let assertions: Assertions;

  const commit = (from: number, to: number): void => commitMessages(h, from, to);

  before(async () => {
    // The candidates are read here, on the engine's thread, so that a test can count the loop's turns; the worker's are checked below.
    h = await startHarness(CONFIG, { searchIndexPartMessages: PART, readWorkerEntry: null });
    assertions = createAssertions(h.engine);
    commit(0, MESSAGES);
    // What the engine's follow-up does a moment after each commit.
    h.engine.stores.searchIndex.settle();
    assert.equal(h.engine.stores.searchIndex.through(), h.engine.stores.assertions.lastMessageId());
  });
  after(async () => {
    await h.close();
  });

  const filterOf = (f: Partial<MessageQueryFilter>): MessageQueryFilter => ({ ...ANY_MESSAGE, ...f });

  test('counts and pages equal one statement over the rows, for values the index finds in others, other cases and values under three characters', async () => {
    const store = h.engine.stores.assertions;
    const values = ['anon-1', 'anon-12', 'ANON-1', 'anon-', 'nobody-at-all', 'a1', 'on', 'nul\u00001', 'nul\u0000'];
    for (const anonymousId of values) {
      for (const extra of [{}, { type: 'track' }, { userId: 'user_1' }]) {
        const filter = filterOf({ anonymousId, ...extra });
        const label = JSON.stringify({ anonymousId, ...extra });
        assert.equal(await assertions.count({ anonymousId, ...extra }), store.countMessages(filter), `${label}: count`);
        for (const afterId of [0, 3_333]) {
          const page = await assertions.messages({ anonymousId, ...extra, after: afterId, limit: 40 });
          assert.deepEqual(
            page.messages.map((m) => m.id),
            store.messages(filter, afterId, 40).map((m) => m.id),
            `${label} after ${afterId}: page`,
          );
        }
      }
    }
    assert.ok(h.engine.stores.searchIndex.parts().length >= 4, 'the log spans several parts of the index');
  });

  /** The service's deliveries for an anonymousId against one statement over every delivery. */
  const assertSameDeliveries = async (label: string): Promise<void> => {
    const store = h.engine.stores.assertions;
    const extra = { afterDeliveryId: null, status: null, destination: null };
    for (const anonymousId of ['anon-1', 'anon-12', 'ANON-3', 'nobody-at-all']) {
      for (const after of [0, 2_500]) {
        const page = await assertions.deliveries({ anonymousId, after, limit: 30 });
        assert.deepEqual(
          page.deliveries.map((d) => d.id),
          store.deliveries(filterOf({ anonymousId }), extra, after, 30).map((d) => d.id),
          `${label} ${anonymousId} after ${after}: deliveries`,
        );
        if (anonymousId === 'anon-1') assert.equal(page.deliveries.length, 30);
      }
    }
  };

  test("deliveries of an anonymousId: the deliveries of the index's candidates, as one statement over every delivery finds them", async () => {
    await assertSameDeliveries('indexed');
  });

  test('the index is read in one window where reading the rows takes several', async () => {
    const byIndex = await turnsDuring(() => assertions.count({ anonymousId: 'anon-7' }));
    assert.equal(byIndex.value, h.engine.stores.assertions.countMessages(filterOf({ anonymousId: 'anon-7' })));
    assert.equal(byIndex.turns, 0, `through the index: the loop turned ${byIndex.turns} times`);
    // Two characters: no trigram to look up, so the rows are read, a window at a time.
    const byRows = await turnsDuring(() => assertions.count({ anonymousId: 'a7' }));
    assert.equal(byRows.value, 0);
    assert.ok(byRows.turns >= 1, `row by row: the loop turned ${byRows.turns} times`);
  });

  test('the index gives its candidates in id order, within the range asked, a batch at a time, every match among them', async () => {
    const store = h.engine.stores.assertions;
    const match = h.engine.stores.deliveryViews.exactValueMatch('anon-5');
    assert.ok(match !== null);
    const indexed: IndexedCandidates = { parts: h.engine.stores.searchIndex.parts(), match, through: store.lastMessageId() };
    const exact = h.inspect.all<{ id: number }>("SELECT id FROM messages WHERE anonymous_id = 'anon-5' ORDER BY id").map((r) => r.id);
    for (const [after, through] of [
      [0, store.lastMessageId()],
      [PART - 1, 2 * PART + 1],
      [100, 150],
    ] as const) {
      const got = store.candidateIds(indexed, after, through, 100_000);
      assert.deepEqual(got, [...got].sort((x, y) => x - y), 'ascending');
      assert.ok(got.every((id) => id > after && id <= through), 'within the range');
      assert.deepEqual(
        exact.filter((id) => id > after && id <= through),
        got.filter((id) => exact.includes(id)),
        `(${after}, ${through}]: every match is a candidate`,
      );
      assert.deepEqual(store.candidateIds(indexed, after, through, 3), got.slice(0, 3), 'a batch is the first of them');
    }
    // "anon-1" is in anon-10 to anon-12 and in every track's event: more candidates than a batch.
    assert.ok(store.candidateIds(indexed, 0, store.lastMessageId(), 100_000).length < CANDIDATES_PER_BATCH);
    const many = await turnsDuring(() => assertions.count({ anonymousId: 'anon-1' }));
    assert.equal(many.value, store.countMessages(filterOf({ anonymousId: 'anon-1' })));
    assert.ok(many.turns >= 2, `several batches: the loop turned ${many.turns} times`);
  });

  test('ids past the index (committed, not taken in yet) are read row by row, and a removed message is gone from both', async () => {
    const store = h.engine.stores.assertions;
    const filter = filterOf({ anonymousId: 'anon-5' });
    const doomed = h.inspect.all<{ id: number }>("SELECT id FROM messages WHERE anonymous_id = 'anon-5' AND id % 2 = 0").map((r) => r.id);
    h.engine.stores.transaction(() => h.engine.stores.retention.removeMessages(doomed));
    assert.equal(await assertions.count({ anonymousId: 'anon-5' }), store.countMessages(filter));
    // Newer messages the index has not taken in: the service reads them row by row.
    commit(MESSAGES, MESSAGES + 700);
    assert.ok(h.engine.stores.searchIndex.through() < store.lastMessageId(), 'a tail is owed to the index');
    assert.equal(await assertions.count({ anonymousId: 'anon-5' }), store.countMessages(filter));
    const newest = await assertions.messages({ anonymousId: 'anon-5', after: MESSAGES - 300, limit: 100 });
    assert.deepEqual(
      newest.messages.map((m) => m.id),
      store.messages(filter, MESSAGES - 300, 100).map((m) => m.id),
    );
    assert.ok(newest.messages.some((m) => m.id > MESSAGES), 'the page reaches into the tail');
    await assertSameDeliveries('with a tail owed to the index');
    const tail = await assertions.deliveries({ anonymousId: 'anon-5', after: store.lastDeliveryId() - 400, limit: 100 });
    assert.ok(tail.deliveries.length > 0, "the tail's deliveries are found");
  });
});

test("the candidates' MATCH runs on the read worker, and the answers are those of one statement over the rows", async () => {
  const h = await startHarness(CONFIG, { searchIndexPartMessages: PART });
  try {
    commitMessages(h, 0, 5_000);
    h.engine.stores.searchIndex.settle();
    const store = h.engine.stores.assertions;
    const assertions = createAssertions(h.engine);
    // The worker starts at the first read sent to it; until it answers, the reads run here.
    const deadline = Date.now() + 60_000;
    while (h.engine.reads.stats().offThread === 0) {
      assert.equal(await assertions.count({ anonymousId: 'anon-3' }), store.countMessages({ ...ANY_MESSAGE, anonymousId: 'anon-3' }));
      assert.ok(Date.now() < deadline, 'the read worker answered within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const extra = { afterDeliveryId: null, status: null, destination: null };
    for (const anonymousId of ['anon-1', 'ANON-9', 'nobody-at-all']) {
      const filter = { ...ANY_MESSAGE, anonymousId };
      const before = h.engine.reads.stats();
      assert.equal(await assertions.count({ anonymousId }), store.countMessages(filter), `${anonymousId}: count`);
      const page = await assertions.messages({ anonymousId, after: 1_000, limit: 25 });
      assert.deepEqual(page.messages.map((m) => m.id), store.messages(filter, 1_000, 25).map((m) => m.id), `${anonymousId}: page`);
      const deliveries = await assertions.deliveries({ anonymousId, limit: 25 });
      assert.deepEqual(deliveries.deliveries.map((d) => d.id), store.deliveries(filter, extra, 0, 25).map((d) => d.id), `${anonymousId}: deliveries`);
      const after = h.engine.reads.stats();
      assert.ok(after.offThread >= before.offThread + 3, `${anonymousId}: ${after.offThread - before.offThread} reads on the worker`);
      assert.equal(after.fallback, before.fallback, `${anonymousId}: none on the engine's thread`);
    }
  } finally {
    await h.close();
  }
});

test('the parts a window asks are those that hold ids in it', () => {
  const parts: TextPart[] = [
    { part: 0, low: 1, name: 'p0' },
    { part: 1, low: 100, name: 'p1' },
    { part: 2, low: 200, name: 'p2' },
  ];
  assert.deepEqual(partsOverlapping(parts, 0, 99), ['p0']);
  assert.deepEqual(partsOverlapping(parts, 98, 100), ['p0', 'p1']);
  assert.deepEqual(partsOverlapping(parts, 99, 199), ['p1']);
  assert.deepEqual(partsOverlapping(parts, 150, 10_000), ['p1', 'p2']);
  assert.deepEqual(partsOverlapping(parts, 199, 200), ['p2']);
  assert.deepEqual(partsOverlapping(parts, 5, 5), [], 'an empty range');
  // The first part holds every id below the second's, whatever its own low (after a Clear log, ids start at 1 again).
  assert.deepEqual(partsOverlapping([{ part: 3, low: 500, name: 'p3' }, { part: 4, low: 900, name: 'p4' }], 0, 10), ['p3']);
});

test("a range splits at the index's edge into what the index answers and what is read row by row, in order, with nothing lost", () => {
  fc.assert(
    fc.property(fc.nat(1_000), fc.nat(1_000), fc.nat(1_200), (a, b, edge) => {
      const [after, through] = a <= b ? [a, b] : [b, a];
      const { indexed, rows } = byIndexThenRows(after, through, edge);
      const ids = (r: [number, number] | null): number[] => (r === null ? [] : Array.from({ length: r[1] - r[0] }, (_, k) => r[0] + k + 1));
      assert.deepEqual([...ids(indexed), ...ids(rows)], ids([after, through]));
      for (const id of ids(indexed)) assert.ok(id <= edge, 'the index answers only ids it holds');
      for (const id of ids(rows)) assert.ok(id > edge);
    }),
    { numRuns: 500, seed: 27 },
  );
});
