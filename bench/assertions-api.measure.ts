/**
 * The CI assertions API (`/api/messages`, `/api/messages/wait`, `/api/deliveries`, `/api/violations`,
 * `hookbench expect`) on a seeded log: for each call a CI job would make, how long it took and the
 * longest the engine's event loop went without a turn meanwhile (libuv's delay monitor, 1 ms
 * resolution): what an ingest request arriving then would have waited. Every call is made twice:
 * first in a process just started, then again. A CI server is usually
 * small, but the same `hookbench serve` left running on a developer's machine is not.
 *
 *   node --import tsx bench/assertions-api.measure.ts <data folder of a seeded log (a copy: written to)>
 */
import { createAssertions } from '../src-main/engine/assertions/service';
import { engineOnSeededCopy } from './support/seeded-engine';
import { withLongestStall } from './support/stall';

const dir = process.argv[2];
if (!dir) throw new Error('usage: assertions-api.measure.ts <data folder (a copy)>');
const { engine, close, caughtUpMs } = await engineOnSeededCopy(dir);
console.log(`after start, what an upgraded log does in the background (the message tallies among it) took ${(caughtUpMs / 1000).toFixed(1)} s`);
const assertions = createAssertions(engine);
const { marker } = (await assertions.reset({ mark: 'measure' })) as { marker: { name: string } };
const middle = engine.stores.assertions.receivedAfter(Math.floor(engine.stores.assertions.lastMessageId() / 2)) ?? 0;
const newest = engine.stores.assertions.receivedAfter(engine.stores.assertions.lastMessageId() - 1) ?? 0;
const ANON_42 = `anon-${(42 * 40503) >>> 0}-${42 % 97}`;
const calls: [string, () => Promise<unknown>][] = [
  ['messages, an event', async () => assertions.messages({ event: 'Order Completed', limit: 100 })],
  ['messages, an event nobody sent', async () => assertions.messages({ event: 'Never Sent', limit: 100 })],
  ['messages, a rare type (alias)', async () => assertions.messages({ type: 'alias', limit: 100 })],
  ['count, a source, a minute of the log', () => assertions.count({ source: 'scale', since: middle, until: middle + 60_000 })],
  // A test's own messages on a long-lived log: the newest second (1,000 messages in the seed).
  ['count, an event, the newest second', () => assertions.count({ event: 'Order Completed', since: newest - 1_000 })],
  ['messages, the newest second', async () => assertions.messages({ since: newest - 1_000, limit: 100 })],
  ['count, a type', () => assertions.count({ type: 'identify' })],
  ['count, with violations', () => assertions.count({ violations: 'any' })],
  ['messages, a user', async () => assertions.messages({ userId: 'user_42', limit: 100 })],
  // user_42's anonymousId in bench/support/seed.ts: one visitor before they signed in.
  ['messages, an anonymousId', async () => assertions.messages({ anonymousId: ANON_42, limit: 100 })],
  ['count, an anonymousId', () => assertions.count({ anonymousId: ANON_42 })],
  ['wait, an anonymousId nobody had', () => assertions.wait({ anonymousId: 'anon-nobody', count: 1, timeout: 0 })],
  ['messages, after a marker', async () => assertions.messages({ marker: marker.name, event: 'Order Completed' })],
  ['count (wait met at once), an event', () => assertions.wait({ event: 'Order Completed', count: 1, timeout: 0 })],
  ['wait, an event nobody sent, timeout 0', () => assertions.wait({ event: 'Never Sent', count: 1, timeout: 0 })],
  ['wait, a user, delivered', () => assertions.wait({ userId: 'user_42', delivered: true, count: 1, timeout: 0 })],
  ['wait, after a marker', () => assertions.wait({ marker: marker.name, event: 'Order Completed', count: 1, timeout: 0 })],
  ['deliveries, an event', async () => assertions.deliveries({ event: 'Order Completed', limit: 100 })],
  ['deliveries, failed, an event', async () => assertions.deliveries({ event: 'Order Completed', status: 'failed', limit: 100 })],
  ['deliveries, retrying', async () => assertions.deliveries({ status: 'retrying', limit: 100 })],
  ['count, messages with a failed delivery', () => assertions.count({ deliveryStatus: 'failed' })],
  ['messages, an event, a failed delivery', async () => assertions.messages({ event: 'Order Completed', deliveryStatus: 'failed', limit: 100 })],
  ['deliveries, a user', async () => assertions.deliveries({ userId: 'user_42', limit: 100 })],
  ['deliveries, an anonymousId', async () => assertions.deliveries({ anonymousId: ANON_42, limit: 100 })],
  ['violations, whole log', async () => assertions.violationCounts()],
  ['violations, after a marker', async () => assertions.violationCounts(marker.name)],
];
// Twice: first in a process just started (its connections' page caches empty, as after a
// restart: on a log bigger than memory most pages then come from the disk), then the same calls again.
for (const pass of ['first calls after start', 'the same calls again']) {
  console.log(`the assertions API on the log in ${dir}, ${pass}`);
  for (const [name, call] of calls) {
    const { result, ms, stallMs } = await withLongestStall(call);
    const size = (JSON.stringify(result) ?? '').length;
    console.log(`  ${name.padEnd(40)} ${ms.toFixed(1).padStart(9)} ms; ${String(size).padStart(8)} bytes; longest event-loop stall ${stallMs.toFixed(1)} ms`);
  }
}
const reads = engine.reads.stats();
console.log(`reads answered on the read worker: ${reads.offThread}; on the engine's thread (no worker answering): ${reads.fallback}`);
await close();
