import { monitorEventLoopDelay } from 'node:perf_hooks';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `call` on this thread's engine and says how long it took and the longest the event loop
 * went without a turn meanwhile and for `afterMs` after it (libuv's delay monitor, 1 ms
 * resolution): what an ingest request arriving then would have waited.
 */
export async function withLongestStall<T>(call: () => Promise<T>, afterMs = 20): Promise<{ result: T; ms: number; stallMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  // The monitor's first turn only starts its clock: a stall that began before it would not be seen.
  await sleep(20);
  const t = performance.now();
  const result = await call();
  const ms = performance.now() - t;
  await sleep(afterMs);
  loop.disable();
  return { result, ms, stallMs: loop.max / 1e6 };
}
