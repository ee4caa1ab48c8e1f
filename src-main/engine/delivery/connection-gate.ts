/**
 * How many attempts go to one receiver (an origin) at once before one waits for a connection to
 * be free. Left to the HTTP client, every attempt that finds no idle connection opens one. When the
 * first burst of rounds meets a receiver whose first answers are slow (a new process, its JIT, its
 * first TLS handshakes), that was one connection per attempt: over a hundred in the first second of
 * traffic over https, each a handshake on the engine's thread and on the receiver's, slowing both
 * and so opening more (docs/latency.md, "The first second").
 *
 * So up to SENDING_PER_ORIGIN attempts go at once; beyond that an attempt waits for one of them
 * to be answered, but never longer than PATIENCE_MS, after which it goes on a connection of its
 * own. A receiver that is slow for good (a handler that sleeps) thus still gets every attempt the
 * scheduler sends, each at most PATIENCE_MS later, and the connections those opened, while they
 * stay idle and open, take later attempts beyond the limit at once. A fixed cap on connections
 * would instead hold attempts in the client's queue with their deadline running, to time out unsent.
 *
 * The attempts within the limit go through a client capped at SENDING_PER_ORIGIN connections per
 * origin (the gate never gives it more, so nothing queues there but for the moment a connection
 * takes to be marked free); the others through an uncapped one, whose connections the gate counts
 * (`overflowOpened`, `overflowClosed`) to know when one is idle.
 *
 * Times here are real (timers of the event loop), not the engine's clock: they bound how long an
 * attempt waits for the network, which a warped or manual clock says nothing about. The attempt's
 * own deadline, on the engine's clock, still runs while it waits.
 */
export const SENDING_PER_ORIGIN = 8;
export const PATIENCE_MS = 250;

/** Which client an attempt goes through: the capped one, or (out of patience) the uncapped one. */
export type Lane = 'shared' | 'overflow';

interface Waiter {
  since: number;
  admit(lane: Lane): void;
  fail(err: Error): void;
}

interface OriginState {
  /** Attempts let into the shared lane and not yet answered. */
  sending: number;
  /** The same for the overflow lane, and its open connections. */
  overflowSending: number;
  overflowOpen: number;
  waiting: Waiter[];
  timer: ReturnType<typeof setTimeout> | null;
}

export interface GateOptions {
  limit?: number;
  patienceMs?: number;
}

/** An attempt let through; leave() once it is answered or has failed. */
export interface GatePass {
  lane: Lane;
  /** How long it waited at the gate (ms); 0 when it went at once. */
  waitedMs: number;
  leave(): void;
}

export class ConnectionGate {
  private readonly origins = new Map<string, OriginState>();
  readonly limit: number;
  private readonly patienceMs: number;

  constructor(options: GateOptions = {}) {
    this.limit = options.limit ?? SENDING_PER_ORIGIN;
    this.patienceMs = options.patienceMs ?? PATIENCE_MS;
  }

  /**
   * Resolves with the attempt's lane once it may go (at most the patience later); rejects only
   * when the sender closes meanwhile. The attempt's deadline does not run here (sender.ts).
   */
  enter(origin: string): Promise<GatePass> {
    const state = this.stateOf(origin);
    if (state.waiting.length === 0 && state.sending < this.limit) return Promise.resolve(this.pass(origin, state, 'shared', 0));
    return new Promise<GatePass>((resolve, reject) => {
      const since = performance.now();
      state.waiting.push({
        since,
        admit: (lane) => resolve(this.pass(origin, state, lane, performance.now() - since)),
        fail: reject,
      });
      this.settle(origin, state);
    });
  }

  /** The uncapped client opened a connection to the origin. */
  overflowOpened(origin: string): void {
    const state = this.stateOf(origin);
    state.overflowOpen++;
    this.settle(origin, state);
  }

  /** A connection of the uncapped client to the origin closed. */
  overflowClosed(origin: string): void {
    const state = this.origins.get(origin);
    if (!state) return;
    state.overflowOpen = Math.max(0, state.overflowOpen - 1);
    this.settle(origin, state);
  }

  /** Attempts waiting for a connection, over every origin. */
  waitingCount(): number {
    let n = 0;
    for (const s of this.origins.values()) n += s.waiting.length;
    return n;
  }

  /** Fails every waiting attempt (the sender is closing). */
  rejectAll(reason: Error): void {
    for (const state of this.origins.values()) {
      if (state.timer) clearTimeout(state.timer);
      for (const w of state.waiting.splice(0)) w.fail(reason);
    }
    this.origins.clear();
  }

  private pass(origin: string, state: OriginState, lane: Lane, waitedMs: number): GatePass {
    if (lane === 'shared') state.sending++;
    else state.overflowSending++;
    let left = false;
    return {
      lane,
      waitedMs,
      leave: () => {
        if (left) return;
        left = true;
        if (lane === 'shared') state.sending--;
        else state.overflowSending--;
        this.settle(origin, state);
      },
    };
  }

  /** Lets through whoever may go now, sets the timer for the next one out of patience, forgets an idle origin. */
  private settle(origin: string, state: OriginState): void {
    if (state.timer) clearTimeout(state.timer);
    state.timer = null;
    const now = performance.now();
    // Idle connections of the uncapped client. One it has not yet marked free opens another:
    // a connection more, never a wait.
    let spare = Math.max(0, state.overflowOpen - state.overflowSending);
    while (state.waiting.length > 0) {
      const first = state.waiting[0] as Waiter;
      const lane: Lane | null = state.sending < this.limit ? 'shared' : spare > 0 || now - first.since >= this.patienceMs ? 'overflow' : null;
      if (lane === null) break;
      if (lane === 'overflow') spare = Math.max(0, spare - 1);
      state.waiting.shift();
      first.admit(lane);
    }
    const next = state.waiting[0];
    if (next) state.timer = setTimeout(() => this.settle(origin, state), Math.max(1, Math.ceil(next.since + this.patienceMs - now)));
    else if (state.sending === 0 && state.overflowSending === 0 && state.overflowOpen === 0 && this.origins.get(origin) === state) this.origins.delete(origin);
  }

  private stateOf(origin: string): OriginState {
    let state = this.origins.get(origin);
    if (!state) {
      state = { sending: 0, overflowSending: 0, overflowOpen: 0, waiting: [], timer: null };
      this.origins.set(origin, state);
    }
    return state;
  }
}
