/** An ingest refusal: the HTTP status, a stable code and a message that names the field and limit. */
export class IngestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Sent with the answer (Retry-After on a 503). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'IngestError';
  }

  /** SDKs read different keys for the reason, so all three are sent. */
  toBody(): string {
    return JSON.stringify({ success: false, code: this.code, message: this.message, error: this.message });
  }
}
