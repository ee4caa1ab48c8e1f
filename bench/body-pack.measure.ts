/**
 * What packing a delivery body costs and saves (a measurement, not one of the `npm run bench`
 * ratios):
 *
 *   node --import tsx bench/body-pack.measure.ts [bodies, default 20000]
 *
 * Realistic messages (bench/support/seed.ts) mapped to their webhook payloads as the scheduler
 * maps them; each payload packed against its message's JSON (store/body-pack.ts) and unpacked
 * again. Prints the mean size before and after, and microseconds per body to pack and to unpack.
 */
import { packBody, unpackBody } from '../src-main/engine/store/body-pack';
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
