/** Store rows → the view types of the contract (src-shared/api.ts). Pure. */
import {
  type AttemptView,
  type DeliverySummary,
  type InboundRequest,
  type UrlOutcome,
} from '../../../src-shared/api';
import { parseRecord, type AttemptFailure } from '../../../src-shared/delivery-outcomes';
import { toIso as iso } from '../ingest/timestamps';
import type { AttemptRow } from '../store/log-store';
import type { SummaryRow, UrlOutcomeRow } from '../store/delivery-views';
import type { RequestRow } from '../store/requests';

export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
export const parseOr = <T>(text: string | null, fallback: T): T => (text === null ? fallback : (JSON.parse(text) as T));

/** "12,9,15" → [15, 12, 9]: newest first, as the contract promises. */
export function replayIdsOf(text: string | null | undefined): number[] {
  if (!text) return [];
  return text
    .split(',')
    .map(Number)
    .filter((n) => Number.isSafeInteger(n) && n > 0)
    .sort((a, b) => b - a);
}

/** An attempt's recorded failure; a row written before failures were kept is known by its words. */
export function recordedFailure(a: Pick<AttemptRow, 'failure' | 'error_kind' | 'error_text' | 'http_status'>): AttemptFailure | null {
  const kept = parseRecord<AttemptFailure>(a.failure, 'kind');
  if (kept) return kept;
  if (a.error_kind === null && a.error_text === null) return null;
  return { kind: 'recorded', errorKind: a.error_kind, status: a.http_status, text: a.error_text };
}

export function toUrlOutcome(a: UrlOutcomeRow): UrlOutcome {
  return {
    url: a.url,
    round: a.round,
    state: a.state,
    httpStatus: a.http_status,
    failure: a.state === 'in_flight' ? null : recordedFailure(a),
    startedAt: iso(a.started_at),
  };
}

/** A list row; urls are the latest attempt per URL (DeliveryViewStore.urlOutcomes), none when not asked. */
export function toSummary(r: SummaryRow, urls: UrlOutcomeRow[] = []): DeliverySummary {
  return {
    id: r.id,
    messageRowId: r.message_row_id,
    destinationId: r.destination_id,
    type: r.payload_type,
    status: r.status,
    userId: r.user_id,
    anonymousId: r.anonymous_id,
    event: r.event,
    messageId: r.message_uid,
    createdAt: iso(r.created_at),
    nextAttemptAt: isoOrNull(r.next_attempt_at),
    rounds: r.rounds,
    lastHttpStatus: r.last_http_status,
    lastError: r.last_error,
    replayOf: r.replay_of,
    entries: r.entries ?? 0,
    latencyMs: typeof r.latency_ms === 'number' ? r.latency_ms : null,
    replays: replayIdsOf(r.replay_ids),
    warp: r.warp >= 1 ? r.warp : 1,
    destinationName: r.destination_name ?? null,
    sourceName: r.source_name ?? null,
    name: typeof r.name === 'string' ? r.name : null,
    urls: urls.map(toUrlOutcome),
    test: r.test === 1,
    violations: r.violations ?? 0,
  };
}

export function toAttempt(a: AttemptRow): AttemptView {
  return {
    id: a.id,
    url: a.url,
    startedAt: iso(a.started_at),
    round: a.round,
    state: a.state,
    verdict: a.verdict,
    httpStatus: a.http_status,
    requestHeaders: parseOr(a.request_headers, {}),
    sentHeaders: parseOr(a.sent_headers ?? null, null),
    timings: parseOr(a.timings, null),
    responseHeaders: parseOr(a.response_headers, null),
    responseBody: a.response_body === null ? null : a.response_body.toString('utf8'),
    responseBytes: a.response_bytes,
    responseTruncated: a.response_truncated === 1,
    errorKind: a.error_kind,
    errorText: a.error_text,
    retryAfterMs: a.retry_after_ms,
  };
}

export function toRequest(r: RequestRow): InboundRequest {
  return {
    id: r.id,
    sourceId: r.source_id,
    path: r.path,
    receivedAt: iso(r.received_at),
    httpStatus: r.http_status,
    bytes: r.bytes,
    items: r.items,
    accepted: r.accepted,
    dropped: r.dropped,
    duplicates: r.duplicates,
    userAgent: r.user_agent,
    errorCode: r.error_code,
    errorText: r.error_text,
  };
}

