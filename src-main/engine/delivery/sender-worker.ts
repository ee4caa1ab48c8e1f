/**
 * The sending thread's entry: every attempt's socket work (connecting, TLS, writing the request,
 * reading and parsing the answer) runs here, through the same sender as on the engine's thread
 * (sender.ts), so the engine's thread only hands over the bytes and takes back the result.
 *
 * The engine's clock stays the only clock: an attempt's start is the engine's `now`, and its
 * deadline is the engine's timer, which sends `expire` when it passes. The clock given to the
 * sender here therefore answers `now` with the engine's time of the attempt being started, and
 * keeps each attempt's deadline to be fired by that message rather than by a timer of its own
 * (past it, only the time the attempt waited at the connection gate runs on a timer here).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Clock, ClockTimer } from '../clock';
import { createSender } from './sender';
import type { FromSender, SenderWorkerData, ToSender } from './sender-protocol';

const port = parentPort;
if (port === null) throw new Error('the sending thread runs on a worker thread');
const data = workerData as SenderWorkerData;

/** The attempt whose send() is running its synchronous start (where the sender reads the clock and sets its deadline). */
let starting: { id: number; now: number } | null = null;
const deadlines = new Map<number, () => void>();

const engineClock: Clock = {
  now: () => starting?.now ?? Date.now(),
  setTimer(fn: () => void, ms: number): ClockTimer {
    const id = starting?.id;
    if (id === undefined) {
      // Only the time an attempt waited at the connection gate, given back after its deadline:
      // real time, as that wait was.
      const timer = setTimeout(fn, ms);
      return { cancel: () => clearTimeout(timer) };
    }
    deadlines.set(id, fn);
    return { cancel: () => deadlines.delete(id) };
  },
};

const sender = createSender({ clock: engineClock, ...(data.ca !== undefined ? { ca: data.ca } : {}) });
const say = (m: FromSender): void => port.postMessage(m);
const inFlight = new Set<Promise<void>>();

port.on('message', (m: ToSender) => {
  if ('send' in m) {
    const id = m.send;
    starting = { id, now: m.now };
    const result = sender.send(m.req);
    starting = null;
    const reported = result.then((r) => say({ done: id, result: r }));
    inFlight.add(reported);
    void reported.finally(() => inFlight.delete(reported));
  } else if ('expire' in m) {
    deadlines.get(m.expire)?.();
  } else {
    // Every attempt's result goes out before the word that the thread is closed.
    void sender
      .close({ abort: m.abort })
      .then(() => Promise.allSettled([...inFlight]))
      .then(() => say({ closed: true }));
  }
});
say({ ready: true });
