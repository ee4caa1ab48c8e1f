/**
 * The ingest's packing thread: packs a request's delivery bodies before its commit, so that the
 * engine's thread (which parses, validates, commits and sends) does not spend its time in deflate:
 * 16–18 µs a body, most of it zlib's fixed cost per call, which another thread pays in parallel.
 *
 * Nothing depends on the thread being there: a request it cannot serve (not started yet, gone,
 * failed) gets null, and the commit packs those bodies itself, as it does for small requests.
 */
import { Worker } from 'node:worker_threads';
import { packWith } from './body-pack';

/**
 * Fewest bodies a request sends to the thread. A trip costs the engine's thread about 40–55 µs
 * (posting, the reply, its garbage), what packing about three bodies in place costs (16–18 µs
 * each): at four it saves a quarter, at ten three quarters, at a hundred nine tenths
 * (`bench/body-pack.measure.ts`).
 */
export const PACK_OFF_THREAD_MIN_BODIES = 4;

/**
 * Fewest ingest requests in flight (this one included: read, not yet committed) for the thread to
 * be worth its wait. The trip saves the engine's thread time but adds a wait of its own (another
 * thread to wake, on a machine whose cores the sending thread, the checkpointer and the clients
 * share): while requests are few the engine's thread has time to spare and packing in place is
 * the quickest answer; once they queue behind it, its time is what every request waits for.
 */
export const PACK_OFF_THREAD_MIN_IN_FLIGHT = 3;

/** Pure: whether a request's bodies go to the packing thread. */
export function packOffThread(bodies: number, requestsInFlight: number, minInFlight = PACK_OFF_THREAD_MIN_IN_FLIGHT): boolean {
  return bodies >= PACK_OFF_THREAD_MIN_BODIES && requestsInFlight >= minInFlight;
}

export interface BodyToPack {
  body: Uint8Array;
  /** The message's JSON as stored: the dictionary. */
  json: string;
}

export interface BodyPacker {
  /**
   * Each body packed as `packBody` packs it, in order; null when they are better packed in place
   * (`packOffThread`) or the thread cannot take them.
   */
  pack(bodies: BodyToPack[], requestsInFlight: number): Promise<Buffer[] | null>;
  /** Starts the thread if it is not started; true once it takes requests, false if it cannot. */
  ready(): Promise<boolean>;
  /** Bodies the thread has packed so far (the rest were packed in place). */
  packed(): number;
  stop(): Promise<void>;
}

interface Request {
  id: number;
  bodies: Uint8Array<ArrayBuffer>;
  ends: Uint32Array<ArrayBuffer>;
  jsons: string[];
}

type Reply = { id: number; packed: Uint8Array; ends: Uint32Array } | { id: number; error: string };

// Inputs and outputs travel as one buffer each, transferred: posting a Buffer sliced from Node's
// pool would copy the whole pool's slab for each body.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { deflateRawSync } = require('node:zlib');
const packWith = ${packWith.toString()};
parentPort.on('message', ({ id, bodies, ends, jsons }) => {
  try {
    const out = [];
    let start = 0;
    let total = 0;
    for (let i = 0; i < ends.length; i++) {
      const packed = packWith(deflateRawSync, bodies.subarray(start, ends[i]), jsons[i]);
      out.push(packed);
      total += packed.length;
      start = ends[i];
    }
    const packed = new Uint8Array(total);
    const packedEnds = new Uint32Array(out.length);
    let at = 0;
    out.forEach((p, i) => { packed.set(p, at); at += p.length; packedEnds[i] = at; });
    parentPort.postMessage({ id, packed, ends: packedEnds }, [packed.buffer, packedEnds.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
`;

/** Pure: the bodies as one buffer and where each ends. */
export function concatBodies(bodies: readonly Uint8Array[]): { bytes: Uint8Array<ArrayBuffer>; ends: Uint32Array<ArrayBuffer> } {
  const ends = new Uint32Array(bodies.length);
  let total = 0;
  bodies.forEach((b, i) => {
    total += b.length;
    ends[i] = total;
  });
  const bytes = new Uint8Array(total);
  bodies.forEach((b, i) => bytes.set(b, i === 0 ? 0 : ends[i - 1]!));
  return { bytes, ends };
}

/** Pure: the buffers `concatBodies` joined, as views of the one buffer. */
export function splitAt(bytes: Uint8Array, ends: Uint32Array): Buffer[] {
  const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Buffer[] = [];
  let start = 0;
  for (const end of ends) {
    parts.push(whole.subarray(start, end));
    start = end;
  }
  return parts;
}

/**
 * The thread starts at the first request big enough to use it; requests before it is up are packed
 * in place, so nothing waits for a thread to boot. `onError` hears why the thread stopped serving.
 */
export function createBodyPacker(options: { onError?: (message: string) => void; minInFlight?: number | undefined } = {}): BodyPacker {
  let worker: Worker | null = null;
  let online = false;
  let dead = false;
  const readyWaiters: ((ok: boolean) => void)[] = [];
  const settleReady = (ok: boolean): void => {
    for (const resolve of readyWaiters.splice(0)) resolve(ok);
  };
  let next = 0;
  let packedBodies = 0;
  const waiting = new Map<number, (packed: Buffer[] | null) => void>();

  const fail = (message: string | null): void => {
    if (dead) return;
    dead = true;
    if (message !== null) options.onError?.(message);
    for (const resolve of waiting.values()) resolve(null);
    waiting.clear();
    settleReady(false);
  };

  const start = (): void => {
    const w = new Worker(WORKER_SOURCE, { eval: true });
    worker = w;
    w.unref();
    w.once('online', () => {
      online = true;
      settleReady(true);
    });
    w.on('message', (reply: Reply) => {
      const resolve = waiting.get(reply.id);
      if (resolve === undefined) return;
      waiting.delete(reply.id);
      if ('error' in reply) {
        options.onError?.(`the packing thread could not pack a request's bodies: ${reply.error}`);
        return resolve(null);
      }
      packedBodies += reply.ends.length;
      resolve(splitAt(reply.packed, reply.ends));
    });
    // Without a listener a worker's error would end the process.
    w.on('error', (err) => fail(`the packing thread failed: ${err.message}`));
    w.once('exit', (code) => fail(`the packing thread exited (code ${code})`));
  };

  return {
    pack(bodies, requestsInFlight) {
      if (dead || !packOffThread(bodies.length, requestsInFlight, options.minInFlight)) return Promise.resolve(null);
      if (worker === null) start();
      if (!online) return Promise.resolve(null);
      const { bytes, ends } = concatBodies(bodies.map((b) => b.body));
      const request: Request = { id: next++, bodies: bytes, ends, jsons: bodies.map((b) => b.json) };
      return new Promise((resolve) => {
        waiting.set(request.id, resolve);
        worker!.postMessage(request, [bytes.buffer, ends.buffer]);
      });
    },
    packed: () => packedBodies,
    ready() {
      if (dead) return Promise.resolve(false);
      if (worker === null) start();
      if (online) return Promise.resolve(true);
      return new Promise((resolve) => readyWaiters.push(resolve));
    },
    async stop() {
      const w = worker;
      worker = null;
      fail(null);
      if (w !== null) await w.terminate();
    },
  };
}
