/**
 * The Deliveries view's free-text search for a user id, as the scale benchmark asks it (the same
 * users), on a seeded log: each of 20 users three times over, so the first round reads every
 * user's pages for the first time and the next two find them in memory. Prints each round's
 * median and longest call.
 *
 *   node --import tsx bench/user-search.measure.ts <data folder of a seeded log (a copy: written to)>
 */
import { createEngineApi } from '../src-main/engine/api';
import { engineOnSeededCopy } from './support/seeded-engine';
import { usersFor } from './support/seed';

const dir = process.argv[2];
if (!dir) throw new Error('usage: user-search.measure.ts <data folder (a copy)>');
const { engine, close } = await engineOnSeededCopy(dir);
const api = createEngineApi(engine);
const users = usersFor(engine.stores.assertions.lastMessageId());
const line: string[] = [];
for (let round = 1; round <= 3; round++) {
  const times: number[] = [];
  for (let k = 0; k < 20; k++) {
    const t = performance.now();
    await api.listDeliveries({ text: `user_${((k + 1) * 37 + 11) % users}` });
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  line.push(`round ${round}: median ${(times[10] ?? 0).toFixed(1)} ms, longest ${(times[19] ?? 0).toFixed(1)} ms`);
}
console.log(`a user's free-text search, 20 users: ${line.join('; ')}`);
await close();
