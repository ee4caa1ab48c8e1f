import type Database from 'better-sqlite3';
import { joinTransaction, type Db } from './database';
import { statements } from './statements';
import { freshBodiesOf, type FreshBodies } from './fresh-bodies';
import { BODY_DEFLATE_MESSAGE, BODY_OF, BODY_RAW, packBody } from './body-pack';
import type { InboundMessage, IngestWarning } from '../../../src-shared/events';
import type { Violation } from '../../../src-shared/assertions';
import { failureText, type AttemptFailure, type DeliveryDecision } from '../../../src-shared/delivery-outcomes';
import { REQUEST_BODY_LIMITS } from '../../../src-shared/api';
import { keptRequestBody } from './request-body-pack';
import { clip, clipBody, decideRefused, REFUSED_TEXT_LIMITS, SUMMARY_CODE, summaryText, type RefusedWindow } from './refused-log';

export type DeliveryStatus = 'pending' | 'in_flight' | 'succeeded' | 'retrying' | 'failed' | 'discarded';

export interface RequestRecord {
  sourceId: number | null;
  path: string;
  receivedAt: number;
  httpStatus: number;
  bytes: number;
  userAgent: string | null;
  errorCode?: string;
  errorText?: string;
  /** The headers as received (JSON, credentials masked); absent in records made inside the engine. */
  headers?: string | null;
  /** The body's text as received, already cut to the accepted bound. */
  body?: string | null;
  bodyClipped?: boolean;
  /**
   * Adds the messages (and their bytes and counts) to this request instead of making one: a sync
   * commits its identify calls in slices, and they stay one Inbound request.
   */
  appendTo?: number;
}

export interface DroppedItem {
  index: number;
  kind: 'invalid' | 'duplicate';
  reason: string;
  raw: string;
}

export interface AcceptedItem {
  /** Position in the request's batch, so a duplicate's dropped-item row names the right item; else its position among the accepted. */
  index?: number;
  /** The item as received (writeKey stripped); serialized only if it turns out a duplicate, so Inbound shows what the SDK sent. */
  raw?: unknown;
  message: InboundMessage;
  json: string;
  /** Destinations this message is routed to (integrations already applied). */
  destinationIds: number[];
  /**
   * The webhook body its deliveries send (the mapped payload), when the caller mapped it: stored on
   * each delivery at commit, so the first attempt needs neither the message nor the mapping.
   */
  body?: Uint8Array | null;
  /** `body` packed against `json` (`packBody`) before the commit; absent, the commit packs it. */
  packedBody?: Buffer;
  /** What ingest could not use in it; stored beside the message, never inside its JSON. */
  warnings?: IngestWarning[];
  /** Where it fails the tracking plan; stored beside the message like its warnings. */
  violations?: Violation[];
}

export interface CommitResult {
  requestId: number;
  accepted: number;
  duplicates: number;
  deliveries: number;
  /** The deliveries this commit made (a request appended to has others from before). */
  deliveryIds: number[];
}

/** A row of the messages table (the columns the readers use). */
export interface MessageRow {
  id: number;
  message_id: string;
  type: string;
  user_id: string | null;
  anonymous_id: string | null;
  event: string | null;
  received_at: number;
  json: string;
  /** JSON list of IngestWarning, or NULL. */
  warnings?: string | null;
  /** JSON list of Violation, or NULL. */
  violations?: string | null;
}

export interface DeliveryRow {
  id: number;
  message_id: number | null;
  destination_id: number;
  payload_type: string;
  status: DeliveryStatus;
  body: Buffer | null;
  target_url: string | null;
  replay_of: number | null;
  edited: number;
  created_at: number;
  first_attempt_at: number | null;
  next_attempt_at: number | null;
  rounds: number;
  pending_urls: string | null;
  last_http_status: number | null;
  last_error: string | null;
  /** JSON DeliveryDecision; NULL when delivered and on rows written before decisions were kept. */
  decision: string | null;
  finished_at: number | null;
  /** Time-warp factor the delivery was created with (1 = real time). */
  warp: number;
  /** 1 for a test event: made from a sample, sent like any delivery, never from an accepted call. */
  test?: number;
}

export interface AttemptRow {
  id: number;
  delivery_id: number;
  round: number;
  url: string;
  started_at: number;
  state: 'in_flight' | 'done' | 'interrupted';
  verdict: string | null;
  http_status: number | null;
  request_headers: string;
  timings: string | null;
  response_headers: string | null;
  response_body: Buffer | null;
  response_bytes: number | null;
  response_truncated: number | null;
  error_kind: string | null;
  error_text: string | null;
  /** JSON AttemptFailure; NULL for a success and on rows written before failures were kept. */
  failure: string | null;
  retry_after_ms: number | null;
  /** JSON list of [name, value] as written on the wire; NULL when nothing was written, and on older rows. */
  sent_headers?: string | null;
}

export interface NewAttempt {
  deliveryId: number;
  round: number;
  url: string;
  startedAt: number;
  requestHeaders: Record<string, string>;
}

export interface FinishedAttempt {
  attemptId: number;
  verdict: string;
  httpStatus: number | null;
  timings: unknown;
  responseHeaders: unknown;
  responseBody: Uint8Array;
  responseBytes: number;
  responseTruncated: boolean;
  errorKind: string | null;
  errorText: string | null;
  /** The failure as data (errorKind and errorText are its words); null for a success. */
  failure: AttemptFailure | null;
  retryAfterMs: number | null;
  /** The headers as written on the wire; null when no request was written. */
  sentHeaders?: [string, string][] | null;
}

export interface DeliveryUpdate {
  deliveryId: number;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
  pendingUrls: string[] | null;
  lastHttpStatus: number | null;
  lastError: string | null;
  /** What was decided, as data (lastError is its words); null once delivered. */
  decision: DeliveryDecision | null;
  finishedAt: number | null;
}

const INTERRUPTED: AttemptFailure = { kind: 'interrupted' };

/** A DeliveryRow over deliveries d: every column, the body as it was sent (unpacked when stored packed). */
/** A delivery's columns but its body. */
const DELIVERY_HEAD_COLUMNS = `d.id, d.message_id, d.destination_id, d.payload_type, d.status, d.target_url, d.replay_of,
  d.edited, d.created_at, d.first_attempt_at, d.next_attempt_at, d.rounds, d.pending_urls, d.last_http_status, d.last_error,
  d.decision, d.finished_at, d.warp, d.test`;
const DELIVERY_COLUMNS = `${DELIVERY_HEAD_COLUMNS}, ${BODY_OF('d')} AS body`;

/**
 * The warp of the destination named by the statement's destination_id parameter, read where a
 * replay or a notice is inserted; real time when the destination is gone.
 */
const WARP_OF_DESTINATION = 'COALESCE((SELECT warp FROM destinations WHERE id = ?), 1)';

/** A refused call keeps only the start of its body: it costs its sender nothing, so it is bounded harder. */
function refusedBody(record: RequestRecord): Pick<RequestRecord, 'body' | 'bodyClipped'> {
  if (record.body === undefined || record.body === null) return { body: null, bodyClipped: record.bodyClipped ?? false };
  const { body, clipped } = clipBody(record.body, REQUEST_BODY_LIMITS.refused);
  return { body, bodyClipped: clipped || (record.bodyClipped ?? false) };
}

/**
 * The message log and the delivery queue: SQLite is the queue, so every state change
 * of a delivery is a row update here, and the scheduler only ever works from what is committed.
 */
export class LogStore {
  private readonly s;
  private refusedWindow: RefusedWindow | null = null;
  private follower: ((firstMessageId: number) => void) | null = null;

  private readonly fresh: FreshBodies;

  constructor(private readonly db: Db) {
    this.fresh = freshBodiesOf(db);
    this.s = statements(db, {
      insertRequest: `INSERT INTO requests (source_id, path, received_at, http_status, bytes, user_agent, error_code, error_text, headers, body, body_format, body_clipped)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      insertMessage: `INSERT OR IGNORE INTO messages
           (source_id, request_id, message_id, dedupe_key, type, user_id, anonymous_id, event, received_at, json, warnings, violations)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      findDuplicate: 'SELECT id, received_at FROM messages WHERE source_id = ? AND dedupe_key = ?',
      lastMessageId: 'SELECT COALESCE(MAX(id), 0) AS id FROM messages',
      releaseDedupeKey: 'UPDATE messages SET dedupe_key = NULL WHERE id = ?',
      // A delivery takes its destination's warp when it is made, and keeps it.
      insertDelivery: `INSERT INTO deliveries (message_id, destination_id, payload_type, status, body, body_format, created_at, next_attempt_at, warp)
         VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
      destinationWarps: 'SELECT id, warp FROM destinations WHERE warp > 1',
      insertDropped: 'INSERT INTO dropped_items (request_id, item_index, kind, reason, raw) VALUES (?, ?, ?, ?, ?)',
      finishRequest: 'UPDATE requests SET items = ?, accepted = ?, dropped = ?, duplicates = ? WHERE id = ?',
      growRequest: 'UPDATE requests SET items = items + ?, accepted = accepted + ?, dropped = dropped + ?, duplicates = duplicates + ?, bytes = bytes + ? WHERE id = ?',
      insertAttempt: `INSERT INTO attempts (delivery_id, round, url, started_at, state, request_headers)
         VALUES (?, ?, ?, ?, 'in_flight', ?)`,
      finishAttempt: `UPDATE attempts SET state = 'done', verdict = ?, http_status = ?, timings = ?, response_headers = ?,
           response_body = ?, response_bytes = ?, response_truncated = ?, error_kind = ?, error_text = ?, failure = ?,
           retry_after_ms = ?, sent_headers = ?
         WHERE id = ?`,
      addToSummary: 'UPDATE requests SET bytes = bytes + ?, error_text = ? WHERE id = ?',
      selectMessageJson: 'SELECT json FROM messages WHERE id = ?',
      selectDueHeads: `SELECT ${DELIVERY_HEAD_COLUMNS} FROM deliveries d WHERE status IN ('pending', 'retrying') AND next_attempt_at <= ?
         ORDER BY next_attempt_at, id LIMIT ?`,
      bodyOfDelivery: `SELECT ${BODY_OF('d')} AS body FROM deliveries d WHERE d.id = ?`,
      markInFlight: `UPDATE deliveries SET status = 'in_flight', first_attempt_at = ?, rounds = ? WHERE id = ?`,
      // A body is written once: at commit when ingest mapped it, else at the first round (a replay's with the row); packed when it has a message.
      unwrittenBody: 'SELECT d.message_id, m.json FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id WHERE d.id = ? AND d.body IS NULL',
      writeBody: 'UPDATE deliveries SET body = ?, body_format = ? WHERE id = ?',
      packBelow: 'SELECT below FROM delivery_pack_backfill',
      packSlice: `SELECT d.id, d.body, d.body_format, m.json FROM deliveries d LEFT JOIN messages m ON m.id = d.message_id
         WHERE d.id < ? ORDER BY d.id DESC LIMIT ?`,
      packSet: 'UPDATE delivery_pack_backfill SET below = ?',
      updateDelivery: `UPDATE deliveries SET status = ?, next_attempt_at = ?, pending_urls = ?, last_http_status = ?, last_error = ?,
           decision = ?, finished_at = ? WHERE id = ?`,
      insertReplay: `INSERT INTO deliveries (message_id, destination_id, payload_type, status, body, body_format, target_url, replay_of, edited, created_at, next_attempt_at, warp)
         VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ${WARP_OF_DESTINATION})`,
      insertPrebuilt: `INSERT INTO deliveries (message_id, destination_id, payload_type, status, body, created_at, next_attempt_at, warp)
         VALUES (NULL, ?, ?, 'pending', ?, ?, ?, ${WARP_OF_DESTINATION})`,
      retryNow: `UPDATE deliveries SET next_attempt_at = ? WHERE id = ? AND status IN ('pending', 'retrying')`,
      firstReplayOf: 'SELECT MIN(id) AS id FROM deliveries WHERE replay_of = ?',
      insertTest: `INSERT INTO deliveries (message_id, destination_id, payload_type, status, body, target_url, test, created_at, next_attempt_at, warp)
         VALUES (NULL, ?, ?, 'pending', ?, ?, 1, ?, ?, ${WARP_OF_DESTINATION})`,
      nextDueAt: `SELECT MIN(next_attempt_at) AS at FROM deliveries WHERE status IN ('pending', 'retrying')`,
      interruptAttempts: `UPDATE attempts SET state = 'interrupted', verdict = 'retryable', error_kind = 'interrupted',
           error_text = ?, failure = ? WHERE state = 'in_flight'`,
      // No index holds the in-flight deliveries (every delivery passes through that status): the
      // ones with an in-flight attempt are found through attempts_in_flight, the count kept by
      // triggers tells whether any is left, and only then is the whole table read.
      inFlightCount: "SELECT COALESCE((SELECT n FROM delivery_status_counts WHERE status = 'in_flight'), 0) AS n",
      resumeDeliveriesOfAttempts: `UPDATE deliveries SET status = 'retrying', next_attempt_at = ?
         WHERE id IN (SELECT delivery_id FROM attempts WHERE state = 'in_flight') AND status = 'in_flight'`,
      resumeDeliveries: `UPDATE deliveries SET status = 'retrying', next_attempt_at = ? WHERE status = 'in_flight'`,
      delivery: `SELECT ${DELIVERY_COLUMNS} FROM deliveries d WHERE id = ?`,
      attemptsOf: 'SELECT * FROM attempts WHERE delivery_id = ? ORDER BY id',
      deliveryPage: `SELECT ${DELIVERY_COLUMNS} FROM deliveries d WHERE id < ? AND (? IS NULL OR status = ?) ORDER BY id DESC LIMIT ?`,
      // Kept by triggers on deliveries (schema: delivery_status_counts), so no count reads the log.
      countByStatus: 'SELECT status, n FROM delivery_status_counts WHERE n > 0',
    });
  }

  /**
   * Records a refused request (bad JSON, unknown key, limits): nothing of it was accepted. Its
   * texts are clipped, and past REFUSED_ROWS_PER_SECOND in one second of the clock the calls are
   * counted into one summary row instead (refused-log.ts). Returns the row that shows it.
   */
  recordRefused(record: RequestRecord): number {
    const { decision, window } = decideRefused(this.refusedWindow, record.receivedAt);
    this.refusedWindow = window;
    const clipped: RequestRecord = {
      ...record,
      path: clip(record.path, REFUSED_TEXT_LIMITS.path) ?? '',
      userAgent: clip(record.userAgent, REFUSED_TEXT_LIMITS.userAgent),
      errorText: clip(record.errorText ?? null, REFUSED_TEXT_LIMITS.errorText) ?? undefined,
      ...refusedBody(record),
    };
    if (decision.store === 'row') return this.insertRequestRow(clipped);
    const text = summaryText(window.summarized, { httpStatus: record.httpStatus, errorCode: record.errorCode ?? null, path: clipped.path });
    if (decision.store === 'add_to_summary') {
      this.s.addToSummary.run(record.bytes, text, decision.summaryId);
      return decision.summaryId;
    }
    const id = this.insertRequestRow({ ...clipped, userAgent: null, errorCode: SUMMARY_CODE, errorText: text });
    this.refusedWindow = { ...window, summaryId: id };
    return id;
  }

  private insertRequestRow(record: RequestRecord): number {
    const kept = keptRequestBody(record.body ?? null);
    return Number(
      this.s.insertRequest.run(
        record.sourceId,
        record.path,
        record.receivedAt,
        record.httpStatus,
        record.bytes,
        record.userAgent,
        record.errorCode ?? null,
        record.errorText ?? null,
        record.headers ?? null,
        kept.body,
        kept.format,
        record.bodyClipped ? 1 : 0,
      ).lastInsertRowid,
    );
  }

  /** The newest message's id (0 in an empty log): one seek. */
  lastMessageId(): number {
    return (this.s.lastMessageId.get() as { id: number }).id;
  }

  /**
   * What else a commit writes in its own transaction once its messages are in (the profiles read
   * them): called with the first new message's id.
   */
  followCommits(follower: (firstMessageId: number) => void): void {
    this.follower = follower;
  }

  /**
   * One transaction for a whole accepted request: the request row, every message with one delivery
   * per routed destination, and every dropped item. The caller acknowledges only after this returns.
   * Inside a caller's transaction it joins it (joinTransaction): a throw leaves the caller to roll back.
   */
  commitRequest(
    record: RequestRecord,
    sourceId: number,
    items: AcceptedItem[],
    dropped: DroppedItem[],
    dedupeWindowMs: number,
  ): CommitResult {
    return joinTransaction(this.db, (): CommitResult => {
      const requestId = record.appendTo ?? this.insertRequestRow(record);
      // Read once per request, not per delivery: the ingest path's hot loop stays two inserts.
      let warps: Map<number, number> | null = null;
      const warpOf = (destinationId: number): number => {
        warps ??= new Map((this.s.destinationWarps.all() as { id: number; warp: number }[]).map((r) => [r.id, r.warp]));
        return warps.get(destinationId) ?? 1;
      };
      let accepted = 0;
      const deliveryIds: number[] = [];
      let firstMessageId: number | null = null;
      const duplicates: DroppedItem[] = [];
      items.forEach((item, index) => {
        const m = item.message;
        const insert = (): Database.RunResult =>
          this.s.insertMessage.run(
            sourceId,
            requestId,
            m.messageId,
            m.messageId,
            m.type,
            m.userId,
            m.anonymousId,
            m.event ?? null,
            record.receivedAt,
            item.json,
            item.warnings && item.warnings.length > 0 ? JSON.stringify(item.warnings) : null,
            item.violations && item.violations.length > 0 ? JSON.stringify(item.violations) : null,
          );
        let inserted = insert();
        if (inserted.changes === 0) {
          const existing = this.s.findDuplicate.get(sourceId, m.messageId) as { id: number; received_at: number };
          if (record.receivedAt - existing.received_at < dedupeWindowMs) {
            duplicates.push({
              index: item.index ?? index,
              kind: 'duplicate',
              reason: `duplicate of message ${existing.id}: messageId "${m.messageId}" was received ${Math.round((record.receivedAt - existing.received_at) / 1000)} s ago (window 24 h); acknowledged, not delivered again`,
              raw: item.raw === undefined ? item.json : (JSON.stringify(item.raw) ?? 'null'),
            });
            return;
          }
          this.s.releaseDedupeKey.run(existing.id);
          inserted = insert();
        }
        const messageRowId = Number(inserted.lastInsertRowid);
        firstMessageId ??= messageRowId;
        accepted++;
        // Mapped at commit, the body is packed against the JSON stored in the same row's message.
        const stored = item.body && item.destinationIds.length > 0 ? this.storedBody(messageRowId, item.body, item.json, item.packedBody) : { body: null, format: BODY_RAW };
        for (const destinationId of item.destinationIds) {
          const made = this.s.insertDelivery.run(messageRowId, destinationId, m.type, stored.body, stored.format, record.receivedAt, record.receivedAt, warpOf(destinationId));
          const deliveryId = Number(made.lastInsertRowid);
          if (item.body) this.fresh.keep(deliveryId, item.body);
          deliveryIds.push(deliveryId);
        }
      });
      const allDropped = [...dropped, ...duplicates];
      for (const d of allDropped) this.s.insertDropped.run(requestId, d.index, d.kind, d.reason, d.raw);
      if (record.appendTo === undefined) this.s.finishRequest.run(items.length + dropped.length, accepted, dropped.length, duplicates.length, requestId);
      else this.s.growRequest.run(items.length + dropped.length, accepted, dropped.length, duplicates.length, record.bytes, requestId);
      if (firstMessageId !== null) this.follower?.(firstMessageId);
      return { requestId, accepted, duplicates: duplicates.length, deliveries: deliveryIds.length, deliveryIds };
    });
  }

  /**
   * A replay is a new delivery linked to its original (replay_of). It carries the original's
   * bytes, or edited ones (the original row keeps its own), and optionally one target URL.
   */
  createReplay(original: DeliveryRow, replay: { body: Uint8Array | null; edited: boolean; targetUrl: string | null; now: number }): number {
    const stored = replay.body === null ? { body: null, format: BODY_RAW } : this.storedBody(original.message_id, replay.body);
    return Number(
      this.s.insertReplay.run(
          original.message_id,
          original.destination_id,
          original.payload_type,
          stored.body,
          stored.format,
          replay.targetUrl,
          original.id,
          replay.edited ? 1 : 0,
          replay.now,
          replay.now,
          original.destination_id,
        ).lastInsertRowid,
    );
  }

  /**
   * A delivery not made from a message (a delete notice): the caller builds its bytes, and the
   * scheduler sends them as they are, like a replay's; message_id stays NULL. Due at once.
   */
  createPrebuilt(d: { destinationId: number; payloadType: string; body: Uint8Array; now: number }): number {
    return Number(
      this.s.insertPrebuilt.run(d.destinationId, d.payloadType, Buffer.from(d.body), d.now, d.now, d.destinationId).lastInsertRowid,
    );
  }

  /**
   * Makes a waiting delivery (pending or retrying) due now; its round count and first attempt stay, so
   * the schedule after this round goes on where it was. False when the delivery is not waiting.
   */
  retryNow(id: number, now: number): boolean {
    return this.s.retryNow.run(now, id).changes > 0;
  }

  /** The first replay made of this delivery, or null when it was never replayed. */
  firstReplayOf(id: number): number | null {
    return (this.s.firstReplayOf.get(id) as { id: number | null }).id;
  }

  /**
   * A test event: a delivery of bytes mapped from a sample message, to the destination's URLs or to
   * one of them (targetUrl), marked as a test. Due at once; no message or Inbound request is made.
   */
  createTest(d: { destinationId: number; payloadType: string; body: Uint8Array; targetUrl: string | null; now: number }): number {
    return Number(this.s.insertTest.run(d.destinationId, d.payloadType, Buffer.from(d.body), d.targetUrl, d.now, d.now, d.destinationId).lastInsertRowid);
  }

  /**
   * Deliveries whose time has come, oldest due first. The body of one a commit just made is the
   * one it kept in memory (fresh-bodies.ts); the others are read and unpacked.
   */
  dueDeliveries(now: number, limit: number): DeliveryRow[] {
    const rows = this.s.selectDueHeads.all(now, limit) as (Omit<DeliveryRow, 'body'> & { body?: Buffer | null })[];
    for (const row of rows) row.body = this.fresh.take(row.id) ?? (this.s.bodyOfDelivery.get(row.id) as { body: Buffer | null }).body;
    return rows as DeliveryRow[];
  }

  nextDueAt(): number | null {
    const row = this.s.nextDueAt.get() as { at: number | null };
    return row.at;
  }

  messageJson(messageRowId: number): string | null {
    const row = this.s.selectMessageJson.get(messageRowId) as { json: string } | undefined;
    return row?.json ?? null;
  }

  /**
   * Marks deliveries in flight and records one in-flight attempt per URL, in one transaction, so
   * that a crash from here on leaves rows that start-up recovery recognizes.
   */
  startRound(
    starts: { deliveryId: number; body: Uint8Array; firstAttemptAt: number; round: number; attempts: NewAttempt[] }[],
  ): number[][] {
    return this.db.transaction(() =>
      starts.map((s) => {
        this.writeBodyOnce(s.deliveryId, s.body);
        this.s.markInFlight.run(s.firstAttemptAt, s.round, s.deliveryId);
        return s.attempts.map((a) =>
          Number(this.s.insertAttempt.run(a.deliveryId, a.round, a.url, a.startedAt, JSON.stringify(a.requestHeaders)).lastInsertRowid),
        );
      }),
    )();
  }

  /** Whether every body written before bodies were packed has been packed (or had nothing to pack). */
  bodiesPacked(): boolean {
    return (this.s.packBelow.get() as { below: number }).below === 0;
  }

  /**
   * Packs the bodies of up to `max` deliveries written before bodies were packed, newest first, in
   * one transaction; true when none is left. A row without a message (a delete notice, a test
   * event) or without a body yet (packed when its first round writes one) is passed over.
   */
  packBacklog(max: number): boolean {
    return this.db.transaction(() => {
      const below = (this.s.packBelow.get() as { below: number }).below;
      if (below === 0) return true;
      const rows = this.s.packSlice.all(below, max) as { id: number; body: Buffer | null; body_format: number; json: string | null }[];
      for (const r of rows) {
        if (!Buffer.isBuffer(r.body) || r.json === null || r.body_format !== BODY_RAW) continue;
        this.s.writeBody.run(packBody(r.body, r.json), BODY_DEFLATE_MESSAGE, r.id);
      }
      const low = rows.at(-1)?.id;
      this.s.packSet.run(low === undefined || rows.length < max ? 0 : low);
      return low === undefined || rows.length < max;
    })();
  }

  /** Stores the body a round sends when the row has none yet; a retry's row keeps the one it has. */
  private writeBodyOnce(deliveryId: number, body: Uint8Array): void {
    const row = this.s.unwrittenBody.get(deliveryId) as { message_id: number | null; json: string | null } | undefined;
    if (row === undefined) return;
    const stored = this.storedBody(row.message_id, body, row.json);
    this.s.writeBody.run(stored.body, stored.format, deliveryId);
  }

  /**
   * A body as it is stored: packed against its message's JSON when it has a message (`packed`
   * when the packing thread made it already), as is otherwise.
   */
  private storedBody(
    messageRowId: number | null,
    body: Uint8Array,
    json = messageRowId === null ? null : this.messageJson(messageRowId),
    packed?: Buffer,
  ): { body: Buffer; format: number } {
    return json === null ? { body: Buffer.from(body), format: BODY_RAW } : { body: packed ?? packBody(body, json), format: BODY_DEFLATE_MESSAGE };
  }

  /** Applies finished attempts and the resulting delivery states in one transaction. */
  finishRounds(attempts: FinishedAttempt[], deliveries: DeliveryUpdate[]): void {
    this.db.transaction(() => {
      for (const a of attempts) {
        this.s.finishAttempt.run(
          a.verdict,
          a.httpStatus,
          JSON.stringify(a.timings),
          JSON.stringify(a.responseHeaders),
          Buffer.from(a.responseBody),
          a.responseBytes,
          a.responseTruncated ? 1 : 0,
          a.errorKind,
          a.errorText,
          a.failure === null ? null : JSON.stringify(a.failure),
          a.retryAfterMs,
          a.sentHeaders ? JSON.stringify(a.sentHeaders) : null,
          a.attemptId,
        );
      }
      for (const d of deliveries) {
        this.s.updateDelivery.run(
          d.status,
          d.nextAttemptAt,
          d.pendingUrls ? JSON.stringify(d.pendingUrls) : null,
          d.lastHttpStatus,
          d.lastError,
          d.decision === null ? null : JSON.stringify(d.decision),
          d.finishedAt,
          d.deliveryId,
        );
      }
    })();
  }

  /**
   * Start-up: attempts that were in flight when the process died are marked interrupted and their
   * deliveries become due again at once. Returns how many deliveries were resumed.
   */
  recoverInterrupted(now: number): { attempts: number; deliveries: number } {
    return this.db.transaction(() => {
      // After a clean stop nothing is in flight, and reading 10M deliveries to find that out took
      // 1 s warm and 8.7 s cold at start-up. A round whose attempts were all written but not its
      // decision leaves a delivery in flight with none in flight: the full read finds those.
      let deliveries = this.s.resumeDeliveriesOfAttempts.run(now).changes;
      const attempts = this.s.interruptAttempts.run(failureText(INTERRUPTED), JSON.stringify(INTERRUPTED)).changes;
      if ((this.s.inFlightCount.get() as { n: number }).n > 0) deliveries += this.s.resumeDeliveries.run(now).changes;
      return { attempts, deliveries };
    })();
  }

  getDelivery(id: number): DeliveryRow | undefined {
    return this.s.delivery.get(id) as DeliveryRow | undefined;
  }

  attemptsOf(deliveryId: number): AttemptRow[] {
    return this.s.attemptsOf.all(deliveryId) as AttemptRow[];
  }

  /** Newest first, keyset-paged: pass the last id of a page as beforeId for the next. */
  listDeliveries(page: { beforeId?: number; limit?: number; status?: DeliveryStatus } = {}): DeliveryRow[] {
    const limit = Math.min(page.limit ?? 100, 1000);
    return this.s.deliveryPage.all(page.beforeId ?? Number.MAX_SAFE_INTEGER, page.status ?? null, page.status ?? null, limit) as DeliveryRow[];
  }

  countDeliveriesByStatus(): Record<string, number> {
    const rows = this.s.countByStatus.all() as { status: string; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }
}
