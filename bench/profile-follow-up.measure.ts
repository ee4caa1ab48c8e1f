/**
 * Where the profiles' share of the commit follow-up goes with many users: a measurement, not one
 * of the `npm run bench` ratios.
 *
 *   SLICE=50 node --import tsx bench/profile-follow-up.measure.ts [users' log size, default 10000000] [messages, default 20000]
 *
 * Commits realistic messages (random messageIds, the users of a seeded log of the size given:
 * 50,000 for 10M) on a fresh log, then takes them into the profiles as the engine's follow-up
 * does (ProfileStore.followOwed, SLICE messages a transaction, 50 by default), twice. Prints the
 * time a message, split into the statements (each timed where it runs), the JavaScript around
 * them in the slice, and the rest: the transaction's commit, which writes every page the slice
 * dirtied to the WAL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { createEngine } from '../src-main/engine';
import { webhookBodyOf } from '../src-main/engine/delivery/payloads';
import { ProfileStore } from '../src-main/engine/store/profiles';
import type { Statement } from '../src-main/engine/store/statements';
import { realisticMessage, scaleConfig } from './support/seed';
import { fmt } from './support/load';

const USERS_OF = Number(process.argv[2] ?? 10_000_000);
const N = Number(process.argv[3] ?? 20_000);
const SLICE = Number(process.env.SLICE ?? 50);
const dir = mkdtempSync(join(tmpdir(), 'hookbench-profile-follow-up-'));
const engine = createEngine({ dataDir: dir });
engine.applyConfig(scaleConfig('http://127.0.0.1:9/hook'));
const source = engine.stores.config.listSources()[0]?.id ?? 0;
const destination = engine.stores.config.listDestinations()[0]?.id ?? 0;

// Every statement of the store timed where it runs, and the slice's own work (ProfileStore.step).
const statementMs = new Map<string, number>();
let stepMs = 0;
type Timed = { q: Record<string, Statement>; step: (max: number) => number };
const proto = ProfileStore.prototype as unknown as Timed;
const step = proto.step;
let wrapped = false;
proto.step = function (this: Timed, max: number): number {
  if (!wrapped) {
    wrapped = true;
    for (const [name, statement] of Object.entries(this.q)) {
      for (const method of ['run', 'all', 'get'] as const) {
        const original = statement[method].bind(statement) as (...params: unknown[]) => unknown;
        (statement as unknown as Record<string, (...params: unknown[]) => unknown>)[method] = (...params) => {
          const t = performance.now();
          try {
            return original(...params);
          } finally {
            statementMs.set(name, (statementMs.get(name) ?? 0) + performance.now() - t);
          }
        };
      }
    }
  }
  const t = performance.now();
  try {
    return step.call(this, max);
  } finally {
    stepMs += performance.now() - t;
  }
};

let next = USERS_OF + 7_000_000;
const now = Date.now();
try {
  for (let round = 1; round <= 2; round++) {
    for (let at = 0; at < N; at += 50) {
      const items = Array.from({ length: 50 }, () => {
        const message = realisticMessage(next++, USERS_OF, now);
        message.messageId = `ajs-next-${randomUUID()}`;
        return { message, json: JSON.stringify(message), body: webhookBodyOf(message) ?? undefined, destinationIds: [destination] };
      });
      engine.stores.log.commitRequest({ sourceId: source, path: '/v1/batch', receivedAt: now, httpStatus: 200, bytes: 0, userAgent: 'bench' }, source, items, [], 86_400_000);
    }
    statementMs.clear();
    stepMs = 0;
    const t = performance.now();
    let slices = 0;
    while (!engine.stores.profiles.followOwed(SLICE)) slices++;
    const total = performance.now() - t;
    const statements = [...statementMs.values()].reduce((a, b) => a + b, 0);
    const perMessage = (ms: number): string => `${fmt((ms * 1000) / N, 1)} µs`;
    console.log(`round ${round}: ${fmt(N)} messages in ${fmt(slices + 1)} transactions of ${SLICE}: ${perMessage(total)} a message`);
    console.log(`  statements ${perMessage(statements)}, JavaScript in the slice ${perMessage(stepMs - statements)}, the commit and the rest ${perMessage(total - stepMs)}`);
    const top = [...statementMs.entries()].sort((a, b) => b[1] - a[1]).slice(0, 6);
    console.log(`  the costliest statements: ${top.map(([name, ms]) => `${name} ${perMessage(ms)}`).join(', ')}`);
  }
} finally {
  await engine.stop();
  rmSync(dir, { recursive: true, force: true });
}
