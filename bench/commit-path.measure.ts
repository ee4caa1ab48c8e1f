/**
 * What a commit holds ingest for, with the search index and the profiles taken in inside its
 * transaction (as before schema 21) and left owed to the follow-up a turn later (since): a
 * measurement, not one of the `npm run bench` ratios.
 *
 *   node --import tsx bench/commit-path.measure.ts [messages per run, default 20000] [runs each, default 3]
 *
 * Commits realistic messages (bench/support/seed.ts, each with its mapped webhook body, one
 * delivery) in transactions of 10 through LogStore.commitRequest on a fresh log, the two ways
 * alternately in one process. "Inside" hooks the follow-up into the commit's own transaction,
 * which is what the commit did before; "owed" runs the follow-up after each commit, as the engine
 * does a turn later. Prints each way's commit time (p50, p99, µs per message) and the follow-up's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src-main/engine';
import { ManualClock } from '../src-main/engine/clock';
import { webhookBodyOf } from '../src-main/engine/delivery/payloads';
import { FOLLOW_LIMIT } from '../src-main/engine/store/profiles';
import { realisticMessage } from './support/seed';
import { followUpAtOnce } from './support/follow-up';

const N = Number(process.argv[2] ?? 20_000);
const RUNS = Number(process.argv[3] ?? 3);
const PER_COMMIT = 10;
/** The follow-up after every this many commits (FOLLOW_EVERY; 1 by default, as the engine does when idle). */
const EVERY = Number(process.env.FOLLOW_EVERY ?? 1);
type Way = 'inside the commit' | 'owed, a turn later';

const messages = Array.from({ length: N }, (_, i) => realisticMessage(i, 200_000, Date.UTC(2026, 10, 22) + i));
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)] ?? NaN;
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

async function run(way: Way): Promise<{ commits: number[]; follows: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-commit-path-'));
  const engine = createEngine({ dataDir: dir, clock: new ManualClock(Date.UTC(2026, 10, 23)) });
  try {
    engine.applyConfig({
      sources: [{ name: 'b', writeKey: 'wk_b' }],
      destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
    });
    const { log, profiles, searchIndex } = engine.stores;
    const followUp = (): void => {
      followUpAtOnce(engine.stores, FOLLOW_LIMIT);
    };
    if (way === 'inside the commit') {
      log.followCommits((first) => {
        profiles.followCommit(first);
        searchIndex.followCommit(first);
        followUp();
      });
    }
    const commits: number[] = [];
    const follows: number[] = [];
    for (let from = 0; from < N; from += PER_COMMIT) {
      const items = messages.slice(from, from + PER_COMMIT).map((message) => ({ message, json: JSON.stringify(message), body: webhookBodyOf(message) ?? undefined, destinationIds: [1] }));
      const t = performance.now();
      log.commitRequest({ sourceId: 1, path: '/v1/batch', receivedAt: Date.UTC(2026, 10, 23), httpStatus: 200, bytes: 0, userAgent: 'bench' }, 1, items, [], 86_400_000);
      commits.push(performance.now() - t);
      if (way === 'owed, a turn later' && (from / PER_COMMIT) % EVERY === EVERY - 1) {
        const f = performance.now();
        followUp();
        follows.push(performance.now() - f);
      }
    }
    return { commits, follows };
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ways: Way[] = ['inside the commit', 'owed, a turn later'];
const results = new Map<Way, { commits: number[]; follows: number[] }[]>(ways.map((w) => [w, []]));
for (let k = 0; k < RUNS; k++) for (const w of ways) results.get(w)?.push(await run(w));
console.log(`the commit path: ${N.toLocaleString('en-US')} realistic messages per run, commits of ${PER_COMMIT}, ${RUNS} runs each, alternately`);
for (const w of ways) {
  const runs = results.get(w) ?? [];
  console.log(`  ${w}`);
  for (const r of runs) {
    const follow = r.follows.length > 0 ? `; then the follow-up ${((sum(r.follows) * 1000) / N).toFixed(0)} µs per message (p99 ${pct(r.follows, 0.99).toFixed(2)} ms)` : '';
    console.log(`    commit: p50 ${pct(r.commits, 0.5).toFixed(2)} ms, p99 ${pct(r.commits, 0.99).toFixed(2)} ms, ${((sum(r.commits) * 1000) / N).toFixed(0)} µs per message${follow}`);
  }
}
