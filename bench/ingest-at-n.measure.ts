/**
 * Ingest as an SDK sees it, into a log of N messages against an empty one, in one run: two started
 * engines (scheduler, follow-ups, checkpointer, all of it), each sending every delivery to a local
 * receiver that answers 200, and a client on its own thread posting realistic messages (random
 * messageIds, as SDKs make them) in batches of 20 over 8 connections to /v1/batch, acknowledged
 * only after commit. The same messages go alternately to the big log and to the empty one, a round
 * each, several times; it prints messages/s for each side and the ratio, round by round. A side's
 * round lasts until its engine has sent every delivery and taken every message into the search
 * index, the tallies and the profiles (the follow-up), so that no side's work is left to run
 * while the other is measured (both engines share this process's thread); the acknowledgements'
 * own rate is printed beside it. Rounds start once the big log's work after start is done (an
 * upgrade's catch-ups), and how long that took is printed.
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
  /**
   * Until the engine has sent every delivery it was given (none pending) and its follow-up owes
   * nothing, and its profiles have no backlog, so that a round's work does not overlap the next.
   */
  const drained = async (url: string): Promise<void> => {
    const engine = engines[urls.indexOf(url)] as Engine;
    const api = createEngineApi(engine);
    for (;;) {
      const byStatus = await api.countDeliveriesByStatus();
      const owed = engine.stores.log.lastMessageId() - engine.stores.takenInThrough();
      if ((byStatus.pending ?? 0) === 0 && owed <= 0 && engine.personas.catchingUp() === undefined) return;
      await new Promise((r) => setTimeout(r, 20));
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
  const started = performance.now();
  const big = await start(dataDir);
  await drained(big);
  const settledIn = performance.now() - started;
  const empty = await start(emptyDir);
  console.log(`ingest from outside: batches of ${BATCH} realistic messages over ${CONNECTIONS} connections, ${fmt(perRound)} a round, each delivered to a local receiver`);
  console.log(`  the log of ${fmt(count)} started and its work after start done in ${fmt(settledIn / 1000, 1)} s`);
  // A first round each, not counted: code warmed, statements prepared.
  let first = count + 3_000_000;
  for (const url of [big, empty]) {
    await post(url, bodiesFrom(first));
    await drained(url);
    first += perRound;
  }
  const rates = { n: [] as number[], zero: [] as number[] };
  const acked = { n: [] as number[], zero: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['n', 'zero'] as const) : (['zero', 'n'] as const);
    const line: string[] = [];
    for (const side of order) {
      const url = side === 'n' ? big : empty;
      const t = performance.now();
      const ackRate = await post(url, bodiesFrom(first));
      await drained(url);
      const rate = perRound / ((performance.now() - t) / 1000);
      first += perRound;
      rates[side].push(rate);
      acked[side].push(ackRate);
      line.push(`${side === 'n' ? `at ${fmt(count)}` : 'at 0'} ${fmt(rate)} messages/s (acknowledged at ${fmt(ackRate)})`);
    }
    const n = rates.n.at(-1) ?? NaN;
    const zero = rates.zero.at(-1) ?? NaN;
    console.log(`  round ${r + 1}: ${line.join(', ')}; at N / at 0: ${fmt(n / zero, 2)}`);
  }
  const sum = (a: number[]): number => a.reduce((s, x) => s + x, 0);
  console.log(`  all rounds: at N / at 0: ${fmt(sum(rates.n) / sum(rates.zero), 2)} (the acknowledgements alone ${fmt(sum(acked.n) / sum(acked.zero), 2)})`);
} finally {
  for (const s of servers) await s.close();
  for (const e of engines) await e.stop();
  await receiver.worker.terminate();
  rmSync(emptyDir, { recursive: true, force: true });
}
