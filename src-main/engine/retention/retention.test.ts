/**
 * Retention on a real engine: a real SQLite file, a real receiver, the injected clock. Tests that
 * move time by days stop the retention timer and run its slices by hand: at one slice every 5 s,
 * a month of clock time would be half a million slices.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { ManualClock } from '../clock';
import { createEngineApi } from '../api';
import { configWith, startHarness, WRITE_KEY, type Harness } from '../testing/harness';
import { Receiver } from '../testing/receiver';
import { waitUntil } from '../testing/wait';
import { DAY_MS, MAX_IDLE_MS } from './plan';
import { createRetention, IDLE_INTERVAL_MS, NUDGE_DELAY_MS, WAL_MAX_WAIT_MS, WAL_POLL_MS } from './service';

const count = (h: Harness, table: string, where = '1'): number =>
  (h.inspect.get(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`) as { n: number }).n;
const statuses = (h: Harness): Record<string, number> => h.engine.stores.log.countDeliveriesByStatus();

function drain(h: Harness): { slices: number; maxMs: number } {
  let slices = 0;
  let maxMs = 0;
  for (;;) {
    const t = performance.now();
    const report = h.engine.retention.runSlice();
    maxMs = Math.max(maxMs, performance.now() - t);
    slices++;
    if (!report.more) return { slices, maxMs };
    assert.ok(slices < 1000, 'retention settles');
  }
}

test('messages older than the age limit go with their request, deliveries, attempts and track events; newer ones, profile ids and traits stay', async () => {
  const receiver = await new Receiver().start();
  const h = await startHarness(configWith(receiver.url));
  const clock = h.clock as ManualClock;
  const api = createEngineApi(h.engine);
  try {
    h.engine.retention.stop();
    assert.equal((await h.post('/v1/identify', { userId: 'u1', traits: { plan: 'pro' } })).status, 200);
    assert.equal((await h.post('/v1/batch', { batch: [1, 2].map((n) => ({ type: 'track', userId: 'u1', event: 'Order Completed', properties: { n } })) })).status, 200);
    await waitUntil(() => statuses(h).succeeded === 3, 'the first three deliveries');
    clock.advance(10 * DAY_MS);
    assert.equal((await h.post('/v1/track', { userId: 'u2', event: 'Signup' })).status, 200);
    await waitUntil(() => statuses(h).succeeded === 4, 'the fourth delivery');
    const profileBefore = await api.getProfile('u1');
    assert.deepEqual(profileBefore?.events.map((e) => [e.event, e.count]), [['Order Completed', 2]]);
    assert.equal(count(h, 'attempts'), 4);

    clock.advance(21 * DAY_MS);
    drain(h);

    assert.equal(count(h, 'messages'), 1, 'only the 21-day-old message is left');
    assert.equal(count(h, 'messages', "user_id = 'u2'"), 1);
    assert.equal(count(h, 'requests'), 1);
    assert.equal(count(h, 'deliveries'), 1);
    assert.equal(count(h, 'attempts'), 1);
    // The profile keeps its ids and traits; the track events left with their messages; nothing was
    // rebuilt nor read twice (the newer message's event is counted once).
    const profileAfter = await api.getProfile('u1');
    assert.deepEqual(profileAfter?.traits, { plan: 'pro' });
    assert.deepEqual(profileAfter?.events, []);
    assert.deepEqual((await api.getProfile('u2'))?.events.map((e) => [e.event, e.count]), [['Signup', 1]]);
    assert.equal((await h.post('/v1/track', { userId: 'u1', event: 'Order Completed' })).status, 200);
    assert.deepEqual((await api.getProfile('u1'))?.events.map((e) => [e.event, e.count]), [['Order Completed', 1]]);
    assert.deepEqual((await api.getProfile('u2'))?.events.map((e) => [e.event, e.count]), [['Signup', 1]], 'counted once, not twice');
  } finally {
    await h.close();
    await receiver.close();
  }
});

const FAILING_ATTEMPTS = "delivery_id IN (SELECT d.id FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE m.user_id = 'u-fail')";

test('a retrying delivery keeps its message, request and attempts; once it succeeds they go too', async () => {
  const receiver = await new Receiver().start();
  let failing = true;
  receiver.respond((req, res) => {
    res.writeHead(failing && req.body.includes('u-fail') ? 500 : 200);
    res.end();
  });
  const h = await startHarness({ ...configWith(receiver.url), delivery: { retryWindowMs: 7 * DAY_MS }, retention: { days: 1 } });
  const clock = h.clock as ManualClock;
  try {
    h.engine.retention.stop();
    assert.equal((await h.post('/v1/track', { userId: 'u-fail', event: 'E' })).status, 200);
    assert.equal((await h.post('/v1/track', { userId: 'u-ok', event: 'E' })).status, 200);
    await waitUntil(() => statuses(h).retrying === 1 && statuses(h).succeeded === 1, 'one retrying, one succeeded');

    clock.advance(2 * DAY_MS);
    // The retry that fell due is on its way; wait for its round to end so the state is settled.
    await waitUntil(
      () => count(h, 'attempts', FAILING_ATTEMPTS) >= 2 && count(h, 'attempts', "state = 'in_flight'") === 0 && statuses(h).retrying === 1,
      'the retry round to finish',
    );
    drain(h);
    assert.equal(count(h, 'messages'), 1);
    assert.equal(count(h, 'messages', "user_id = 'u-fail'"), 1, 'the retrying delivery still has its message');
    assert.equal(count(h, 'requests'), 1);
    assert.deepEqual(statuses(h), { retrying: 1 });
    assert.ok(count(h, 'attempts', FAILING_ATTEMPTS) >= 2, 'its attempts stay');
    assert.equal(count(h, 'attempts'), count(h, 'attempts', FAILING_ATTEMPTS), 'the succeeded delivery’s attempt went');

    failing = false;
    clock.advance(DAY_MS);
    await waitUntil(() => statuses(h).succeeded === 1, 'the retry to succeed');
    drain(h);
    assert.equal(count(h, 'messages'), 0);
    assert.equal(count(h, 'requests'), 0);
    assert.equal(count(h, 'deliveries'), 0);
    assert.equal(count(h, 'attempts'), 0);
  } finally {
    await h.close();
    await receiver.close();
  }
});

const databaseBytes = (h: Harness): number =>
  (h.inspect.pragma('page_count') as number) * (h.inspect.pragma('page_size') as number);

test('the file stays under a 2 MB cap while 6 MB of messages arrive; the newest stay; slices are short; the WAL is cut back', async (t) => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: WRITE_KEY }], destinations: [], retention: { megabytes: 2 } });
  const clock = h.clock as ManualClock;
  const file = join(h.dataDir, 'hookbench.sqlite');
  const filler = 'x'.repeat(3000);
  let maxFile = 0;
  try {
    for (let b = 0; b < 20; b++) {
      const batch = Array.from({ length: 100 }, (_, i) => ({ type: 'track', userId: `u${i}`, event: 'E', messageId: `m-${b}-${i}`, properties: { filler } }));
      assert.equal((await h.post('/v1/batch', { batch })).status, 200);
      // Retention runs on the clock: a slice every 5 s, quicker while it has a backlog.
      for (let k = 0; k < 3; k++) clock.advance(IDLE_INTERVAL_MS);
      // The file's size as of the last commit (the checkpointer copies it from the WAL on its own time).
      const size = databaseBytes(h);
      maxFile = Math.max(maxFile, size);
      assert.ok(size <= 2 * 1024 * 1024, `after batch ${b}: ${size} bytes`);
    }
    assert.ok(count(h, 'messages') > 0 && count(h, 'messages') < 2000, `${count(h, 'messages')} of 2000 messages kept`);
    assert.equal(count(h, 'messages', "message_id = 'm-19-99'"), 1, 'the newest message is kept');
    assert.equal(count(h, 'messages', "message_id = 'm-0-0'"), 0, 'the oldest went');
    const { maxMs } = drain(h);
    assert.ok(h.engine.retention.status().incrementalVacuum);
    // On disk too, once the checkpointer has caught up: the file under the cap, and the WAL, which
    // the inline checkpoint (about 16 MB) kept small, cut to nothing once the log is quiet.
    const walPeak = h.engine.retention.status().walBytes;
    assert.ok(walPeak <= 20 * 1024 * 1024, `WAL ${walPeak} bytes`);
    const settled = await waitUntil(() => {
      const s = h.engine.retention.status();
      return s.walBytes === 0 && statSync(file).size <= 2 * 1024 * 1024 && s;
    }, 'the checkpointer to copy the WAL and the main thread to truncate it');
    t.diagnostic(
      `largest database ${maxFile} bytes; file on disk ${settled.databaseBytes} bytes; WAL ${walPeak} → ${settled.walBytes} bytes; slowest slice after the load ${maxMs.toFixed(2)} ms`,
    );
  } finally {
    await h.close();
  }
});

test('on the clock: a write wakes retention within a second, it sleeps until the oldest row comes of age (at most an hour at a time), and the row goes then', async () => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: WRITE_KEY }], destinations: [], retention: { days: 1 } });
  const clock = h.clock as ManualClock;
  try {
    assert.equal((await h.post('/v1/track', { userId: 'u1', event: 'E' })).status, 200);
    assert.deepEqual(clock.pendingTimers(), [NUDGE_DELAY_MS]);
    clock.advance(NUDGE_DELAY_MS);
    assert.deepEqual(clock.pendingTimers(), [MAX_IDLE_MS], 'nothing to do for a day: it sleeps an hour');
    clock.advance(DAY_MS - 2 * MAX_IDLE_MS);
    assert.equal(count(h, 'messages'), 1);
    const left = clock.pendingTimers()[0] ?? 0;
    assert.ok(left <= MAX_IDLE_MS && left > 0);
    clock.advance(2 * MAX_IDLE_MS);
    assert.equal(count(h, 'messages'), 0);
    assert.equal(count(h, 'requests'), 0);
    // It went at the first instant it was over a day old (a second ago): an empty log sleeps an hour.
    assert.deepEqual(clock.pendingTimers(), [MAX_IDLE_MS - NUDGE_DELAY_MS + 1]);
  } finally {
    await h.close();
  }
});

test('on the clock: a slice waits for room in the WAL, looking every few milliseconds, and goes once there is room or the wait reaches its bound', async () => {
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: WRITE_KEY }], destinations: [], retention: { days: 1 } });
  const clock = h.clock as ManualClock;
  // The engine's own retention is stopped; this one runs on the same store and clock, with the
  // WAL's room (the checkpointer's progress, another thread's) set by the test.
  h.engine.retention.stop();
  let room = false;
  let looked = 0;
  const retention = createRetention({
    store: h.engine.stores.retention,
    dbPath: join(h.dataDir, 'hookbench.sqlite'),
    clock,
    settings: () => ({ days: 1, megabytes: 1024 }),
    profilesReadUpTo: (max) => h.engine.personas.readUpTo(max),
    removingMessages: (ids) => h.engine.personas.forgetTracks(ids),
    onRemoved: () => undefined,
    onError: (err) => assert.fail(String(err)),
    wal: {
      mayWrite: () => {
        looked++;
        return room;
      },
      roomForBackgroundWrite: async () => undefined,
    },
  });
  try {
    for (const n of [1, 2]) assert.equal((await h.post('/v1/track', { userId: `u${n}`, event: 'E' })).status, 200);
    clock.advance(DAY_MS + 1);
    retention.start();
    clock.advance(IDLE_INTERVAL_MS);
    assert.equal(count(h, 'messages'), 2, 'no room: the slice waits');
    assert.deepEqual(clock.pendingTimers(), [WAL_POLL_MS]);
    clock.advance(WAL_MAX_WAIT_MS - WAL_POLL_MS);
    assert.equal(count(h, 'messages'), 2, 'still waiting, just under the bound');
    assert.equal(looked, WAL_MAX_WAIT_MS / WAL_POLL_MS);
    clock.advance(WAL_POLL_MS);
    assert.equal(count(h, 'messages'), 0, 'the bound reached: it went without room');

    assert.equal((await h.post('/v1/track', { userId: 'u3', event: 'E' })).status, 200);
    clock.advance(DAY_MS + 1);
    assert.equal(count(h, 'messages'), 1);
    assert.deepEqual(clock.pendingTimers(), [WAL_POLL_MS], 'waiting again');
    room = true;
    clock.advance(WAL_POLL_MS);
    assert.equal(count(h, 'messages'), 0, 'room: it goes at the next look');
  } finally {
    retention.stop();
    await h.close();
  }
});
