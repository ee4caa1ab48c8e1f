/**
 * What packing a delivery body costs and saves (a measurement, not one of the `npm run bench`
 * ratios):
 *
 *   node --import tsx bench/body-pack.measure.ts [bodies, default 20000]
 *
 * Realistic messages (bench/support/seed.ts) mapped to their webhook payloads as the scheduler
 * maps them; each payload packed against its message's JSON (store/body-pack.ts) and unpacked
 * again. Prints the mean size before and after, and microseconds per body to pack and to unpack.
 * Then the same bodies through the ingest's packing thread (store/body-packer.ts), one request
 * after another, for several request sizes: the calling thread's busy time per body (posting,
 * the reply, garbage collection; what the engine's thread would spend) against packing in place,
 * and the wall time per request (what a request waits).
 */
import { performance } from 'node:perf_hooks';
import { packBody, unpackBody } from '../src-main/engine/store/body-pack';
import { createBodyPacker, PACK_OFF_THREAD_MIN_BODIES, PACK_OFF_THREAD_MIN_IN_FLIGHT } from '../src-main/engine/store/body-packer';
import { serializePayload, toWebhookPayload } from '../src-main/engine/delivery/payloads';
import { realisticMessage } from './support/seed';

const N = Number(process.argv[2] ?? 20_000);
const items = Array.from({ length: N }, (_, i) => {
  const message = realisticMessage(i, 1_000_000, Date.UTC(2026, 10, 22) + i);
  const json = JSON.stringify(message);
  let body: Uint8Array;
  try {
    body = serializePayload(toWebhookPayload(message));
  } catch {
    // An anonymous alias, which the mapping refuses: the seed sends the message itself.
    body = new TextEncoder().encode(json);
  }
  return { json, body };
});
let t = performance.now();
const packed = items.map((x) => packBody(x.body, x.json));
const packUs = ((performance.now() - t) * 1000) / N;
t = performance.now();
let same = 0;
for (const [i, p] of packed.entries()) if (unpackBody(p, items[i]!.json).equals(Buffer.from(items[i]!.body))) same++;
const unpackUs = ((performance.now() - t) * 1000) / N;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`${N.toLocaleString('en-US')} bodies: ${mean(items.map((x) => x.body.length)).toFixed(0)} bytes as sent, ${mean(packed.map((p) => p.length)).toFixed(1)} packed; ` +
  `pack ${packUs.toFixed(1)} µs, unpack ${unpackUs.toFixed(1)} µs per body; ${same === N ? 'every body unpacked to its bytes' : `${N - same} bodies differ`}`);

const packer = createBodyPacker();
await packer.ready();
for (const size of [PACK_OFF_THREAD_MIN_BODIES, 10, 20, 100]) {
  const requests = Math.floor(N / size);
  let wrong = 0;
  const inPlace = performance.now();
  for (let r = 0; r < requests; r++) for (const x of items.slice(r * size, (r + 1) * size)) packBody(x.body, x.json);
  const inPlaceUs = ((performance.now() - inPlace) * 1000) / (requests * size);
  const before = performance.eventLoopUtilization();
  const start = performance.now();
  const got: (Buffer[] | null)[] = [];
  for (let r = 0; r < requests; r++) got.push(await packer.pack(items.slice(r * size, (r + 1) * size), PACK_OFF_THREAD_MIN_IN_FLIGHT));
  const wallMs = (performance.now() - start) / requests;
  const busyUs = (performance.eventLoopUtilization(before).active * 1000) / (requests * size);
  got.forEach((bodies, r) => {
    if (bodies?.length !== size) wrong += size;
    else bodies.forEach((p, k) => (wrong += p.equals(packed[r * size + k]!) ? 0 : 1));
  });
  console.log(
    `requests of ${String(size).padStart(3)}: in place ${inPlaceUs.toFixed(1)} µs a body; on the thread ${busyUs.toFixed(1)} µs a body of this thread's time, ` +
      `${wallMs.toFixed(3)} ms a request's wait${wrong > 0 ? `; ${wrong} bodies differ or missing` : ''}`,
  );
}
await packer.stop();
