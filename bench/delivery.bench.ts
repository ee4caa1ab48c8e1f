/**
 * Delivery throughput: deliveries/s to one local receiver with mapping, signing and attempt rows,
 * against a bare undici loop posting the same signed bodies to the same receiver at the same
 * concurrency, in one run. The receiver runs in a worker thread.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import { createEngine } from '../src-main/engine';
import { serializePayload, toWebhookPayload } from '../src-main/engine/delivery/payloads';
import { normalizeItem } from '../src-main/engine/ingest/normalize';
import { fmt, RECEIVER_WORKER, runWorker } from './support/load';
import { LogInspector } from '../src-main/engine/store/inspect';

const N = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const CONCURRENCY = 64;
const SECRET = 's3cret';

const rawMessage = (i: number): Record<string, unknown> => ({
  type: 'track',
  userId: `user-${i}`,
  event: 'Order Completed',
  messageId: `d-${i}`,
  properties: { orderId: `o-${i}`, total: 42.5 },
});

async function bareUndici(url: string): Promise<number> {
  const receivedAt = Date.now();
  const bodies = Array.from({ length: N }, (_, i) => {
    const r = normalizeItem(rawMessage(i), { context: {}, integrations: {}, sentAt: undefined }, receivedAt);
    if (!r.ok) throw new Error(r.reason);
    return serializePayload(toWebhookPayload(r.message));
  });
  const agent = new Agent({ connections: CONCURRENCY });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const body = bodies[next++]!;
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Segment.io/1.0',
            'x-signature': createHmac('sha1', SECRET).update(body).digest('hex'),
          },
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`receiver said ${res.statusCode}`);
      }
    }),
  );
  const ms = performance.now() - t0;
  await agent.close();
  return N / (ms / 1000);
}

async function hookbench(url: string, dir: string): Promise<number> {
  const engine = createEngine({ dataDir: dir, concurrency: CONCURRENCY });
  engine.applyConfig({
    sources: [{ name: 'bench', writeKey: 'wk_bench' }],
    destinations: [{ name: 'sink', enabled: true, sources: ['bench'], sharedSecret: SECRET, webhooks: [{ url, headers: {} }] }],
  });
  // Fill the queue through the store, then time the scheduler draining it. Completion is polled
  // every 100 ms (a GROUP BY over the table), so the figure is at most 100 ms pessimistic.
  const [destination] = engine.stores.config.listDestinations();
  const receivedAt = Date.now();
  for (let i = 0; i < N; i += 500) {
    const items = Array.from({ length: Math.min(500, N - i) }, (_, k) => {
      const r = normalizeItem(rawMessage(i + k), { context: {}, integrations: {}, sentAt: undefined }, receivedAt);
      if (!r.ok) throw new Error(r.reason);
      return { message: r.message, json: JSON.stringify(r.message), destinationIds: [destination!.id] };
    });
    engine.stores.log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt, httpStatus: 200, bytes: 0, userAgent: null }, 1, items, [], 86_400_000);
  }
  const t0 = performance.now();
  engine.start();
  await new Promise<void>((resolve) => {
    const check = (): void => {
      const counts = engine.stores.log.countDeliveriesByStatus();
      if ((counts.succeeded ?? 0) >= N) resolve();
      else if ((counts.failed ?? 0) + (counts.retrying ?? 0) > 0) throw new Error(`deliveries failed: ${JSON.stringify(counts)}`);
      else setTimeout(check, 100);
    };
    check();
  });
  const ms = performance.now() - t0;
  await engine.stop();
  const inspect = LogInspector.of(dir, { readonly: true });
  const attempts = inspect.count('attempts', "verdict = 'success'");
  inspect.close();
  if (attempts !== N) throw new Error(`expected ${N} successful attempt rows, found ${attempts}`);
  return N / (ms / 1000);
}

const dir = mkdtempSync(join(tmpdir(), 'hookbench-bench-delivery-'));
const { result, worker } = runWorker<{ port: number }>(RECEIVER_WORKER, {});
try {
  const { port } = await result;
  const url = `http://127.0.0.1:${port}/hook`;
  const raw = await bareUndici(url);
  const ours = await hookbench(url, dir);
  console.log(`delivery  ${fmt(N)} signed track deliveries to one local receiver, concurrency ${CONCURRENCY}`);
  console.log(`  bare undici loop, same signed bodies : ${fmt(raw)} deliveries/s`);
  console.log(`  Hookbench scheduler (+ attempt rows) : ${fmt(ours)} deliveries/s`);
  console.log(`  ratio                                : ${fmt(ours / raw, 2)}   (goal ≥ 0.50)`);
} finally {
  await worker.terminate();
  rmSync(dir, { recursive: true, force: true });
}
