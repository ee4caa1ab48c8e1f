/**
 * Ingest as an SDK sees it, into a log of N messages against an empty one, in one run: two started
 * engines (scheduler, follow-ups, checkpointer, all of it), each sending every delivery to a local
 * receiver that answers 200, and a client on its own thread posting realistic messages (random
 * messageIds, as SDKs make them) in batches of 20 over 8 connections to /v1/batch, acknowledged
 * only after commit. The same messages go alternately to the big log and to the empty one, a round
 * each, several times (each round's deliveries all sent before the next starts); it prints
 * messages/s for each side and the ratio, round by round.
 *
 *   node --import tsx bench/ingest-at-n.measure.ts <data folder of N messages (a copy: written to)> <N> [rounds] [messages a round]
 *
 * The write path alone (no HTTP, no delivery) is `INGEST_ONLY=1 npm run bench scale`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../src-main/engine';
import { listen } from '../src-main/serve/server';
import { createEngineApi } from '../src-main/engine/api';
import { fmt, postBatches, RECEIVER_WORKER, runWorker } from './support/load';
import { realisticMessage, scaleConfig } from './support/seed';

const dataDir = process.argv[2];
const count = Number(process.argv[3]);
const rounds = Number(process.argv[4] ?? 3);
const perRound = Number(process.argv[5] ?? 40_000);
const BATCH = 20;
const CONNECTIONS = 8;
if (!dataDir || !Number.isFinite(count)) throw new Error('usage: ingest-at-n.measure.ts <data folder> <messages in it> [rounds] [messages a round]');



function bodiesFrom(first: number): string[] {
  const now = Date.now();
  const bodies: string[] = [];
  for (let i = 0; i < perRound; i += BATCH) {
    const batch = Array.from({ length: BATCH }, (_, k) => ({ ...realisticMessage(first + i + k, count, now), messageId: `ajs-next-${randomUUID()}` }));
    bodies.push(JSON.stringify({ batch, sentAt: new Date(now).toISOString() }));
  }
  return bodies;
}

async function post(url: string, bodies: string[]): Promise<number> {
  const { ms, failures } = await postBatches(url, bodies, { writeKey: 'wk_scale', connections: CONNECTIONS });
  if (failures > 0) throw new Error(`${failures} batches were refused`);
  return (bodies.length * BATCH) / (ms / 1000);
}

const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: false });
const emptyDir = mkdtempSync(join(tmpdir(), 'hookbench-ingest-at-0-'));
const engines: Engine[] = [];
const servers: { close(): Promise<void> }[] = [];
try {
  const hook = `http://127.0.0.1:${(await receiver.result).port}/hook`;
  /** Until the engine has sent every delivery it was given (none pending), so a round's sending does not overlap the next round. */
  const drained = async (url: string): Promise<void> => {
    const engine = engines[urls.indexOf(url)] as Engine;
    const api = createEngineApi(engine);
    for (;;) {
      const byStatus = await api.countDeliveriesByStatus();
      if ((byStatus.pending ?? 0) === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const urls: string[] = [];
  const start = async (dir: string): Promise<string> => {
    const engine = createEngine({ dataDir: dir });
    engines.push(engine);
    engine.applyConfig(scaleConfig(hook));
    engine.start();
    const server = await listen(engine, '127.0.0.1', 0);
    servers.push(server);
    urls.push(server.url);
    return server.url;
  };
  const big = await start(dataDir);
  const empty = await start(emptyDir);
  console.log(`ingest from outside: batches of ${BATCH} realistic messages over ${CONNECTIONS} connections, ${fmt(perRound)} a round, each delivered to a local receiver`);
  // A first round each, not counted: code warmed, statements prepared.
  let first = count + 3_000_000;
  for (const url of [big, empty]) {
    await post(url, bodiesFrom(first));
    await drained(url);
    first += perRound;
  }
  const rates = { n: [] as number[], zero: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['n', 'zero'] as const) : (['zero', 'n'] as const);
    const line: string[] = [];
    for (const side of order) {
      const url = side === 'n' ? big : empty;
      const rate = await post(url, bodiesFrom(first));
      await drained(url);
      first += perRound;
      rates[side].push(rate);
      line.push(`${side === 'n' ? `at ${fmt(count)}` : 'at 0'} ${fmt(rate)} messages/s`);
    }
    const n = rates.n.at(-1) ?? NaN;
    const zero = rates.zero.at(-1) ?? NaN;
    console.log(`  round ${r + 1}: ${line.join(', ')}; at N / at 0: ${fmt(n / zero, 2)}`);
  }
  const sum = (a: number[]): number => a.reduce((s, x) => s + x, 0);
  console.log(`  all rounds: at N / at 0: ${fmt(sum(rates.n) / sum(rates.zero), 2)}`);
} finally {
  for (const s of servers) await s.close();
  for (const e of engines) await e.stop();
  await receiver.worker.terminate();
  rmSync(emptyDir, { recursive: true, force: true });
}
