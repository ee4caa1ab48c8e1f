/**
 * The connection gate through the real sender against real servers on 127.0.0.1: how many
 * connections a burst opens, and that a receiver that holds its answers still gets every attempt.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../clock';
import { ConnectionGate } from './connection-gate';
import { createSender } from './sender';
import { warmUpDelivery } from './warm-up';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** A receiver answering 200 after `holdMs`; counts connections and requests seen, and the most at once. */
async function receiver(holdMs: number): Promise<{ url: string; connections: () => number; requests: () => number; mostAtOnce: () => number }> {
  let connections = 0;
  let requests = 0;
  let now = 0;
  let most = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests++;
    now++;
    most = Math.max(most, now);
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        now--;
        res.end('ok');
      }, holdMs),
    );
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, connections: () => connections, requests: () => requests, mostAtOnce: () => most };
}

function burst(sender: ReturnType<typeof createSender>, url: string, n: number, timeoutMs = 5_000) {
  return Promise.all(Array.from({ length: n }, () => sender.send({ url, headers: {}, body: new Uint8Array(16), timeoutMs })));
}

test('a burst to a receiver that answers at once reuses the limit of connections instead of opening one per attempt', async () => {
  const r = await receiver(2);
  const sender = createSender({ clock: systemClock, gate: { limit: 4, patienceMs: 5_000 } });
  cleanups.push(() => sender.close({ abort: true }));
  const results = await burst(sender, r.url, 60);
  assert.equal(results.filter((x) => x.status === 200).length, 60);
  assert.equal(r.connections(), 4, 'four connections carried all sixty attempts');
  assert.equal(results.filter((x) => x.timings.connectMs !== undefined).length, 4, 'the first attempt on each connection names its phases');
});

test('a receiver that holds its answers still gets every attempt at once, each past the patience', async () => {
  const r = await receiver(600);
  const sender = createSender({ clock: systemClock, gate: { limit: 2, patienceMs: 50 } });
  cleanups.push(() => sender.close({ abort: true }));
  const t0 = performance.now();
  const results = await burst(sender, r.url, 12);
  const took = performance.now() - t0;
  assert.equal(results.filter((x) => x.status === 200).length, 12);
  assert.equal(r.mostAtOnce(), 12, 'the ten beyond the limit went out on connections of their own');
  const queued = results.map((x) => x.timings.queuedMs);
  assert.equal(queued.filter((q) => q === undefined).length, 2, 'the two that went at once say no wait');
  assert.ok(queued.every((q) => q === undefined || (q >= 45 && q < 400)), `the rest waited about the patience: ${queued.join(', ')}`);
  // Two at once and then one at a time would take 6 × 600 ms; out of patience they overlap.
  assert.ok(took < 1_500, `took ${Math.round(took)} ms`);

  // The connections the ten opened are idle now: the next burst beyond the limit goes at once.
  const again = await burst(sender, r.url, 12);
  assert.equal(again.filter((x) => x.status === 200).length, 12);
  const waited = again.map((x) => x.timings.queuedMs ?? 0);
  assert.ok(
    waited.every((q) => q < 45),
    `none waited out the patience: ${waited.map((q) => q.toFixed(1)).join(', ')}`,
  );
});

test('the timeout counts from when an attempt goes: a receiver answering just inside it is not failed for the wait at the gate', async () => {
  const r = await receiver(300);
  const sender = createSender({ clock: systemClock, gate: { limit: 1, patienceMs: 150 } });
  cleanups.push(() => sender.close({ abort: true }));
  // 150 ms at the gate and 300 ms at the receiver is more than the 400 ms timeout, but the
  // receiver's part alone is not.
  const results = await burst(sender, r.url, 3, 400);
  assert.deepEqual(
    results.map((x) => x.status),
    [200, 200, 200],
  );
  const waited = results.filter((x) => x.timings.queuedMs !== undefined);
  assert.equal(waited.length, 2);
  for (const x of waited) assert.ok(x.timings.totalMs < 400 && x.timings.totalMs >= 290, `total ${x.timings.totalMs} ms is the receiver's time, without the wait`);
});

test('closing the sender fails the attempts still waiting at the gate', async () => {
  const gate = new ConnectionGate({ limit: 1, patienceMs: 10_000 });
  const first = await gate.enter('http://127.0.0.1:1');
  const waiting = gate.enter('http://127.0.0.1:1');
  assert.equal(gate.waitingCount(), 1);
  gate.rejectAll(new Error('the sender was closed'));
  await assert.rejects(waiting, /the sender was closed/);
  first.leave();
  assert.equal(gate.waitingCount(), 0);
});

test('the gate lets the next one through when an attempt is answered, in the order they came', async () => {
  const gate = new ConnectionGate({ limit: 1, patienceMs: 10_000 });
  const order: number[] = [];
  const first = await gate.enter('o');
  const second = gate.enter('o').then((p) => (order.push(2), p));
  const third = gate.enter('o').then((p) => (order.push(3), p));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, []);
  first.leave();
  (await second).leave();
  (await third).leave();
  assert.deepEqual(order, [2, 3]);
  assert.equal((await second).lane, 'shared');
});

test('the warm-up at start sends its attempts over http and https to receivers of its own', async () => {
  const result = await warmUpDelivery(systemClock);
  assert.equal(result.sent, 16);
  assert.equal(result.answered, 16);
});
