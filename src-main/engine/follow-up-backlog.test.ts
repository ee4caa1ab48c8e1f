/**
 * Under sustained ingest the commit follow-up (search index, tallies, profiles) can fall tens of
 * thousands of messages behind. A read that must see every committed message then waits for the
 * follow-up, which takes the backlog in a slice at a time: the engine's thread, and with it every
 * acknowledgement, is never held for the whole backlog at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { stoppedEngine } from './testing/stopped-engine';
import { fewestSlices } from './testing/wait';
import { FOLLOW_UP_SLICES } from './commit-follow-up';
import { systemClock } from './clock';
import { createEngineApi } from './api';
import type { Engine } from './index';
import type { InboundMessage } from '../../src-shared/events';

const BACKLOG = 12_000;
const USERS = 3_000;
/** The follow-up's slices, each after a turn of the loop: 100, 400, 1,600, 5,000 and the rest at the fastest. */
const FEWEST_SLICES = fewestSlices(FOLLOW_UP_SLICES, BACKLOG);

function commitBacklog(engine: Engine): void {
  const at = Date.now();
  for (let from = 0; from < BACKLOG; from += 50) {
    const items = Array.from({ length: 50 }, (_, k) => {
      const i = from + k;
      const message = {
        type: 'track', messageId: randomUUID(), userId: `user_${i % USERS}`, anonymousId: `anon-${i % USERS}`, event: i % 3 === 0 ? 'Order Completed' : 'Product Viewed',
        properties: { order_id: `o-${i}`, revenue: i % 100 }, context: {}, integrations: {}, timestamp: new Date(at).toISOString(), receivedAt: new Date(at).toISOString(),
      } as InboundMessage;
      return { message, json: JSON.stringify(message), destinationIds: [1] };
    });
    engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: at, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 86_400_000);
  }
}

/** Runs `call` and says how many turns the event loop had meanwhile, and the longest it went without one (ms). */
async function turnsDuring<T>(call: () => Promise<T>): Promise<{ result: T; turns: number; longestMs: number }> {
  let last = performance.now();
  let longestMs = 0;
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    const now = performance.now();
    longestMs = Math.max(longestMs, now - last);
    last = now;
    turns++;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise((resolve) => setTimeout(resolve, 5));
  last = performance.now();
  longestMs = 0;
  turns = 0;
  const result = await call();
  ticking = false;
  return { result, turns, longestMs: Math.max(longestMs, performance.now() - last) };
}

test('a text search and a profile read behind a backlog of 12,000 owed messages see all of them, and never hold the thread for the backlog', async (t) => {
  const { engine } = stoppedEngine(t, systemClock, 'hookbench-follow-up-backlog-');
  const api = createEngineApi(engine);
  commitBacklog(engine);
  const owed = engine.stores.log.lastMessageId() - engine.stores.takenInThrough();
  assert.equal(owed, BACKLOG, 'the commits left every message owed');

  // Taken in on the spot, the backlog was one turn of 100 ms for the index and 450 to 750 ms for
  // the profiles here; in the follow-up's slices it is several turns, none long.
  const search = await turnsDuring(() => api.listDeliveries({ text: `user_${USERS - 1}` }));
  assert.equal(search.result.items.length, BACKLOG / USERS, 'the search found every message of the user, the newest included');
  assert.ok(search.turns >= FEWEST_SLICES, `the search had ${search.turns} turns of the event loop`);
  assert.ok(search.longestMs < 250, `the longest turn during the search was ${search.longestMs.toFixed(0)} ms`);

  commitBacklog(engine);
  const profile = await turnsDuring(() => api.getProfile(`user_${USERS - 1}`));
  const events = profile.result?.events.reduce((n, e) => n + e.count, 0);
  assert.equal(events, (2 * BACKLOG) / USERS, 'the profile counted every track of both backlogs');
  assert.ok(profile.turns >= FEWEST_SLICES, `the profile read had ${profile.turns} turns of the event loop`);
  assert.ok(profile.longestMs < 250, `the longest turn during the profile read was ${profile.longestMs.toFixed(0)} ms`);
});
