import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../testing/harness';
import { turnsDuring } from '../testing/wait';
import { ANY_MESSAGE, type DeliveryQueryExtra, type MessageQueryFilter } from '../store/assertions';
import type { DeliveryStatus, DeliveryUpdate } from '../store/log-store';
import { RARE_STATUSES } from '../store/rare-statuses';
import { commitSamples } from '../testing/assertion-log';
import { createAssertions, type Assertions } from './service';

const MESSAGES = 6_000;
const AT = Date.UTC(2026, 10, 1);
/** A retry far past the test's clock: the scheduler never takes these deliveries up again. */
const LATER = Date.UTC(2030, 0, 1);

/** Where the delivery of message i ends: a few of each rare status among the succeeded. */
const statusOf = (i: number): DeliveryStatus => (i % 47 === 0 ? 'failed' : i % 61 === 1 ? 'discarded' : i % 83 === 2 ? 'retrying' : 'succeeded');

const update = (deliveryId: number, status: DeliveryStatus): DeliveryUpdate => ({
  deliveryId,
  status,
  nextAttemptAt: status === 'retrying' ? LATER : null,
  pendingUrls: null,
  lastHttpStatus: status === 'succeeded' ? 200 : 500,
  lastError: status === 'succeeded' ? null : 'HTTP 500',
  decision: null,
  finishedAt: status === 'retrying' ? null : AT,
});

describe('deliveries in a rare status (retrying, failed, discarded) are read from their list, and answer as reading every row does', () => {
  let h: Harness;
  let assertions: Assertions;
  const filterOf = (f: Partial<MessageQueryFilter>): MessageQueryFilter => ({ ...ANY_MESSAGE, ...f });
  const NO_EXTRA: DeliveryQueryExtra = { afterDeliveryId: null, status: null, destination: null };

  /** Commits messages [from, to) with one delivery each, then moves each delivery to its status through the rounds' write path. */
  const commit = (from: number, to: number): void => {
    const log = h.engine.stores.log;
    const before = h.engine.stores.assertions.lastDeliveryId();
    for (let start = from; start < to; start += 500) commitSamples(h, start, Math.min(to, start + 500), AT + start);
    const made = h.inspect.all<{ id: number; message_id: string }>('SELECT d.id, m.message_id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE d.id > ?', before);
    log.finishRounds([], made.map((d) => update(d.id, statusOf(Number(d.message_id.slice(2))))));
  };

  /** The list holds exactly the deliveries in a rare status. */
  const assertListExact = (label: string): void => {
    const list = h.inspect.all('SELECT status, id, message_id FROM rare_status_deliveries ORDER BY status, id');
    const rows = h.inspect.all(`SELECT status, id, message_id FROM deliveries WHERE status IN ('retrying', 'failed', 'discarded') ORDER BY status, id`);
    assert.deepEqual(list, rows, `${label}: the list is the deliveries in a rare status`);
  };

  /** The service's answers for every status against one statement over every row. */
  const assertSameAnswers = async (label: string): Promise<void> => {
    const store = h.engine.stores.assertions;
    for (const status of [...RARE_STATUSES, 'succeeded'] as const) {
      for (const fields of [{}, { event: 'Order Completed' }, { type: 'identify' as const }, { userId: 'user_7' }]) {
        const what = `${label} ${status} ${JSON.stringify(fields)}`;
        for (const after of [0, 2_345]) {
          const page = await assertions.deliveries({ ...fields, status, after, limit: 37 });
          assert.deepEqual(
            page.deliveries.map((d) => d.id),
            store.deliveries(filterOf(fields), { ...NO_EXTRA, status }, after, 37).map((d) => d.id),
            `${what} after ${after}: deliveries`,
          );
          const messages = await assertions.messages({ ...fields, deliveryStatus: status, after, limit: 29 });
          assert.deepEqual(
            messages.messages.map((m) => m.id),
            store.messages(filterOf({ ...fields, deliveryStatus: status }), after, 29).map((m) => m.id),
            `${what} after ${after}: messages with a delivery in it`,
          );
        }
        assert.equal(await assertions.count({ ...fields, deliveryStatus: status }), store.countMessages(filterOf({ ...fields, deliveryStatus: status })), `${what}: count`);
      }
    }
  };

  before(async () => {
    h = await startHarness({
      sources: [{ name: 'web', writeKey: 'wk_web' }],
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], sharedSecret: 's', webhooks: [{ url: 'http://127.0.0.1:9/never', headers: {} }] }],
    });
    assertions = createAssertions(h.engine);
    commit(0, MESSAGES);
    // Replays of old messages, made long after them: their delivery ids are the newest, their messages among the oldest.
    const log = h.engine.stores.log;
    const replays = [3, 47, 94, 500, 1_234].map((messageIndex) => {
      const original = log.getDelivery(h.inspect.value<number>("SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.message_id = ?", `m-${messageIndex}`))!;
      return log.createReplay(original, { body: null, edited: false, targetUrl: null, now: AT + MESSAGES });
    });
    log.finishRounds([], replays.map((id, k) => update(id, k % 2 === 0 ? 'failed' : 'succeeded')));
  });
  after(async () => {
    await h.close();
  });

  test('pages, counts and messages with a delivery in the status equal one statement over every row', async () => {
    assert.ok(h.engine.stores.rareStatuses.ready(), 'a new log lists from its first delivery');
    assertListExact('committed');
    await assertSameAnswers('committed');
  });

  test('the list is what is read: a rare status is found in one turn of the loop, where the rows take several', async () => {
    const failed = await turnsDuring(() => assertions.deliveries({ status: 'failed', event: 'Viewed', limit: 1_000 }));
    assert.ok(failed.value.deliveries.length > 0);
    // The windows start at 2,000 ids: the list answers in the first, the rows need several.
    const succeeded = await turnsDuring(() => assertions.deliveries({ status: 'succeeded', event: 'Viewed', limit: 5_000 }));
    assert.ok(succeeded.turns >= 1, `the rows: the loop turned ${succeeded.turns} times`);
    const saved = h.inspect.all<{ status: string; id: number; message_id: number | null }>('SELECT status, id, message_id FROM rare_status_deliveries');
    h.inspect.exec('DELETE FROM rare_status_deliveries');
    try {
      assert.deepEqual((await assertions.deliveries({ status: 'failed' })).deliveries, [], 'with the list emptied, nothing is found: the list drives');
      assert.equal(await assertions.count({ deliveryStatus: 'discarded' }), 0);
    } finally {
      for (const r of saved) h.inspect.run('INSERT INTO rare_status_deliveries (status, id, message_id) VALUES (?, ?, ?)', r.status, r.id, r.message_id);
    }
    assertListExact('restored');
  });

  test('moves, replays and removals keep the list exact', async () => {
    const log = h.engine.stores.log;
    const ids = h.inspect.all<{ id: number; status: DeliveryStatus }>('SELECT id, status FROM deliveries ORDER BY id LIMIT 400');
    // Retrying to failed and back to retrying, failed to succeeded (a retry that worked), succeeded to discarded: every pair of lists.
    const next: Record<DeliveryStatus, DeliveryStatus> = { retrying: 'failed', failed: 'succeeded', discarded: 'retrying', succeeded: 'discarded', pending: 'failed', in_flight: 'retrying' };
    log.finishRounds([], ids.filter((d) => d.id % 3 === 0).map((d) => update(d.id, next[d.status])));
    assertListExact('moved');
    const doomed = h.inspect.all<{ id: number }>("SELECT DISTINCT message_id AS id FROM deliveries WHERE status IN ('failed', 'discarded') AND message_id % 2 = 0").map((r) => r.id);
    assert.ok(doomed.length > 10);
    h.engine.stores.transaction(() => h.engine.stores.retention.removeMessages(doomed));
    assertListExact('removed');
    await assertSameAnswers('moved and removed');
  });

  test('a log from before the list (as migration 28 leaves it) is read row by row, then listed downwards in the background', async () => {
    h.inspect.exec('DELETE FROM rare_status_deliveries; UPDATE rare_status_backfill SET below = (SELECT MAX(id) + 1 FROM deliveries);');
    const rare = h.engine.stores.rareStatuses;
    assert.equal(rare.ready(), false);
    await assertSameAnswers('not listed');
    assert.equal(rare.backfill(2_500), false);
    assert.equal(rare.ready(), false, 'half listed: not read yet');
    // Deliveries below the listed part move while it is listed: the triggers and the listing agree.
    const low = h.inspect.all<{ id: number; status: DeliveryStatus }>('SELECT id, status FROM deliveries WHERE id < 200 ORDER BY id');
    h.engine.stores.log.finishRounds([], low.filter((d) => d.id % 5 === 0).map((d) => update(d.id, d.status === 'failed' ? 'succeeded' : 'failed')));
    await assertSameAnswers('half listed');
    while (!rare.backfill(1_000)) {
      // the rest
    }
    assert.equal(rare.ready(), true);
    assertListExact('listed');
    await assertSameAnswers('listed');
  });

  test('Clear log takes the failed and discarded out of the list, and keeps the retrying it keeps', async () => {
    await assertions.reset({ clear: true });
    assert.equal(h.inspect.value("SELECT COUNT(*) FROM rare_status_deliveries WHERE status <> 'retrying'"), 0);
    assert.ok(h.inspect.value("SELECT COUNT(*) FROM rare_status_deliveries WHERE status = 'retrying'") > 0, 'a retrying delivery stays with its message');
    assertListExact('cleared');
    commit(0, 300);
    assertListExact('after Clear log');
    await assertSameAnswers('after Clear log');
  });
});
