/**
 * What the tracking plan costs at ingest, in one run:
 *   node --import tsx bench/tracking-plan.measure.ts [messages, default 20000]
 * - compiling a plan of 200 event schemas (done once per change of the plan);
 * - checking one message, against serializing it (which ingest does for every message anyway);
 * - messages/s through POST /v1/batch (batches of 100, 4 in flight) without a plan and with one
 *   that every message is checked against (half of them violating it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { listen } from '../src-main/serve/server';
import { compilePlan } from '../src-main/engine/tracking-plan/check';
import { EMPTY_TRACKING_PLAN, type TrackingPlan } from '../src-shared/tracking-plan';
import type { InboundMessage } from '../src-shared/events';

const N = Number(process.argv[2] ?? 20_000);
const BATCH = 100;
const IN_FLIGHT = 4;

const orderSchema = {
  type: 'object',
  required: ['orderId', 'total', 'currency'],
  properties: { orderId: { type: 'string' }, total: { type: 'number', minimum: 0 }, currency: { enum: ['EUR', 'USD'] }, items: { type: 'integer' }, email: { type: 'string', format: 'email' } },
};
const plan: TrackingPlan = { ...EMPTY_TRACKING_PLAN, events: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [i === 0 ? 'Order Completed' : `Event ${i}`, orderSchema])) };

const message = (i: number): Record<string, unknown> => ({
  type: 'track',
  userId: `user-${i % 5000}`,
  event: 'Order Completed',
  messageId: `m-${i}-${Math.random()}`,
  properties: { orderId: `o-${i}`, total: i % 2 === 0 ? 42.5 : '42.5', currency: 'EUR', items: 3, email: 'ada@example.com' },
  context: { library: { name: 'analytics-node', version: '3.1.0' } },
});

let t = performance.now();
const compiled = compilePlan(plan);
const compileMs = performance.now() - t;

const samples = Array.from({ length: 10_000 }, (_, i) => ({ ...message(i), context: {}, integrations: {}, anonymousId: null, timestamp: '', receivedAt: '' }) as unknown as InboundMessage);
for (const m of samples) compiled.check(m);
t = performance.now();
for (let r = 0; r < 5; r++) for (const m of samples) compiled.check(m);
const checkUs = ((performance.now() - t) * 1000) / (samples.length * 5);
t = performance.now();
for (let r = 0; r < 5; r++) for (const m of samples) JSON.stringify(m);
const stringifyUs = ((performance.now() - t) * 1000) / (samples.length * 5);

async function ingestRate(withPlan: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-plan-bench-'));
  const engine = createEngine({ dataDir: dir });
  engine.applyConfig({ sources: [{ name: 'bench', writeKey: 'wk_bench' }], destinations: [], ...(withPlan ? { trackingPlan: plan } : {}) });
  const server = await listen(engine, '127.0.0.1', 0);
  const auth = `Basic ${Buffer.from('wk_bench:').toString('base64')}`;
  const bodies = Array.from({ length: N / BATCH }, (_, b) => JSON.stringify({ batch: Array.from({ length: BATCH }, (_, i) => message(b * BATCH + i)) }));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const res = await fetch(`${server.url}/v1/batch`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
        if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  const rate = N / ((performance.now() - started) / 1000);
  await server.close();
  await engine.stop();
  rmSync(dir, { recursive: true, force: true });
  return rate;
}

const without = await ingestRate(false);
const withPlan = await ingestRate(true);
const without2 = await ingestRate(false);
const withPlan2 = await ingestRate(true);
const base = (without + without2) / 2;
const planned = (withPlan + withPlan2) / 2;
console.log(`compile a plan of 200 event schemas: ${compileMs.toFixed(0)} ms (once per change of the plan)`);
console.log(`check one message: ${checkUs.toFixed(2)} µs; JSON.stringify of the same message: ${stringifyUs.toFixed(2)} µs`);
console.log(`ingest without a plan: ${base.toFixed(0)} msg/s; with one (half violating): ${planned.toFixed(0)} msg/s; ratio ${(planned / base).toFixed(2)} (runs: ${[without, withPlan, without2, withPlan2].map((r) => r.toFixed(0)).join(', ')})`);
