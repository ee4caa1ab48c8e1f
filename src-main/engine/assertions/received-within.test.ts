import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../testing/harness';
import { turnsDuring } from '../testing/wait';
import { ANY_MESSAGE, type DeliveryQueryExtra, type MessageQueryFilter } from '../store/assertions';
import { commitSamples } from '../testing/assertion-log';
import { createAssertions, TIME_CANDIDATES_AT_MOST, type Assertions } from './service';

const AT = Date.UTC(2026, 10, 1);
const PER_REQUEST = 500;
const REQUESTS = 40;

describe("a filter's times are read through the requests' time index when few messages fall within them", () => {
  let h: Harness;
  let assertions: Assertions;
  const filterOf = (f: Partial<MessageQueryFilter>): MessageQueryFilter => ({ ...ANY_MESSAGE, ...f });
  const NO_EXTRA: DeliveryQueryExtra = { afterDeliveryId: null, status: null, destination: null };
  let next = 0;

  /** One request of PER_REQUEST messages from a source, received at `at`; with `appendTo`, joining that request. */
  const commit = (sourceName: string, at: number, appendTo?: number): number => {
    next += PER_REQUEST;
    return commitSamples(h, next - PER_REQUEST, next, at, { source: sourceName, ...(appendTo === undefined ? {} : { appendTo }) });
  };

  /** The table holds every message's time, and nothing else. */
  const assertTimesExact = (label: string): void => {
    assert.deepEqual(
      h.inspect.all('SELECT received_at, id FROM message_times ORDER BY received_at, id'),
      h.inspect.all('SELECT received_at, id FROM messages ORDER BY received_at, id'),
      `${label}: the times are the messages'`,
    );
  };

  before(async () => {
    h = await startHarness({
      sources: [
        { name: 'web', writeKey: 'wk_web' },
        { name: 'ios', writeKey: 'wk_ios' },
      ],
      destinations: [{ name: 'off', enabled: false, sources: ['web', 'ios'], sharedSecret: 's', webhooks: [{ url: 'http://127.0.0.1:9/never', headers: {} }] }],
    },
    // The turns counted here are the engine thread's own reads; a read worker's replies are turns
    // too, and whether it answers yet depends on how fast it started (reads/off-thread.test.ts
    // compares its answers).
    { readWorkerEntry: null });
    assertions = createAssertions(h.engine);
    let sync = 0;
    for (let k = 0; k < REQUESTS; k++) {
      commit(k % 4 === 3 ? 'ios' : 'web', AT + k * 1_000);
      // A clock set back: a request received "earlier" than the one before it, its ids the newest.
      if (k === 30) commit('ios', AT + 5_500);
      // An audience sync's request: made at 33 s, its second slice received at 36.5 s.
      if (k === 33) sync = commit('web', AT + 33_000);
      if (k === 36) commit('web', AT + 36_500, sync);
    }
    h.engine.stores.searchIndex.settle();
    h.engine.stores.tallies.tallyOwed(1_000_000);
  });
  after(async () => {
    await h.close();
  });

  const ranges: { label: string; since: number | null; until: number | null; few: boolean }[] = [
    { label: 'the last request', since: AT + (REQUESTS - 1) * 1_000, until: null, few: true },
    { label: 'a second in the middle, with a request committed out of order', since: AT + 5_000, until: AT + 6_000, few: true },
    { label: 'the first two seconds', since: null, until: AT + 2_000, few: true },
    { label: 'twenty seconds: more than the index is read for', since: AT + 10_000, until: AT + 30_000, few: false },
    { label: "a second within an audience sync's request, after it was made", since: AT + 36_200, until: AT + 36_700, few: true },
    { label: 'an empty second', since: AT + 100_000, until: AT + 101_000, few: true },
  ];

  const assertSameAnswers = async (label: string): Promise<void> => {
    const store = h.engine.stores.assertions;
    for (const range of ranges) {
      const { since, until } = range;
      for (const fields of [{}, { event: 'Order Completed' }, { source: 'ios' }, { type: 'identify' as const }]) {
        const what = `${label}: ${range.label} ${JSON.stringify(fields)}`;
        const times = { ...(since === null ? {} : { since }), ...(until === null ? {} : { until }) };
        const filter = filterOf({ ...fields, since, until });
        assert.equal(await assertions.count({ ...fields, ...times }), store.countMessages(filter), `${what}: count`);
        for (const afterId of [0, 3_210, 15_400]) {
          const page = await assertions.messages({ ...fields, ...times, after: afterId, limit: 45 });
          assert.deepEqual(
            page.messages.map((m) => m.id),
            store.messages(filter, afterId, 45).map((m) => m.id),
            `${what} after ${afterId}: page`,
          );
          const deliveries = await assertions.deliveries({ ...fields, ...times, after: afterId, limit: 45 });
          assert.deepEqual(
            deliveries.deliveries.map((d) => d.id),
            store.deliveries(filter, NO_EXTRA, afterId, 45).map((d) => d.id),
            `${what} after ${afterId}: deliveries`,
          );
        }
      }
    }
  };

  test('counts, pages and deliveries equal one statement over every row', async () => {
    assertTimesExact('committed');
    await assertSameAnswers('committed');
  });

  test('few messages within the times are found through the index at once; many go by the tallies and the rows', async () => {
    const store = h.engine.stores.assertions;
    assert.ok(store.lastMessageId() > TIME_CANDIDATES_AT_MOST, 'the log holds more ids than the index is read for');
    const few = await turnsDuring(() => assertions.count({ event: 'Viewed', since: AT + 5_000, until: AT + 6_000 }));
    assert.equal(few.value, store.countMessages(filterOf({ event: 'Viewed', since: AT + 5_000, until: AT + 6_000 })));
    assert.ok(few.value > 0);
    assert.equal(few.turns, 0, `through the time index: the loop turned ${few.turns} times`);
    // The out-of-order request's messages are among them, though their ids are the newest.
    const newest = await assertions.messages({ since: AT + 5_000, until: AT + 6_000, after: 30 * PER_REQUEST, limit: 1_000 });
    assert.equal(newest.messages.length, PER_REQUEST, "the request received out of order is found by its time, not by its ids' place");
    const many = await turnsDuring(() => assertions.count({ event: 'Viewed', since: AT + 10_000, until: AT + 30_000 }));
    assert.equal(many.value, store.countMessages(filterOf({ event: 'Viewed', since: AT + 10_000, until: AT + 30_000 })));
  });

  test('a log from before the times (as migration 29 leaves it) is read by the tallies, then taken in downwards in the background', async () => {
    h.inspect.exec('DELETE FROM message_times; UPDATE message_times_backfill SET below = (SELECT MAX(id) + 1 FROM messages), next = 0;');
    const times = h.engine.stores.messageTimes;
    assert.equal(times.ready(), false);
    await assertSameAnswers('not taken in');
    assert.equal(times.backfill(7_000), false);
    // Messages removed while it is taken in: below it and above it.
    const doomed = h.inspect.all<{ id: number }>('SELECT id FROM messages WHERE id % 97 = 0').map((r) => r.id);
    h.engine.stores.transaction(() => h.engine.stores.retention.removeMessages(doomed));
    await assertSameAnswers('half taken in');
    while (!times.backfill(3_000)) {
      // the rest
    }
    assert.equal(times.ready(), true);
    assertTimesExact('taken in');
    await assertSameAnswers('taken in');
  });

  test('messages committed after the candidates were found are read row by row', async () => {
    const since = AT + 200_000;
    commit('web', since + 10);
    const first = await assertions.count({ since });
    assert.equal(first, PER_REQUEST);
    commit('web', since + 20);
    assert.equal(await assertions.count({ since }), 2 * PER_REQUEST);
    const page = await assertions.messages({ since, after: h.engine.stores.assertions.lastMessageId() - 10, limit: 100 });
    assert.equal(page.messages.length, 10);
  });
});
