import type { InboundMessage } from '../../../src-shared/events';
import type { DeliverySettings, Destination } from '../../../src-shared/settings';
import type { Clock, ClockTimer } from '../clock';
import type { DeliveryRow, DeliveryUpdate, FinishedAttempt, LogStore, NewAttempt } from '../store/log-store';
import { serializePayload, toWebhookPayload } from './payloads';
import { buildRequestHeaders } from './request';
import { signatureHeaders, signerFor } from './signers';
import { classifyAttempt, decideAfterRound, failureOf } from './retry-policy';
import { decisionText, type DeliveryDecision, type NotSentReason } from '../../../src-shared/delivery-outcomes';
import type { AttemptResult, Sender } from './types';

export type { Sender } from './types';

export interface SchedulerDeps {
  log: LogStore;
  clock: Clock;
  sender: Sender;
  destination(id: number): Destination | undefined;
  settings(): DeliverySettings;
  random?: () => number;
  /** Deliveries sent at once; further due ones wait for a free slot. */
  concurrency?: number;
  /** Told of every delivery whose state changed, for the live view. */
  onChange?(deliveryIds: number[]): void;
  /**
   * The engine's storage health. A storage fault is reported here instead of thrown; while the log
   * cannot be written, nothing is claimed and finished rounds are kept in memory until resume().
   */
  storage?: StorageHealth;
}

export interface StorageHealth {
  writable(): boolean;
  /** Returns null when err is not a storage fault (a bug: thrown on). */
  fault(err: unknown): unknown;
  succeeded(): void;
}

interface RoundJob {
  delivery: DeliveryRow;
  round: number;
  firstAttemptAt: number;
  attempts: { id: number; url: string }[];
}

/**
 * A thin shell around the pure cores: claims due deliveries from SQLite, maps and signs, sends one
 * round to every pending URL, and writes attempts and the retry decision back. Woken by ingest
 * commits and by a clock timer set for the next due delivery; it never polls.
 */
export class Scheduler {
  private readonly concurrency: number;
  private readonly random: () => number;
  private inFlight = 0;
  private running = false;
  /** Set when stop() gave up waiting: late results are dropped, their attempts stay in flight. */
  private abandoned = false;
  private tickQueued = false;
  private claimQueued = false;
  private timer: ClockTimer | null = null;
  private timerAt: number | null = null;
  private readonly rounds = new Set<Promise<void>>();
  /** Written at the next flush; touched = the deliveries whose rows or attempts change, for onChange. */
  private finished: { attempts: FinishedAttempt[]; deliveries: DeliveryUpdate[]; touched: Set<number> } = { attempts: [], deliveries: [], touched: new Set() };
  private flushQueued = false;
  /** recoverInterrupted() could not be written at start: done before the first claim. */
  private recoveryPending = false;

  constructor(private readonly deps: SchedulerDeps) {
    this.concurrency = deps.concurrency ?? 128;
    this.random = deps.random ?? Math.random;
  }

  start(): { attempts: number; deliveries: number } {
    let recovered = { attempts: 0, deliveries: 0 };
    this.running = true;
    this.recoveryPending = true;
    this.guard(() => {
      recovered = this.recoverIfPending();
    });
    this.wake();
    return recovered;
  }

  /** The log can be written again: writes the rounds kept meanwhile, then claims what is due. */
  resume(): void {
    this.flushFinished();
    this.wake();
  }

  private recoverIfPending(): { attempts: number; deliveries: number } {
    if (!this.recoveryPending) return { attempts: 0, deliveries: 0 };
    const recovered = this.deps.log.recoverInterrupted(this.deps.clock.now());
    this.recoveryPending = false;
    return recovered;
  }

  private writable(): boolean {
    return this.deps.storage?.writable() ?? true;
  }

  /**
   * Runs a step that reads or writes the log. A storage fault is reported (the engine becomes
   * degraded and retries through resume()); without a health to report to, or for any other
   * error, it is thrown as before.
   */
  private guard(step: () => void): boolean {
    try {
      step();
      return true;
    } catch (err) {
      if (!this.deps.storage || this.deps.storage.fault(err) === null) throw err;
      return false;
    }
  }

  /**
   * Stops claiming work and waits for the rounds in flight to finish and be written; with waitMs,
   * for that long at most. Rounds still out then are abandoned: their attempts stay in_flight in the
   * log, which the next start() recovers as interrupted and sends again. Resolves true when every
   * round finished.
   */
  async stop(options: { waitMs?: number } = {}): Promise<boolean> {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
    let timedOut = false;
    const limit =
      options.waitMs === undefined
        ? null
        : new Promise<void>((resolve) => {
            const timer = this.deps.clock.setTimer(() => {
              timedOut = true;
              resolve();
            }, options.waitMs as number);
            void this.drained().then(() => {
              timer.cancel();
              resolve();
            });
          });
    await (limit ?? this.drained());
    this.flushFinished();
    if (timedOut && this.rounds.size > 0) {
      this.abandoned = true;
      return false;
    }
    return true;
  }

  private async drained(): Promise<void> {
    while (this.rounds.size > 0) await Promise.all([...this.rounds]);
  }

  wake(): void {
    if (!this.running || this.tickQueued) return;
    this.tickQueued = true;
    setImmediate(() => {
      this.tickQueued = false;
      this.tick();
    });
  }

  /**
   * An ingest commit made deliveries due now. They are claimed in the same turn of the event loop,
   * as a microtask once the commit's callers have been answered, rather than in the next turn,
   * which under load comes only after every socket event queued meanwhile.
   */
  committed(): void {
    if (!this.running || this.claimQueued) return;
    this.claimQueued = true;
    queueMicrotask(() => {
      this.claimQueued = false;
      this.tick();
    });
  }

  private tick(): void {
    if (!this.running || !this.writable()) return;
    this.guard(() => this.claim());
  }

  private claim(): void {
    this.recoverIfPending();
    const free = this.concurrency - this.inFlight;
    if (this.worthClaiming()) {
      const now = this.deps.clock.now();
      const due = this.deps.log.dueDeliveries(now, free);
      if (due.length > 0) this.startRounds(due, now);
    }
    this.armTimer();
  }

  /**
   * Under load, claim in batches (one transaction per sixteenth of the slots) rather than one
   * delivery per completed round; when idle, any free slot is claimed at once for low latency. The
   * batch is kept small because slots can be held for seconds by a receiver that is slow to answer
   * (and by attempts waiting at the connection gate): with a quarter, 97 such rounds kept every
   * other destination's due deliveries waiting for them.
   */
  private worthClaiming(): boolean {
    const free = this.concurrency - this.inFlight;
    return this.inFlight === 0 || free >= Math.max(1, this.concurrency >> 4);
  }

  private armTimer(): void {
    // stop() writes the rounds that were in flight; a timer armed then would outlive the engine.
    if (!this.running) return;
    const next = this.deps.log.nextDueAt();
    if (next === null) return;
    if (next <= this.deps.clock.now()) {
      // Due already (it came due between the claim's read and now): claimed in the next turn if
      // there is room, else when a round completes. Rounds in flight may hang for their whole
      // timeout, so waiting for one when there is room would hold this delivery that long.
      if (this.worthClaiming()) this.wake();
      return;
    }
    if (this.timer && this.timerAt === next) return;
    this.timer?.cancel();
    this.timerAt = next;
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      this.timerAt = null;
      this.wake();
    }, next - this.deps.clock.now());
  }

  private startRounds(due: DeliveryRow[], now: number): void {
    const settings = this.deps.settings();
    const starts: Parameters<LogStore['startRound']>[0] = [];
    const jobs: { row: DeliveryRow; body: Uint8Array; urls: string[] }[] = [];
    const updates: DeliveryUpdate[] = [];
    for (const row of due) {
      const destination = this.deps.destination(row.destination_id);
      const mapped = row.body !== null ? { body: row.body, problem: null } : this.bodyFor(row);
      const body = mapped.body;
      const targets = targetsOf(row, destination);
      const notSent = mapped.problem ?? whyNotSent(destination, body, targets, row);
      if (notSent !== null || !destination || body === null) {
        updates.push(discard(row, now, notSent ?? { reason: 'destination_removed', detail: null }));
        continue;
      }
      const secret = destination.sharedSecret;
      // Signed once per round: every URL of the round gets the same signature.
      const signature = signatureHeaders(signerFor(destination), secret, { body, deliveryId: row.id, at: now });
      const headersFor = (url: string): Record<string, string> => {
        const entry = destination.webhooks.find((w) => w.url === url) ?? { url, headers: {} };
        return buildRequestHeaders(entry, signature);
      };
      const round = row.rounds + 1;
      const attempts: NewAttempt[] = targets.map((url) => ({ deliveryId: row.id, round, url, startedAt: now, requestHeaders: headersFor(url) }));
      starts.push({ deliveryId: row.id, body, firstAttemptAt: row.first_attempt_at ?? now, round, attempts });
      jobs.push({ row, body, urls: targets });
    }
    if (updates.length > 0) {
      this.deps.log.finishRounds([], updates);
      this.deps.onChange?.(updates.map((u) => u.deliveryId));
    }
    if (starts.length === 0) return;
    const attemptIds = this.deps.log.startRound(starts);
    this.deps.onChange?.(starts.map((s) => s.deliveryId));
    jobs.forEach((job, i) => {
      const start = starts[i];
      const ids = attemptIds[i];
      if (!start || !ids) return;
      const roundJob: RoundJob = {
        delivery: job.row,
        round: start.round,
        firstAttemptAt: start.firstAttemptAt,
        attempts: ids.map((id, k) => ({ id, url: job.urls[k] as string })),
      };
      this.inFlight++;
      const sending = this.sendRound(roundJob, job.body, start.attempts, settings).finally(() => {
        this.inFlight--;
        this.rounds.delete(sending);
        this.wake();
      });
      this.rounds.add(sending);
    });
  }

  /**
   * The payload bytes of a first round. A stored message that cannot be mapped (a log written by an
   * older version, or edited by hand) discards its delivery with the reason: one bad row must not
   * take the engine, and every other delivery, down with it.
   */
  private bodyFor(row: DeliveryRow): { body: Uint8Array | null; problem: NotSent | null } {
    if (row.message_id === null) return { body: null, problem: null };
    const json = this.deps.log.messageJson(row.message_id);
    if (json === null) return { body: null, problem: null };
    try {
      return { body: serializePayload(toWebhookPayload(JSON.parse(json) as InboundMessage)), problem: null };
    } catch (err) {
      return { body: null, problem: { reason: 'unmappable', detail: (err as Error).message } };
    }
  }

  private async sendRound(job: RoundJob, body: Uint8Array, attempts: NewAttempt[], settings: DeliverySettings): Promise<void> {
    // Each attempt is written as soon as its answer is in, so a round waiting on one slow URL
    // already shows what the others answered; the decision waits for the whole round.
    const results = await Promise.all(
      attempts.map(async (a, k) => {
        const r = await this.deps.sender.send({ url: a.url, headers: a.requestHeaders, body, timeoutMs: settings.timeoutMs });
        const attempt = job.attempts[k];
        if (attempt) {
          this.finished.attempts.push(finishedAttempt(attempt.id, r));
          this.finished.touched.add(job.delivery.id);
          this.queueFlush();
        }
        return r;
      }),
    );
    const now = this.deps.clock.now();
    const decision = decideAfterRound({
      results,
      firstAttemptAt: job.firstAttemptAt,
      now,
      round: job.round,
      schedule: settings,
      random: this.random,
      warp: job.delivery.warp,
    });
    const last = results[results.length - 1];
    const lastError = results.map((r) => r.errorText).filter((t): t is string => t !== null).join('; ') || null;
    // A status counts only when the attempt ended on it: a 200 whose body timed out is a timeout.
    const lastHttpStatus =
      results.find((r) => classifyAttempt(r) === 'success')?.status ??
      (last && (last.errorKind === 'http' || last.errorKind === 'redirect') ? last.status : null);
    if (decision.outcome === 'retry' && !this.deps.destination(job.delivery.destination_id)) {
      // Removed while this round was out: no retry will ever be sent, so the delivery ends here.
      this.finished.deliveries.push({ ...discard(job.delivery, now, { reason: 'destination_removed', detail: null }), lastHttpStatus });
    } else {
      this.finished.deliveries.push({
        deliveryId: job.delivery.id,
        status: decision.outcome === 'succeeded' ? 'succeeded' : decision.outcome === 'retry' ? 'retrying' : 'failed',
        nextAttemptAt: decision.outcome === 'retry' ? decision.at : null,
        pendingUrls: decision.outcome === 'retry' ? decision.urls : null,
        lastHttpStatus,
        lastError: decision.outcome === 'succeeded' ? null : decision.outcome === 'failed' ? decision.reason : (lastError ?? decision.reason),
        decision: decision.outcome === 'succeeded' ? null : decision.decision,
        finishedAt: decision.outcome === 'retry' ? null : now,
      });
    }
    this.queueFlush();
  }

  /** Rounds finishing close together are written in one transaction. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flushFinished();
    });
  }

  private flushFinished(): void {
    // The log may be closed by now; what these rounds learnt is redone after the next start.
    if (this.abandoned) return;
    const batch = this.finished;
    if (batch.attempts.length === 0 && batch.deliveries.length === 0) return;
    // Kept, not lost: every finished round is written once the log takes writes again.
    if (!this.writable()) return;
    const written = this.guard(() => this.deps.log.finishRounds(batch.attempts, batch.deliveries));
    if (!written) return;
    this.finished = { attempts: [], deliveries: [], touched: new Set() };
    this.deps.storage?.succeeded();
    this.guard(() => {
      this.deps.onChange?.([...new Set([...batch.touched, ...batch.deliveries.map((d) => d.deliveryId)])]);
      this.armTimer();
    });
  }
}

function finishedAttempt(attemptId: number, r: AttemptResult): FinishedAttempt {
  return {
    attemptId,
    verdict: classifyAttempt(r),
    httpStatus: r.status,
    timings: r.timings,
    responseHeaders: r.responseHeaders,
    responseBody: r.responseBody,
    responseBytes: r.responseBytes,
    responseTruncated: r.responseTruncated,
    errorKind: r.errorKind,
    errorText: r.errorText,
    failure: failureOf(r),
    retryAfterMs: r.retryAfterMs,
    sentHeaders: r.sentHeaders ?? null,
  };
}

/** A replay aimed at one URL goes there; otherwise the URLs still pending, else every entry switched on. */
export function targetsOf(row: Pick<DeliveryRow, 'target_url' | 'pending_urls'>, destination: Destination | undefined): string[] {
  if (row.target_url) return [row.target_url];
  if (!destination) return [];
  // An entry switched off, even between two rounds of a delivery, is not sent to.
  const all = destination.webhooks.filter((w) => w.enabled !== false).map((w) => w.url);
  if (row.pending_urls === null) return all;
  const pending = JSON.parse(row.pending_urls) as string[];
  // An entry removed from the destination since the last round is no longer tried.
  return pending.filter((url) => all.includes(url));
}

/** Why a due delivery cannot go out at all; it is then discarded, with this reason, and stays replayable. */
type NotSent = { reason: NotSentReason; detail: string | null };

function whyNotSent(destination: Destination | undefined, body: Uint8Array | null, targets: string[], row: DeliveryRow): NotSent | null {
  const because = (reason: NotSentReason): NotSent => ({ reason, detail: null });
  if (!destination) return because('destination_removed');
  // A replay aimed at one URL, and a test event, were asked for explicitly; the switch governs the live traffic.
  if (!destination.enabled && row.target_url === null && row.test !== 1) return because('destination_off');
  if (body === null) return because('message_gone');
  if (targets.length === 0) return because(destination.webhooks.length === 0 ? 'no_urls' : 'urls_off');
  return null;
}

function discard(row: DeliveryRow, now: number, why: NotSent): DeliveryUpdate {
  const decision: DeliveryDecision = { code: 'not_sent', ...why };
  return {
    deliveryId: row.id,
    status: 'discarded',
    nextAttemptAt: null,
    pendingUrls: null,
    lastHttpStatus: row.last_http_status,
    lastError: decisionText(decision),
    decision,
    finishedAt: now,
  };
}
