/**
 * What happened to an attempt and what the engine decided after a round, as data with their
 * parameters, and the one place those records are turned into words. The engine stores the
 * records (attempts.failure, deliveries.decision); every view that shows them words them here,
 * so rewording a sentence never breaks a reader. Pure, and free of Node APIs so the renderer can
 * use it too.
 */

/**
 * Why an attempt did not get a usable response. `http` = a response arrived with a non-2xx,
 * non-3xx status; `recorded` = an attempt written before failures were kept as data, known only
 * by its words.
 */
export type AttemptFailure =
  | { kind: 'http'; status: number; statusText: string | null }
  | { kind: 'redirect'; status: number; statusText: string | null; location: string | null }
  | { kind: 'timeout'; timeoutMs: number; status: number | null }
  | { kind: 'connect'; host: string; code: string }
  | { kind: 'dns'; host: string; code: string }
  | { kind: 'reset'; code: string | null; message: string }
  /** certificate: what is wrong with the receiver's certificate, when the code says; else a failed handshake. */
  | { kind: 'tls'; host: string; code: string; certificate: string | null; message: string }
  | { kind: 'protocol'; code: string | null; message: string }
  | { kind: 'interrupted' }
  | { kind: 'other'; code: string | null; message: string }
  | { kind: 'recorded'; errorKind: string | null; status: number | null; text: string | null };

/** One attempt of a round as a decision remembers it. */
export interface AttemptOutcome {
  url: string;
  status: number | null;
  /** Null only for a success. */
  failure: AttemptFailure | null;
}

/** Why a due delivery was discarded without a request going out. */
export type NotSentReason = 'destination_removed' | 'destination_off' | 'message_gone' | 'no_urls' | 'urls_off' | 'unmappable';

/** What the engine decided for a delivery after a round (or instead of one). */
export type DeliveryDecision =
  | {
      code: 'retry';
      round: number;
      /** The real wait (already divided by the warp, when there is one). */
      delayMs: number;
      /** The time-warp factor the delivery runs at; absent in real time. */
      warp?: number;
      /** The receiver's Retry-After when it set the delay (it was longer than the backoff), else null. */
      retryAfterMs: number | null;
      /** The attempts that failed in a way worth retrying: their URLs are the ones retried. */
      failed: AttemptOutcome[];
      /** The attempts that failed for good: their URLs are not tried again. */
      notRetried: AttemptOutcome[];
    }
  | { code: 'window_exhausted'; round: number; retryWindowMs: number; attempts: AttemptOutcome[]; warp?: number }
  | { code: 'permanent'; round: number; attempts: AttemptOutcome[] }
  | { code: 'no_urls_tried' }
  | { code: 'not_sent'; reason: NotSentReason; detail: string | null };

/** "4 h", "1 min 30 s", "500 ms": windows and delays in the words a person reads them in. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  const h = Math.floor(rest / 3600);
  rest -= h * 3600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  if (h > 0) parts.push(`${h} h`);
  if (m > 0) parts.push(`${m} min`);
  if (s > 0) parts.push(`${s} s`);
  return parts.join(' ');
}

const statusLabel = (status: number, statusText: string | null): string => `${status}${statusText ? ` ${statusText}` : ''}`;

/** What went wrong with a TLS attempt, in a few words: the certificate problem, else the failed handshake. */
export function tlsProblem(f: Extract<AttemptFailure, { kind: 'tls' }>): string {
  return f.certificate ?? `TLS handshake with ${f.host} failed`;
}

/** The failure on its own, e.g. "HTTP 503 Service Unavailable", "no complete response within 300 ms". */
export function failureText(f: AttemptFailure): string {
  switch (f.kind) {
    case 'http':
      return `HTTP ${statusLabel(f.status, f.statusText)}`;
    case 'redirect':
      return f.location
        ? `redirect (${statusLabel(f.status, f.statusText)}) to ${f.location} not followed; webhooks must answer at the configured URL`
        : `redirect (${statusLabel(f.status, f.statusText)}) without a Location header not followed`;
    case 'timeout':
      return `no complete response within ${f.timeoutMs} ms${f.status === null ? '' : ` (status ${f.status} arrived, the body did not finish)`}`;
    case 'connect':
      return `${f.code === 'ECONNREFUSED' ? 'connection refused by' : 'could not connect to'} ${f.host} (${f.code})`;
    case 'dns':
      return `host name of ${f.host} could not be resolved (${f.code})`;
    case 'reset':
      return `connection closed by the receiver before a complete response (${f.code ? `${f.code}: ` : ''}${f.message})`;
    case 'tls':
      return f.certificate ? `${f.certificate}; request not sent (${f.code})` : `${tlsProblem(f)}; request not sent (${f.code}: ${f.message})`;
    case 'protocol':
      return `the response is not valid HTTP/1.1 (${f.code ? `${f.code}: ` : ''}${f.message})`;
    case 'interrupted':
      return 'Hookbench stopped while this attempt was in flight; the delivery was resumed at start-up';
    case 'other':
      return f.code ? `${f.code}: ${f.message}` : f.message;
    case 'recorded':
      return f.text ?? (f.status === null ? 'no response' : `HTTP ${f.status}`);
  }
}

/** The error kind an attempt row keeps beside its failure (the API's errorKind). */
export function errorKindOf(f: AttemptFailure): string | null {
  return f.kind === 'recorded' ? f.errorKind : f.kind;
}

/** One failed attempt in a few words, its kind first unless its words already say it is a status. */
export function describeFailure(f: AttemptFailure): string {
  const kind = errorKindOf(f);
  if (kind === null || kind === 'http' || kind === 'redirect') return failureText(f);
  return `${kind}: ${failureText(f)}`;
}

export function describeOutcome(a: AttemptOutcome): string {
  return a.failure ? describeFailure(a.failure) : `HTTP ${a.status}`;
}

function listOutcomes(attempts: AttemptOutcome[]): string {
  return attempts.map((a) => `${a.url} (${describeOutcome(a)})`).join('; ');
}

const NOT_SENT: Record<Exclude<NotSentReason, 'unmappable'>, string> = {
  destination_removed: 'its destination was removed',
  destination_off: 'its destination is switched off',
  message_gone: 'its message is gone from the log',
  no_urls: 'its destination has no webhook URLs',
  urls_off: 'every webhook URL of its destination is switched off',
};

/** Why a delivery was not sent, e.g. "its destination is switched off". */
export function notSentText(reason: NotSentReason, detail: string | null): string {
  return reason === 'unmappable' ? `its stored message cannot be made into a webhook payload (${detail ?? 'no details'})` : NOT_SENT[reason];
}

/** The decision in one sentence, as the delivery's last error shows it. */
export function decisionText(d: DeliveryDecision): string {
  switch (d.code) {
    case 'retry': {
      const because = d.retryAfterMs !== null ? ` as the receiver asked (Retry-After ${formatDuration(d.retryAfterMs)})` : '';
      const dropped = d.notRetried.length > 0 ? `; not retrying ${listOutcomes(d.notRetried)}` : '';
      const warped = d.warp !== undefined && d.warp > 1 ? ` (warped ×${d.warp}: ${formatDuration(d.delayMs * d.warp)} on the real schedule)` : '';
      return `round ${d.round} failed: ${listOutcomes(d.failed)}; retrying in ${formatDuration(d.delayMs)}${warped}${because}${dropped}`;
    }
    case 'window_exhausted': {
      const warped = d.warp !== undefined && d.warp > 1 ? ` (warped ×${d.warp}: ${formatDuration(d.retryWindowMs / d.warp)} of real time)` : '';
      return (
        `gave up: the retry window of ${formatDuration(d.retryWindowMs)} (${d.retryWindowMs} ms)${warped} ` +
        `after the first attempt is exhausted; last round: ${listOutcomes(d.attempts)}`
      );
    }
    case 'permanent':
      return `not retried, the failure is permanent: ${listOutcomes(d.attempts)}`;
    case 'no_urls_tried':
      return 'no webhook URL was tried';
    case 'not_sent':
      return `not sent: ${notSentText(d.reason, d.detail)}`;
  }
}

/**
 * Why an attempt counted as permanent, for the sentence saying there will be no retry. The
 * status rules match the retry policy: of the 4xx statuses only 408 and 429 are retried.
 */
export function permanentReason(status: number | null, f: AttemptFailure | null): string {
  if (f?.kind === 'tls') return `TLS certificate error (${tlsProblem(f)}), so no request was sent`;
  if (f?.kind === 'recorded' && f.errorKind === 'tls') return 'TLS certificate error, so no request was sent';
  if (f !== null && errorKindOf(f) === 'redirect') {
    return `${status ?? 'the answer'} is a redirect, and redirects are not followed (a webhook must answer at its configured URL)`;
  }
  if (status !== null && status >= 400 && status < 500) return `${status} is a client error (of the 4xx statuses only 408 and 429 are retried)`;
  if (status !== null) return `HTTP ${status} is not retried`;
  return f ? describeFailure(f) : 'no response';
}

/** A stored JSON record read defensively: a row written by hand or by another build may hold anything. */
export function parseRecord<T extends { kind: string } | { code: string }>(text: string | null | undefined, key: 'kind' | 'code'): T | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[key] === 'string' ? (value as T) : null;
  } catch {
    return null;
  }
}

const RECORDED_KIND_LABELS: Record<string, string> = {
  timeout: 'timeout',
  connect: 'no connection',
  dns: 'DNS',
  reset: 'reset',
  tls: 'TLS',
  protocol: 'bad HTTP',
  interrupted: 'interrupted',
};

/**
 * An attempt's outcome in a word or two, for a row with no room for sentences: "200", "503",
 * "timeout", "refused", "TLS". The whole sentence is failureText's.
 */
export function outcomeLabel(status: number | null, f: AttemptFailure | null): string {
  if (f === null) return status === null ? 'no response' : String(status);
  switch (f.kind) {
    case 'http':
      return String(f.status);
    case 'redirect':
      return `${f.status} redirect`;
    case 'timeout':
      return 'timeout';
    case 'connect':
      return f.code === 'ECONNREFUSED' ? 'refused' : 'no connection';
    case 'dns':
      return 'DNS';
    case 'reset':
      return 'reset';
    case 'tls':
      return 'TLS';
    case 'protocol':
      return 'bad HTTP';
    case 'interrupted':
      return 'interrupted';
    case 'other':
      return 'error';
    case 'recorded':
      if (f.errorKind === 'connect' && f.text?.includes('refused')) return 'refused';
      if (f.errorKind !== null && RECORDED_KIND_LABELS[f.errorKind]) return RECORDED_KIND_LABELS[f.errorKind] as string;
      return f.status === null ? 'error' : String(f.status);
  }
}
