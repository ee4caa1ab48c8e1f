import type { ApiFieldError } from '../src-shared/api';

/** A refused call, whatever the transport: the engine's code and message, and the refused fields. */
export class ApiCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** For validation_failed: each refused field by its path (e.g. `destination.webhooks[5]`) and why. */
    readonly fields?: ApiFieldError[],
  ) {
    super(message);
  }
}

/** A refusal by field when the engine named fields, else its whole message placed under `field`. */
export function refusalOf(err: unknown, field = 'general'): ApiFieldError[] {
  if (err instanceof ApiCallError && err.fields && err.fields.length > 0) return err.fields;
  return [{ field, message: err instanceof Error ? err.message : String(err) }];
}
