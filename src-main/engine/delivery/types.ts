import type { AttemptFailure, DeliveryDecision } from '../../../src-shared/delivery-outcomes';

/**
 * The delivery room's internal contract: what one HTTP attempt is asked to do, what it reports,
 * and what the retry policy decides from it. Pure data; no I/O here.
 */

/** Why an attempt did not get a usable response. `http` = a response arrived with a non-2xx status. */
export type ErrorKind =
  | 'timeout'
  | 'connect'
  | 'dns'
  | 'tls'
  | 'reset'
  | 'http'
  | 'redirect'
  | 'protocol'
  | 'interrupted'
  | 'other';

export interface AttemptRequest {
  url: string;
  /** Complete request headers, including Content-Type, User-Agent and X-Signature when signed. */
  headers: Record<string, string>;
  /** The exact bytes to send: never re-serialized on the way out. */
  body: Uint8Array;
  /** The receiver must have answered (status and whole body) within this long. */
  timeoutMs: number;
}

/** What sends attempts: sender.ts over undici in the engine, a stand-in in tests of the scheduler. */
export interface Sender {
  send(req: AttemptRequest): Promise<AttemptResult>;
  /**
   * Lets attempts in flight finish (each is bounded by its own deadline), then closes every socket;
   * with abort, ends the attempts in flight and their sockets at once.
   */
  close(options?: { abort?: boolean }): Promise<void>;
}

export interface AttemptTimings {
  /**
   * Waiting for a connection to the receiver to be free (delivery/connection-gate.ts); absent when
   * the attempt went at once. The phases below, first byte and total count from after it, and so
   * does the attempt's timeout.
   */
  queuedMs?: number;
  /** Time to resolve the host name; absent when no lookup happened (IP literal or reused socket). */
  dnsMs?: number;
  /** TCP connect; absent on a reused keep-alive socket. */
  connectMs?: number;
  /** TLS handshake; https only, absent on a reused socket. */
  tlsMs?: number;
  /** From the attempt going (after any queued wait) until the response status and headers arrived. */
  firstByteMs?: number;
  /** From the attempt going (after any queued wait) until the response was complete or the attempt failed. */
  totalMs: number;
}

export interface AttemptResult {
  url: string;
  /** Clock time (ms since epoch) when the attempt started. */
  startedAt: number;
  timings: AttemptTimings;
  /** The HTTP status, or null when no response arrived. */
  status: number | null;
  responseHeaders: Record<string, string | string[]>;
  /** At most RESPONSE_BODY_CAP bytes of the response body. */
  responseBody: Uint8Array;
  /** Total bytes of response body read (may exceed what was kept; reading stops at a hard bound). */
  responseBytes: number;
  responseTruncated: boolean;
  errorKind: ErrorKind | null;
  /** Plain words, e.g. "no response within 5000 ms", "self-signed certificate: request not sent". */
  errorText: string | null;
  /** The failure as data (errorKind and errorText are made from it); absent from results built by hand. */
  failure?: AttemptFailure | null;
  /** From Retry-After on a 429/503 response, in ms, when present and parseable. */
  retryAfterMs: number | null;
  /**
   * The request headers as written on the wire, in order (Host, Connection and Content-Length
   * included); null when no request was written (refused connection, bad certificate). Absent from
   * results built by hand.
   */
  sentHeaders?: [string, string][] | null;
}

export const RESPONSE_BODY_CAP = 64 * 1024;

/** How a single attempt counts toward the delivery. */
export type AttemptVerdict = 'success' | 'retryable' | 'permanent';

/** What happens to a delivery after a round of attempts. */
export type RetryDecision =
  | { outcome: 'succeeded' }
  | { outcome: 'retry'; at: number; urls: string[]; reason: string; decision: DeliveryDecision }
  | { outcome: 'failed'; reason: string; decision: DeliveryDecision };
