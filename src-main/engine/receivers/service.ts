/**
 * Test receivers at /receivers/{name}: each request is read whole, recorded with its exact bytes,
 * the step of the script that answers it and the signature verdicts, and then answered as that
 * step says (a status with headers and body, after a delay; or a hang, or a reset connection).
 * Which step answers is the pure stepIndexFor; the position is taken in the same transaction that
 * records the request, so concurrent requests never share a step. A script counted per message
 * takes the position among the requests carrying the same message key (messageKeyOf).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Destination } from '../../../src-shared/settings';
import { MAX_RECEIVED_BODY_BYTES, statusOfStep, stepIndexFor, type ReceiverInput, type ReceiverStep } from '../../../src-shared/receivers';
import type { Clock, ClockTimer } from '../clock';
import type { ReceiverRow, ReceiverStore } from '../store/receivers';
import type { StorageFault } from '../store/storage-fault';
import { nextTimedSize, type TimedSlices } from '../sliced-work';
import { messageKeyOf } from './message-key';
import { receiverNameOf, signatureVerdicts } from './verdict';

/** A hanging step is let go after this long, should the client never give up. */
export const MAX_HANG_MS = 5 * 60 * 1000;

export interface ReceiverUrls {
  /** http://host:port of the main listener; null until it listens. */
  http: string | null;
  /** https://host:port of the receivers' TLS listener; null when there is none. */
  https: string | null;
  /** The ports both listen on: a destination URL on another port points at something else. */
  ports: number[];
}

export interface ReceiversDeps {
  store: ReceiverStore;
  clock: Clock;
  destinations(): Destination[];
  /** Requests recorded or answered (by id); an empty list means "read them all again". */
  publish(ids: number[]): void;
  /** A failed read or write: reports it (a storage fault makes the engine degraded) and returns it; null when it was none. */
  fault(err: unknown): StorageFault | null;
  /** Awaited between the slices of a removal: a turn of the event loop, and room in the WAL. */
  betweenSlices?: () => Promise<void>;
}

/**
 * A removal's slices of requests, sized from the last one's time to hold the engine's thread about
 * 4 ms: a receiver a load test was pointed at may hold millions, and one statement removing them
 * held the thread 1.5 s for 300,000.
 */
export const REMOVAL_SLICES: TimedSlices = { first: 500, min: 100, max: 50_000, targetMs: 4 };

export interface Receivers {
  list(): ReceiverRow[];
  get(name: string): ReceiverRow | null;
  /** Creates or replaces by name; a changed script starts over at its first step. */
  save(input: ReceiverInput): ReceiverRow;
  /**
   * Removes the receiver and its requests: those it had when asked a slice at a time, the
   * receiver answering meanwhile, then the receiver with what came since. False when there is none.
   */
  remove(name: string): Promise<boolean>;
  /** Starts the script over: the next request gets the first step. */
  reset(name: string): boolean;
  /** Answers one request under /receivers/; tls says which listener it came through. */
  handle(req: IncomingMessage, res: ServerResponse, options: { tls: boolean }): void;
  setUrls(urls: Partial<ReceiverUrls>): void;
  urls(): ReceiverUrls;
  /** At start: requests a stop cut off are marked so. */
  recover(): void;
  /** Ends every request still delayed or hanging. */
  stop(): void;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The raw header lines, in order and case as received. */
function headerLines(req: IncomingMessage): [string, string][] {
  const lines: [string, string][] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) lines.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string]);
  return lines;
}

/** The answer of a step that answers: its status, its headers (Retry-After added) and its body. */
export function answerOf(step: ReceiverStep): { status: number; headers: Record<string, string>; body: Buffer } {
  const body = Buffer.from(step.body ?? '', 'utf8');
  const headers: Record<string, string> = { ...(step.headers ?? {}) };
  const has = (name: string): boolean => Object.keys(headers).some((k) => k.toLowerCase() === name);
  if (step.retryAfter !== undefined) headers['Retry-After'] = String(step.retryAfter);
  if (body.length > 0 && !has('content-type')) headers['Content-Type'] = 'text/plain; charset=utf-8';
  if (!has('content-length')) headers['Content-Length'] = String(body.length);
  return { status: statusOfStep(step) ?? 200, headers, body };
}

/** Closes the connection with a TCP reset where the platform allows it, so the client sees ECONNRESET. */
function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

export function createReceivers(deps: ReceiversDeps): Receivers {
  const { store, clock } = deps;
  let urls: ReceiverUrls = { http: null, https: null, ports: [] };
  const open = new Set<{ timer: ClockTimer | null; res: ServerResponse }>();
  let stopped = false;

  function read(req: IncomingMessage): Promise<{ body: Buffer; bytes: number }> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let bytes = 0;
      req.on('data', (c: Buffer) => {
        bytes += c.length;
        if (kept >= MAX_RECEIVED_BODY_BYTES) return;
        const part = c.subarray(0, MAX_RECEIVED_BODY_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      });
      req.on('end', () => resolve({ body: Buffer.concat(chunks), bytes }));
      req.on('error', reject);
    });
  }

  async function serve(req: IncomingMessage, res: ServerResponse, receiver: ReceiverRow, tls: boolean): Promise<void> {
    const receivedAt = clock.now();
    const headers = headerLines(req);
    const { body, bytes } = await read(req);
    let recorded: { id: number; step: number };
    const messageKey = messageKeyOf(headers, body);
    try {
      const signatures = signatureVerdicts({ receiver: receiver.name, ports: urls.ports, body, headers, destinations: deps.destinations() });
      recorded = store.arrive(
        receiver.id,
        { receivedAt, tls, method: req.method ?? 'GET', path: req.url ?? '/', headers, body, bodyBytes: bytes, bodyMs: clock.now() - receivedAt, signatures, messageKey },
        (n) => stepIndexFor(receiver.responses.length, n),
      );
    } catch (err) {
      const fault = deps.fault(err);
      if (!fault) throw err;
      // Nothing recorded, nothing scripted: the sender is told why, as the Tracking API would.
      sendJson(res, 503, { success: false, code: fault.code, message: `the test receiver could not record this request: ${fault.message}; ${fault.advice}` });
      return;
    }
    deps.publish([recorded.id]);
    const step = receiver.responses[recorded.step] as ReceiverStep;
    const entry: { timer: ClockTimer | null; res: ServerResponse } = { timer: null, res };
    open.add(entry);
    let ended = false;
    const end = (outcome: 'answered' | 'reset' | 'hung' | 'client_gone', status: number | null): void => {
      if (ended) return;
      ended = true;
      entry.timer?.cancel();
      open.delete(entry);
      // After stop the log is closing; the next start marks what was left pending.
      if (stopped) return;
      try {
        if (store.finish(recorded.id, outcome, status, clock.now())) deps.publish([recorded.id]);
      } catch (err) {
        if (deps.fault(err) === null) throw err;
      }
    };
    // Before the step hangs, a close is the client giving up; once it hangs, that is the step's doing.
    let closed: 'client_gone' | 'hung' = 'client_gone';
    res.on('close', () => end(closed, null));
    const act = (): void => {
      entry.timer = null;
      if (res.destroyed) return end('client_gone', null);
      if (step.reset) {
        end('reset', null);
        if (req.socket) resetSocket(req.socket);
        return;
      }
      if (step.hang) {
        closed = 'hung';
        entry.timer = clock.setTimer(() => res.destroy(), MAX_HANG_MS);
        return;
      }
      const answer = answerOf(step);
      res.on('finish', () => end('answered', answer.status));
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    };
    if (step.delayMs) entry.timer = clock.setTimer(act, step.delayMs);
    else act();
  }

  return {
    list: () => store.list(),
    get: (name) => store.get(name),
    save(input) {
      store.save(input, clock.now());
      const saved = store.get(input.name);
      if (!saved) throw new Error(`receiver "${input.name}" vanished while being saved`);
      return saved;
    },
    async remove(name) {
      const receiver = store.get(name);
      if (receiver === null) return false;
      const through = store.lastRequestId(receiver.id);
      const betweenSlices = deps.betweenSlices ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
      for (let size = REMOVAL_SLICES.first; ; ) {
        const t = performance.now();
        const gone = store.removeRequests(receiver.id, through, size);
        if (gone < size) break;
        size = nextTimedSize(REMOVAL_SLICES, size, performance.now() - t);
        await betweenSlices();
      }
      const removed = store.remove(name);
      if (removed) deps.publish([]);
      return removed;
    },
    reset: (name) => store.reset(name, clock.now()),
    handle(req, res, { tls }) {
      const name = receiverNameOf(new URL(req.url ?? '/', 'http://receiver').pathname);
      let receiver: ReceiverRow | null = null;
      try {
        receiver = name === null ? null : store.get(name);
      } catch (err) {
        const fault = deps.fault(err);
        if (!fault) throw err;
        req.resume();
        return sendJson(res, 503, { success: false, code: fault.code, message: `the test receivers cannot be read now: ${fault.message}; ${fault.advice}` });
      }
      if (!receiver) {
        req.resume();
        return sendJson(res, 404, {
          success: false,
          code: 'no_receiver',
          message: `no test receiver named "${name ?? ''}"; define one in the Receivers view, in the config file's receivers, or with saveReceiver`,
        });
      }
      serve(req, res, receiver, tls).catch(() => {
        // The request broke off while its body was read: nothing was recorded.
        if (!res.headersSent) res.destroy();
      });
    },
    setUrls(next) {
      urls = { ...urls, ...next };
    },
    urls: () => urls,
    recover() {
      stopped = false;
      if (store.recoverInterrupted() > 0) deps.publish([]);
    },
    stop() {
      stopped = true;
      for (const entry of open) {
        entry.timer?.cancel();
        entry.res.destroy();
      }
      open.clear();
    },
  };
}
