/**
 * The engine's side of the sending thread (sender-worker.ts). Writing a request to its socket and
 * reading the answer cost the engine's thread about as much as committing the message did; on a
 * thread of their own they no longer hold up ingest, commits and claims. The engine's thread keeps
 * the clock: it stamps each attempt's start and runs its deadline, and tells the thread when one
 * passes; the thread then ends that attempt, reported as a timeout exactly as on this thread.
 *
 * Until the thread has started, and whenever none can be (none built, or it failed), attempts go
 * through the same sender on this thread, so the thread only ever makes sending cheaper here, never
 * unavailable or slower to start. A thread that stops with attempts out reports each of them as interrupted: whether
 * its request was written is unknown, so it is not sent again here, and the retry policy decides.
 */
import type { Worker } from 'node:worker_threads';
import { failureText, type AttemptFailure } from '../../../src-shared/delivery-outcomes';
import type { Clock, ClockTimer } from '../clock';
import { sourceEntryBeside, spawnThread } from '../threads';
import { createSender, retryAfterOf } from './sender';
import type { FromSender, SenderWorkerData, ToSender } from './sender-protocol';
import type { AttemptRequest, AttemptResult, Sender } from './types';

export interface ThreadSenderOptions {
  clock: Clock;
  /** Extra CA certificate(s) to trust besides the system roots, e.g. a developer's local CA. */
  ca?: string | Buffer;
  /**
   * The thread's entry file. When absent: sender-worker.ts beside this module when running from
   * the sources (under tsx); a bundle passes its built entry. Null: no thread, attempts are sent here.
   */
  entry?: string | URL | null;
  log?: (line: string) => void;
}

export interface ThreadSender extends Sender {
  /** Starts the thread if it is not yet; true once it takes attempts, false when none can. */
  ready(): Promise<boolean>;
  /** The thread taking attempts now, or null. */
  thread(): Worker | null;
  /** How many attempts went through the thread, and how many were sent from this one. */
  stats(): { onThread: number; here: number };
}

interface Out {
  req: AttemptRequest;
  startedAt: number;
  deadline: ClockTimer;
  resolve: (r: AttemptResult) => void;
}

/** Pure: the result of an attempt whose thread stopped before it reported. */
export function stoppedResult(req: AttemptRequest, startedAt: number, why: string): AttemptResult {
  const failure: AttemptFailure = { kind: 'other', code: null, message: `the sending thread stopped before the attempt finished (${why}); whether the request reached the receiver is unknown` };
  return {
    url: req.url,
    startedAt,
    timings: { totalMs: 0 },
    status: null,
    responseHeaders: {},
    responseBody: new Uint8Array(0),
    responseBytes: 0,
    responseTruncated: false,
    errorKind: 'other',
    errorText: failureText(failure),
    failure,
    retryAfterMs: null,
    sentHeaders: null,
  };
}

export function createThreadSender(options: ThreadSenderOptions): ThreadSender {
  const { clock } = options;
  const entry = options.entry === undefined ? sourceEntryBeside(import.meta.url, 'sender-worker.ts') : options.entry;
  const log = options.log ?? ((line: string): void => void process.stderr.write(`${line}\n`));
  let here: Sender | null = null;
  const sendHere = (): Sender => (here ??= createSender({ clock, ...(options.ca !== undefined ? { ca: options.ca } : {}) }));

  let worker: Worker | null = null;
  /** Whether the thread said it takes attempts; none is given to it before. */
  let ready = false;
  let failed = entry === null;
  let closing: Promise<void> | null = null;
  let closed: (() => void) | null = null;
  let nextId = 1;
  const out = new Map<number, Out>();
  const counts = { onThread: 0, here: 0 };
  let startedWaiters: ((ok: boolean) => void)[] = [];
  const started = (ok: boolean): void => {
    const waiters = startedWaiters;
    startedWaiters = [];
    for (const w of waiters) w(ok);
  };

  const settle = (id: number, result: AttemptResult): void => {
    const o = out.get(id);
    if (!o) return;
    out.delete(id);
    o.deadline.cancel();
    o.resolve(result);
  };

  const stopped = (w: Worker, why: string): void => {
    if (worker !== w) return;
    worker = null;
    failed = true;
    closed?.();
    started(false);
    const orphans = [...out.entries()];
    out.clear();
    if (!ready) log(`hookbench: the sending thread could not start, attempts are sent from the engine's thread: ${why}`);
    else if (closing === null) log(`hookbench: the sending thread stopped, attempts are sent from the engine's thread: ${why}`);
    for (const [, o] of orphans) {
      o.deadline.cancel();
      o.resolve(stoppedResult(o.req, o.startedAt, why));
    }
  };

  const thread = (): Worker | null => {
    if (worker !== null || failed) return worker;
    let w: Worker;
    try {
      const data: SenderWorkerData = options.ca !== undefined ? { ca: options.ca.toString() } : {};
      w = spawnThread(entry as string | URL, data);
    } catch (err) {
      failed = true;
      log(`hookbench: the sending thread could not start, attempts are sent from the engine's thread: ${err instanceof Error ? err.message : String(err)}`);
      started(false);
      return null;
    }
    worker = w;
    // Never what keeps the process alive: each attempt's deadline is an engine timer that does.
    w.unref();
    w.on('message', (m: FromSender) => {
      if ('ready' in m) {
        ready = true;
        started(true);
      }
      else if ('done' in m) {
        const r = m.result;
        // Structured clone hands bytes over as a plain Uint8Array; the rest of the engine reads Buffers.
        const body = Buffer.from(r.responseBody.buffer, r.responseBody.byteOffset, r.responseBody.byteLength);
        // A Retry-After date is read against the engine's clock, as every other time is.
        settle(m.done, { ...r, responseBody: body, retryAfterMs: retryAfterOf(r.status, r.responseHeaders, clock.now()) });
      } else closed?.();
    });
    // Without a listener a worker's error would end the process.
    w.on('error', (err) => stopped(w, err.message));
    w.on('exit', (code) => stopped(w, `exit code ${code}`));
    return w;
  };

  const post = (w: Worker, m: ToSender): void => w.postMessage(m);

  return {
    ready() {
      if (closing === null) thread();
      if (ready && worker !== null) return Promise.resolve(true);
      if (worker === null) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => startedWaiters.push(resolve));
    },
    thread: () => (ready ? worker : null),
    stats: () => ({ ...counts }),
    send(req) {
      const w = closing === null ? thread() : null;
      // Until the thread has started (a fraction of a second after the first attempt), attempts are sent here.
      if (w === null || !ready) {
        counts.here++;
        return sendHere().send(req);
      }
      counts.onThread++;
      const id = nextId++;
      const startedAt = clock.now();
      return new Promise<AttemptResult>((resolve) => {
        const deadline = clock.setTimer(() => {
          if (worker === w) post(w, { expire: id });
        }, req.timeoutMs);
        out.set(id, { req, startedAt, deadline, resolve });
        post(w, { send: id, now: startedAt, req });
      });
    },
    close(opts = {}) {
      closing ??= (async () => {
        const w = worker;
        if (w !== null) {
          const done = new Promise<void>((resolve) => (closed = resolve));
          post(w, { close: true, abort: opts.abort === true });
          await done;
          worker = null;
          started(false);
          await w.terminate();
          // The thread reports every attempt before it says it closed; should one be missing, it is not left waiting.
          for (const [id, o] of [...out]) settle(id, stoppedResult(o.req, o.startedAt, 'the engine stopped'));
        }
        if (here !== null) await here.close(opts);
      })();
      return closing;
    },
  };
}
