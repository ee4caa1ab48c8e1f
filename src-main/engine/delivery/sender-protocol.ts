/**
 * What the engine's thread and the sending thread (sender-worker.ts) say to each other: plain data
 * only (structured clone).
 */
import type { AttemptRequest, AttemptResult } from './types';

export interface SenderWorkerData {
  /** Extra CA certificate(s) to trust besides the system roots (PEM). */
  ca?: string;
}

export type ToSender =
  /** Send this attempt; `now` is the engine clock's time, the attempt's start. */
  | { send: number; now: number; req: AttemptRequest }
  /** The attempt's deadline passed on the engine's clock: end it, as a timeout. */
  | { expire: number }
  /** Close every socket, once the attempts in flight are done, or at once with abort. */
  | { close: true; abort: boolean };

export type FromSender =
  | { ready: true }
  | { done: number; result: AttemptResult }
  | { closed: true };
