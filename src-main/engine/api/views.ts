/** Log rows → the view types of the contract (src-shared/api.ts). Pure. */
import {
  type AttemptView,
  type DeliveryStatus,
  type DeliverySummary,
  type InboundRequest,
} from '../../../src-shared/api';
import { toIso as iso } from '../ingest/timestamps';
import type { AttemptRow } from '../store/log-store';

export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));
export const parseOr = <T>(text: string | null, fallback: T): T => (text === null ? fallback : (JSON.parse(text) as T));

export interface SummaryRow {
  id: number;
  message_row_id: number | null;
  destination_id: number;
  payload_type: string;
  status: DeliveryStatus;
  created_at: number;
  next_attempt_at: number | null;
  rounds: number;
  last_http_status: number | null;
  last_error: string | null;
  replay_of: number | null;
  user_id: string | null;
  anonymous_id: string | null;
  event: string | null;
  message_uid: string | null;
  /** The summary's computed columns (SUMMARY_COLUMNS); absent from rows selected without them. */
  entries?: number;
  latency_ms?: number | null;
  /** Comma-separated ids of the replays made of this delivery, in no particular order. */
  replay_ids?: string | null;
}
export interface DetailRow extends SummaryRow {
  body: Buffer | null;
  target_url: string | null;
  edited: number;
  first_attempt_at: number | null;
  finished_at: number | null;
}
export interface RequestRow {
  id: number;
  source_id: number | null;
  path: string;
  received_at: number;
  http_status: number;
  bytes: number;
  items: number;
  accepted: number;
  dropped: number;
  duplicates: number;
  user_agent: string | null;
  error_code: string | null;
  error_text: string | null;
}

/**
 * A delivery not made from a message (a delete notice) names its user in its own bytes: the
 * summary's ids are read from the body then (string values of a JSON object only), and from the
 * message otherwise.
 */
export const fromBody = (key: string): string =>
  `CASE WHEN d.message_id IS NULL AND json_valid(CAST(d.body AS TEXT)) THEN
     CASE WHEN json_type(CAST(d.body AS TEXT), '$.${key}') = 'text' THEN json_extract(CAST(d.body AS TEXT), '$.${key}') END END`;

// The body is left out of list rows: a page of summaries must not drag every payload along.
export const BASE_SUMMARY_COLUMNS = `d.id, d.message_id AS message_row_id, d.destination_id, d.payload_type, d.status, d.created_at,
  d.next_attempt_at, d.rounds, d.last_http_status, d.last_error, d.replay_of,
  COALESCE(m.user_id, ${fromBody('userId')}) AS user_id, COALESCE(m.anonymous_id, ${fromBody('anonymousId')}) AS anonymous_id,
  COALESCE(m.event, ${fromBody('event')}) AS event, COALESCE(m.message_id, ${fromBody('messageId')}) AS message_uid`;

/**
 * Entries, latency and replays as correlated subqueries: each is one index seek per row
 * (webhook_entries_destination, attempts_delivery, deliveries_replay_of), so a statement that
 * selects them must bound its rows first (a page's LIMIT, a list of ids), never compute them
 * for rows a sort or a filter will throw away.
 */
export const COMPUTED_SUMMARY_COLUMNS = `
  CASE WHEN d.target_url IS NOT NULL THEN 1
       ELSE (SELECT COUNT(*) FROM webhook_entries w WHERE w.destination_id = d.destination_id) END AS entries,
  (SELECT json_extract(a.timings, '$.totalMs') FROM attempts a
     WHERE a.delivery_id = d.id AND a.state = 'done' ORDER BY a.id DESC LIMIT 1) AS latency_ms,
  (SELECT group_concat(r.id) FROM deliveries r WHERE r.replay_of = d.id) AS replay_ids`;

export const SUMMARY_COLUMNS = `${BASE_SUMMARY_COLUMNS},${COMPUTED_SUMMARY_COLUMNS}`;

/** "12,9,15" → [15, 12, 9]: newest first, as the contract promises. */
export function replayIdsOf(text: string | null | undefined): number[] {
  if (!text) return [];
  return text
    .split(',')
    .map(Number)
    .filter((n) => Number.isSafeInteger(n) && n > 0)
    .sort((a, b) => b - a);
}

export function toSummary(r: SummaryRow): DeliverySummary {
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

