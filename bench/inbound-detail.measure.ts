/**
 * The Inbound detail of the biggest call in a log (an audience sync's is one call of every member),
 * as the view asks for it: `messagesOf` and `droppedItemsOf`, with how long each took, what it
 * answered and the longest the engine's event loop went without a turn meanwhile (libuv's delay
 * monitor, 1 ms resolution).
 *
 *   node --import tsx bench/inbound-detail.measure.ts <data folder> [request id]
 *
 * It only reads (after `bench/audience-sync.measure.ts` on a copy, that copy has such a call).
 */
import { createEngine } from '../src-main/engine';
import { createEngineApi } from '../src-main/engine/api';
import { LogInspector } from '../src-main/engine/store/inspect';
import { withLongestStall } from './support/stall';

const dir = process.argv[2];
if (!dir) throw new Error('usage: inbound-detail.measure.ts <data folder> [request id]');
const inspect = LogInspector.of(dir, { readonly: true });
const biggest = inspect.all<{ id: number; accepted: number }>('SELECT id, accepted FROM requests ORDER BY accepted DESC LIMIT 1')[0];
inspect.close();
const requestId = process.argv[3] === undefined ? biggest?.id : Number(process.argv[3]);
if (requestId === undefined) throw new Error('the log has no call');
const engine = createEngine({ dataDir: dir });
engine.start();
const api = createEngineApi(engine);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
await sleep(500);
console.log(`the Inbound detail of call ${requestId} (${biggest?.id === requestId ? `${biggest.accepted} messages accepted` : 'as given'})`);
for (let run = 1; run <= 2; run++) {
  for (const [name, call] of [
    ['messagesOf', () => api.messagesOf(requestId)],
    ['droppedItemsOf', () => api.droppedItemsOf(requestId)],
  ] as const) {
    const { result, ms, stallMs } = await withLongestStall<unknown[]>(call);
    const bytes = JSON.stringify(result).length;
    console.log(`  ${name.padEnd(15)} run ${run}: ${ms.toFixed(1)} ms; ${result.length} items, ${(bytes / 1e6).toFixed(1)} MB as JSON; longest event-loop stall ${stallMs.toFixed(1)} ms`);
  }
}
await engine.stop();
