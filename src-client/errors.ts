import type { DeliveryBatch } from './types.js';

export type ValidationCode =
  | 'missing_field'
  | 'invalid_field'
  | 'message_too_large'
  | 'invalid_json'
  | 'invalid_option';

/** Thrown synchronously by a call (or the constructor) whose input is invalid; the call is not queued. */
export class AnalyticsValidationError extends Error {
  override readonly name = 'AnalyticsValidationError';
  readonly code: ValidationCode;
  /** The offending field (`userId|anonymousId`, `event`, `message` for the size limit, an option name…). */
  readonly field: string;
  /** The limit that was exceeded, in bytes, for `message_too_large`. */
  readonly limit: number | undefined;

  constructor(code: ValidationCode, field: string, message: string, limit?: number) {
    super(message);
    this.code = code;
    this.field = field;
    this.limit = limit;
  }
}

/** Thrown by a call made after close(). */
export class AnalyticsClosedError extends Error {
  override readonly name = 'AnalyticsClosedError';
  readonly code = 'client_closed';
  readonly field = 'client';

  constructor(call: string) {
    super(`analytics: ${call}() called after close(); create a new Analytics client`);
  }
}

export type DeliveryErrorCode = 'http_status' | 'network_error' | 'timeout';

/** Reported (never thrown) when a batch is given up. */
export class AnalyticsDeliveryError extends Error {
  override readonly name = 'AnalyticsDeliveryError';
  readonly code: DeliveryErrorCode;
  /** HTTP status of the last attempt, when there was a response. */
  readonly status: number | undefined;
  /** Requests made for this batch. */
  readonly attempts: number;
  /** Whether the last failure was of a retryable kind (true means retries were exhausted). */
  readonly retryable: boolean;
  /** Why the batch was given up, e.g. `HTTP 400: {"code":"…"}` or `connect ECONNREFUSED …`. */
  readonly reason: string;
  readonly batch: DeliveryBatch;

  constructor(init: {
    code: DeliveryErrorCode;
    status?: number;
    attempts: number;
    retryable: boolean;
    reason: string;
    batch: DeliveryBatch;
  }) {
    const why = init.retryable ? `gave up after ${init.attempts} attempts` : 'not retried';
    super(`analytics: batch of ${init.batch.messages.length} messages failed (${why}): ${init.reason}`);
    this.code = init.code;
    this.status = init.status;
    this.attempts = init.attempts;
    this.retryable = init.retryable;
    this.reason = init.reason;
    this.batch = init.batch;
  }
}
