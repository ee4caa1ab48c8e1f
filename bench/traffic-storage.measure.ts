/**
 * What each table and index costs per message of traffic as SDKs send it, through a real
 * `hookbench serve` (a measurement, not one of the `npm run bench` ratios). The scale benchmark's
 * seed goes through the store's write paths and has no Tracking API calls, so it leaves out what
 * the calls themselves cost (Inbound keeps each call's body); this measure sends:
 *
 * - **browser**: one call per message, as analytics.js sends them (`/v1/t`, `/v1/p`, `/v1/i`, …,
 *   the write key in the body), the messages of `realisticMessage` (about 900 bytes of JSON);
 * - **server**: the same messages through the real `@segment/analytics-node` client, which
 *   batches them (15 a call by default) to `/v1/batch`.
 *
 * Each into a fresh folder, every message delivered to a local receiver, then dbstat per table:
 *
 *   node --import tsx bench/traffic-storage.measure.ts [messages per kind, default 20000] [browser|server|both]
 */
import { Analytics } from '@segment/analytics-node';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Receiver } from '../src-main/engine/testing/receiver';
import { startServe } from '../src-main/serve/testing/process';
import { costPerMessage, formatCosts } from './support/dbstat';
import { realisticMessage, scaleConfig } from './support/seed';

const COUNT = Number(process.argv[2] ?? 20_000);
const KINDS = (process.argv[3] ?? 'both') === 'both' ? ['browser', 'server'] : [process.argv[3] as string];
const WRITE_KEY = 'wk_scale';
/** analytics.js's endpoint per call type. */
const BROWSER_PATH: Record<string, string> = { track: 't', page: 'p', screen: 'p', identify: 'i', group: 'g', alias: 'a' };

/**
 * The messages as an SDK hands them over: no receivedAt (the server sets it), and an alias always
 * with the userId it names (the seed's anonymous-only aliases would be dropped, and not delivered).
 */
function sdkMessage(i: number): Record<string, unknown> {
  const { receivedAt: _receivedAt, ...m } = realisticMessage(i, COUNT, Date.now()) as unknown as Record<string, unknown>;
  if (m.type === 'alias' && m.userId === null) m.userId = `user-of-${m.anonymousId as string}`;
  return m;
}

async function sendBrowser(url: string): Promise<void> {
  // Eight tabs' worth of calls at once, each call one message, as analytics.js posts them.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < COUNT; i = next++) {
        const m = sdkMessage(i);
        const body = JSON.stringify({ ...m, writeKey: WRITE_KEY, _metadata: { bundled: ['Segment.io'], unbundled: [], bundledIds: [] } });
        const res = await fetch(`${url}/v1/${BROWSER_PATH[m.type as string] ?? 't'}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
        if (res.status !== 200) throw new Error(`call ${i}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
}

async function sendServer(url: string): Promise<void> {
  const analytics = new Analytics({ writeKey: WRITE_KEY, host: url });
  const failures: unknown[] = [];
  analytics.on('error', (err) => failures.push(err));
  for (let i = 0; i < COUNT; i++) {
    const m = sdkMessage(i);
    const ids = m.userId ? { userId: m.userId as string, anonymousId: m.anonymousId as string } : { anonymousId: m.anonymousId as string };
    const common = { ...ids, timestamp: m.timestamp as string, context: m.context as Record<string, unknown> };
    switch (m.type) {
      case 'track':
        analytics.track({ ...common, event: m.event as string, properties: m.properties as Record<string, unknown> });
        break;
      case 'identify':
        analytics.identify({ ...common, traits: m.traits as Record<string, unknown> });
        break;
      case 'group':
        analytics.group({ ...common, groupId: m.groupId as string, traits: m.traits as Record<string, unknown> });
        break;
      case 'alias':
        analytics.alias({ userId: m.userId as string, previousId: m.previousId as string });
        break;
      case 'screen':
        analytics.screen({ ...common, name: m.name as string, properties: m.properties as Record<string, unknown> });
        break;
      default:
        analytics.page({ ...common, name: m.name as string, properties: m.properties as Record<string, unknown> });
    }
    // Let the client's batches go out as an app's would, rather than queueing every call first.
    if (i % 500 === 499) await new Promise((r) => setImmediate(r));
  }
  await analytics.closeAndFlush({ timeout: 120_000 });
  if (failures.length > 0) throw new Error(`analytics-node reported ${failures.length} errors, the first: ${String(failures[0])}`);
}

for (const kind of KINDS) {
  const receiver = await new Receiver().start();
  const dir = mkdtempSync(join(tmpdir(), `hookbench-traffic-${kind}-`));
  const config = join(dir, 'hookbench.json');
  writeFileSync(config, JSON.stringify(scaleConfig(receiver.url)));
  const data = join(dir, 'data');
  const serve = await startServe(['--config', config, '--data-dir', data, '--port', '0']);
  try {
    const t = performance.now();
    if (kind === 'browser') await sendBrowser(serve.url);
    else if (kind === 'server') await sendServer(serve.url);
    else throw new Error(`unknown kind ${kind}: browser, server or both`);
    await receiver.waitFor(COUNT);
    console.log(`${kind}: ${COUNT.toLocaleString('en-US')} messages sent and delivered in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    serve.child.kill('SIGINT');
    await serve.exited;
    await receiver.close();
  }
  const db = new Database(join(data, 'hookbench.sqlite'), { readonly: true });
  const calls = (db.prepare('SELECT COUNT(*) AS n, AVG(bytes) AS bytes, AVG(length(CAST(body AS BLOB))) AS kept FROM requests').get() as { n: number; bytes: number; kept: number });
  console.log(`  ${calls.n.toLocaleString('en-US')} Tracking API calls, ${calls.bytes.toFixed(0)} bytes each as received, ${calls.kept.toFixed(0)} kept for Inbound`);
  console.log(formatCosts(costPerMessage(db), 5).replace(/^/gm, '  '));
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
