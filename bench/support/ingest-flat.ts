/**
 * Is ingest's write path as fast into a log of N messages as into an empty one? Measured in one
 * process, alternating, so both sides share whatever else the machine is doing: blocks of
 * realistic messages (realisticMessage, each with its mapped webhook body and one delivery)
 * committed through LogStore.commitRequest in transactions of the group commit's size, each block
 * followed by the commit follow-up (takeInOwed: the search index and the profiles), into the big
 * log, then into a fresh one, and so on until each side has had its share of time. The messageIds
 * are random, as real SDKs send them: each lands on its own page of the dedupe index.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../src-main/engine';
import { webhookBodyOf } from '../../src-main/engine/delivery/payloads';
import { MAX_MESSAGES_PER_COMMIT } from '../../src-main/engine/store/group-commit';
import { realisticMessage, scaleConfig } from './seed';
import { followUpAtOnce } from './follow-up';

export interface IngestFlatOptions {
  /** The big log's data folder (a copy: this adds messages to it). */
  dataDir: string;
  /** Messages in the big log: the seed's user mix is that of a log this size on both sides. */
  count: number;
  /** Messages per block (one side at a time). */
  block?: number;
  /** Time each side gets in total, in seconds. */
  seconds?: number;
}

/** One side: messages, seconds in all, messages/s, and the seconds its commits and its follow-ups took. */
export interface IngestSide {
  messages: number;
  seconds: number;
  rate: number;
  commitSeconds: number;
  followUpSeconds: number;
}

export interface IngestFlat {
  atN: IngestSide;
  atZero: IngestSide;
  /** messages/s into the big log over messages/s into the empty one. */
  ratio: number;
  blocks: number;
}

const DEDUPE_WINDOW_MS = 24 * 3600 * 1000;

/** One block of `n` messages, from message index `from`, through the write path; the ms its commits took and the ms of its follow-up. */
function ingestBlock(engine: Engine, ids: { source: number; destination: number }, from: number, n: number, count: number): { commits: number; followUp: number } {
  const now = Date.now();
  const items = Array.from({ length: n }, (_, k) => {
    const message = realisticMessage(from + k, count, now);
    // Random, as SDKs make them (the seed's are ordered, so its own dedupe entries stay on few pages).
    message.messageId = `ajs-next-${randomUUID()}`;
    return { message, json: JSON.stringify(message), body: webhookBodyOf(message) ?? undefined, destinationIds: [ids.destination] };
  });
  const t = performance.now();
  for (let at = 0; at < n; at += MAX_MESSAGES_PER_COMMIT) {
    const part = items.slice(at, at + MAX_MESSAGES_PER_COMMIT);
    engine.stores.log.commitRequest({ sourceId: ids.source, path: '/v1/batch', receivedAt: now, httpStatus: 200, bytes: 0, userAgent: 'bench' }, ids.source, part, [], DEDUPE_WINDOW_MS);
  }
  const committed = performance.now();
  followUpAtOnce(engine.stores);
  return { commits: committed - t, followUp: performance.now() - committed };
}

function idsOf(engine: Engine): { source: number; destination: number } {
  const source = engine.stores.config.listSources()[0];
  const destination = engine.stores.config.listDestinations()[0];
  if (!source || !destination) throw new Error('the log needs a source and a destination');
  return { source: source.id, destination: destination.id };
}

export async function ingestFlat(o: IngestFlatOptions): Promise<IngestFlat> {
  const block = o.block ?? 2_000;
  const budgetMs = (o.seconds ?? 10) * 1000;
  const emptyDir = mkdtempSync(join(tmpdir(), 'hookbench-ingest-at-0-'));
  const big = createEngine({ dataDir: o.dataDir });
  const empty = createEngine({ dataDir: emptyDir });
  try {
    // The same source and destination on the empty side as the seeded log has.
    empty.applyConfig(scaleConfig('http://127.0.0.1:9/hook'));
    const bigIds = idsOf(big);
    const emptyIds = idsOf(empty);
    // Indexes above the seed's, so no messageId repeats one already in the big log.
    let next = o.count + 1_000_000;
    const atN = { messages: 0, ms: 0, commits: 0, followUp: 0 };
    const atZero = { messages: 0, ms: 0, commits: 0, followUp: 0 };
    let blocks = 0;
    // A first block each, not counted: statements prepared, pages of the big log's tails read in.
    ingestBlock(big, bigIds, next, block, o.count);
    ingestBlock(empty, emptyIds, next, block, o.count);
    next += block;
    while (atN.ms < budgetMs || atZero.ms < budgetMs) {
      // Which side goes first alternates too, so neither always follows the other's checkpoint.
      const order = blocks % 2 === 0 ? (['n', 'zero'] as const) : (['zero', 'n'] as const);
      for (const side of order) {
        const took = side === 'n' ? ingestBlock(big, bigIds, next, block, o.count) : ingestBlock(empty, emptyIds, next, block, o.count);
        const acc = side === 'n' ? atN : atZero;
        acc.messages += block;
        acc.ms += took.commits + took.followUp;
        acc.commits += took.commits;
        acc.followUp += took.followUp;
      }
      next += block;
      blocks++;
    }
    const rate = (s: { messages: number; ms: number }): number => s.messages / (s.ms / 1000);
    const side = (s: typeof atN): IngestSide => ({ messages: s.messages, seconds: s.ms / 1000, rate: rate(s), commitSeconds: s.commits / 1000, followUpSeconds: s.followUp / 1000 });
    return {
      atN: side(atN),
      atZero: side(atZero),
      ratio: rate(atN) / rate(atZero),
      blocks,
    };
  } finally {
    await big.stop();
    await empty.stop();
    rmSync(emptyDir, { recursive: true, force: true });
  }
}
