import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngine } from '../index';
import { ManualClock } from '../clock';
import type { InboundMessage } from '../../../src-shared/events';

const T0 = Date.parse('2026-11-23T12:00:00.000Z');

test('start-up resumes every delivery a crash left in flight: those with an attempt in flight, and those whose round was written but not its decision', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-recovery-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = createEngine({ dataDir: dir, clock: new ManualClock(T0) });
  first.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
  });
  const items = [1, 2, 3].map((i) => {
    const message = { type: 'track', messageId: `m-${i}`, userId: 'u', anonymousId: null, event: 'E', properties: {}, context: {}, integrations: {}, timestamp: new Date(T0).toISOString(), receivedAt: new Date(T0).toISOString() } as InboundMessage;
    return { message, json: JSON.stringify(message), destinationIds: [1] };
  });
  first.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: T0, httpStatus: 200, bytes: 0, userAgent: 'test' }, 1, items, [], 86_400_000);
  await first.stop();

  // What a kill -9 leaves: delivery 1 with its attempt in flight; delivery 2 in flight with its
  // attempt answered (the decision was not written yet); delivery 3 never claimed.
  const db = new Database(join(dir, 'hookbench.sqlite'));
  db.exec(`UPDATE deliveries SET status = 'in_flight', rounds = 1, first_attempt_at = ${T0} WHERE id IN (1, 2);
    INSERT INTO attempts (delivery_id, round, url, started_at, state, request_headers) VALUES (1, 1, 'http://127.0.0.1:9/hook', ${T0}, 'in_flight', '{}');
    INSERT INTO attempts (delivery_id, round, url, started_at, state, request_headers) VALUES (2, 1, 'http://127.0.0.1:9/hook', ${T0}, 'in_flight', '{}');
    UPDATE attempts SET state = 'done', http_status = 500 WHERE delivery_id = 2;`);
  db.close();

  const second = createEngine({ dataDir: dir, clock: new ManualClock(T0 + 1000) });
  t.after(() => second.stop());
  const recovered = second.stores.log.recoverInterrupted(T0 + 1000);
  assert.deepEqual(recovered, { attempts: 1, deliveries: 2 });
  assert.deepEqual(
    [1, 2, 3].map((id) => second.stores.log.getDelivery(id)?.status),
    ['retrying', 'retrying', 'pending'],
  );
  assert.equal(second.stores.log.attemptsOf(1)[0]?.state, 'interrupted');
  assert.deepEqual(second.stores.log.recoverInterrupted(T0 + 2000), { attempts: 0, deliveries: 0 }, 'nothing left in flight');
});
