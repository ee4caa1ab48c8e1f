/**
 * Test receivers and the requests they got. A receiver's script is stored as the JSON it was
 * saved with; the position its next request takes is kept beside it, so a restart goes on where
 * the script was rather than starting it over. A script counted per message takes a keyed
 * request's position from the requests with the same key in the receiver's current epoch (the
 * span since its last reset or script change).
 */
import type { Db } from './database';
import { statements } from './statements';
import { scriptPositionOf, type ReceiverInput, type ReceiverOutcome, type ReceiverPer, type ReceiverSignatureVerdict, type ReceiverStep } from '../../../src-shared/receivers';

export interface ReceiverRow {
  id: number;
  name: string;
  responses: ReceiverStep[];
  per: ReceiverPer;
  nextIndex: number;
  requests: number;
  createdAt: number;
  updatedAt: number;
}

export interface ArrivalRecord {
  receivedAt: number;
  tls: boolean;
  method: string;
  path: string;
  headers: [string, string][];
  body: Uint8Array;
  bodyBytes: number;
  bodyMs: number;
  signatures: ReceiverSignatureVerdict[];
  /** The message the request carries (messageKeyOf); null for none. */
  messageKey: string | null;
}

export interface ReceiverRequestRow {
  id: number;
  receiver: string;
  receivedAt: number;
  tls: boolean;
  method: string;
  path: string;
  bodyBytes: number;
  bodyMs: number;
  step: number;
  messageKey: string | null;
  messageTry: number | null;
  signatures: ReceiverSignatureVerdict[];
  outcome: ReceiverOutcome;
  status: number | null;
  answeredAt: number | null;
}

export interface ReceiverRequestFull extends ReceiverRequestRow {
  headers: [string, string][];
  body: Buffer;
}

interface RawReceiver {
  id: number;
  name: string;
  script: string;
  per: string;
  next_index: number;
  requests: number;
  created_at: number;
  updated_at: number;
}
interface RawRequest {
  id: number;
  receiver: string;
  received_at: number;
  tls: number;
  method: string;
  path: string;
  body_bytes: number;
  body_ms: number;
  step: number;
  message_key: string | null;
  message_try: number | null;
  signatures: string;
  outcome: string;
  status: number | null;
  answered_at: number | null;
  headers?: string;
  body?: Buffer;
}

const SUMMARY_COLUMNS = `r.id, v.name AS receiver, r.received_at, r.tls, r.method, r.path, r.body_bytes, r.body_ms, r.step,
  r.message_key, r.message_try, r.signatures, r.outcome, r.status, r.answered_at`;

const receiverOf = (r: RawReceiver): ReceiverRow => ({
  id: r.id,
  name: r.name,
  responses: JSON.parse(r.script) as ReceiverStep[],
  per: r.per === 'message' ? 'message' : 'receiver',
  nextIndex: r.next_index,
  requests: r.requests,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const requestOf = (r: RawRequest): ReceiverRequestRow => ({
  id: r.id,
  receiver: r.receiver,
  receivedAt: r.received_at,
  tls: r.tls === 1,
  method: r.method,
  path: r.path,
  bodyBytes: r.body_bytes,
  bodyMs: r.body_ms,
  step: r.step,
  messageKey: r.message_key,
  messageTry: r.message_try,
  signatures: JSON.parse(r.signatures) as ReceiverSignatureVerdict[],
  outcome: r.outcome as ReceiverOutcome,
  status: r.status,
  answeredAt: r.answered_at,
});

export class ReceiverStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      list: 'SELECT v.* FROM receivers v ORDER BY v.name',
      byName: 'SELECT v.* FROM receivers v WHERE v.name = ?',
      insert: 'INSERT INTO receivers (name, script, per, next_index, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)',
      // A changed script (what it counts included) starts over from its first step, every message
      // with it; saving the same script again changes nothing.
      update: `UPDATE receivers SET script = ?, per = ?, next_index = 0, epoch = epoch + 1, updated_at = ?
        WHERE name = ? AND (script <> ? OR per <> ?)`,
      remove: 'DELETE FROM receivers WHERE name = ?',
      lastRequestId: 'SELECT COALESCE(MAX(id), 0) AS id FROM receiver_requests WHERE receiver_id = ?',
      removeRequests: `DELETE FROM receiver_requests WHERE id IN
        (SELECT id FROM receiver_requests WHERE receiver_id = ? AND id <= ? ORDER BY id LIMIT ?)`,
      reset: 'UPDATE receivers SET next_index = 0, epoch = epoch + 1, updated_at = ? WHERE name = ?',
      take: 'UPDATE receivers SET next_index = next_index + 1 WHERE id = ? RETURNING next_index - 1 AS n, per, epoch',
      // A range of receiver_requests_message.
      sameKey: 'SELECT COUNT(*) AS n FROM receiver_requests WHERE receiver_id = ? AND epoch = ? AND message_key = ?',
      record: `INSERT INTO receiver_requests (receiver_id, received_at, tls, method, path, headers, body, body_bytes, body_ms, step, signatures,
          epoch, message_key, message_try)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      finish: `UPDATE receiver_requests SET outcome = ?, status = ?, answered_at = ? WHERE id = ? AND outcome = 'pending'`,
      page: `SELECT ${SUMMARY_COLUMNS} FROM receiver_requests r JOIN receivers v ON v.id = r.receiver_id
        WHERE r.receiver_id = ? AND r.id < ? ORDER BY r.id DESC LIMIT ?`,
      byIds: `SELECT ${SUMMARY_COLUMNS} FROM receiver_requests r JOIN receivers v ON v.id = r.receiver_id
        WHERE r.id IN (SELECT value FROM json_each(?)) ORDER BY r.id DESC`,
      one: `SELECT ${SUMMARY_COLUMNS}, r.headers, r.body FROM receiver_requests r JOIN receivers v ON v.id = r.receiver_id WHERE r.id = ?`,
      // Requests still waiting for their answer at a start were cut off by the stop.
      interrupted: `UPDATE receiver_requests SET outcome = 'client_gone' WHERE outcome = 'pending'`,
    });
  }

  list(): ReceiverRow[] {
    return (this.s.list.all() as RawReceiver[]).map(receiverOf);
  }

  get(name: string): ReceiverRow | null {
    const row = this.s.byName.get(name) as RawReceiver | undefined;
    return row ? receiverOf(row) : null;
  }

  /** Creates the receiver or replaces its script (a changed script starts over). True when something changed. */
  save(input: ReceiverInput, now: number): boolean {
    const script = JSON.stringify(input.responses);
    const per = input.per ?? 'receiver';
    if (!this.get(input.name)) {
      this.s.insert.run(input.name, script, per, now, now);
      return true;
    }
    return this.s.update.run(script, per, now, input.name, script, per).changes > 0;
  }

  /** Removes the receiver and every request it got. False when there is none by that name. */
  remove(name: string): boolean {
    return this.s.remove.run(name).changes > 0;
  }

  /** The id of the newest request the receiver got (0 when none). */
  lastRequestId(receiverId: number): number {
    return (this.s.lastRequestId.get(receiverId) as { id: number }).id;
  }

  /** Removes up to `limit` of the receiver's oldest requests with ids up to `throughId`; how many went. */
  removeRequests(receiverId: number, throughId: number, limit: number): number {
    return this.s.removeRequests.run(receiverId, throughId, limit).changes;
  }

  /** The script starts over at its first step. False when there is none by that name. */
  reset(name: string, now: number): boolean {
    return this.s.reset.run(now, name).changes > 0;
  }

  /**
   * Takes the request's position (0 = the first since the last reset: of the receiver's requests,
   * or of its message's under a script counted per message) and records the request that holds
   * it, in one transaction, so concurrent requests each get their own step. The receiver-wide
   * count moves for every request. `stepOf` turns the position into the step that answers.
   */
  arrive(receiverId: number, record: ArrivalRecord, stepOf: (n: number) => number): { id: number; step: number; messageTry: number | null } {
    return this.db.transaction(() => {
      const taken = this.s.take.get(receiverId) as { n: number; per: ReceiverPer; epoch: number };
      const earlier = record.messageKey === null ? null : (this.s.sameKey.get(receiverId, taken.epoch, record.messageKey) as { n: number }).n;
      const step = stepOf(scriptPositionOf(taken.per, taken.n, earlier));
      const messageTry = earlier === null ? null : earlier + 1;
      const info = this.s.record.run(
        receiverId,
        record.receivedAt,
        record.tls ? 1 : 0,
        record.method,
        record.path,
        JSON.stringify(record.headers),
        Buffer.from(record.body.buffer, record.body.byteOffset, record.body.byteLength),
        record.bodyBytes,
        record.bodyMs,
        step,
        JSON.stringify(record.signatures),
        taken.epoch,
        record.messageKey,
        messageTry,
      );
      return { id: Number(info.lastInsertRowid), step, messageTry };
    })();
  }

  /** How the request ended; only the first word counts (a close after the answer changes nothing). */
  finish(id: number, outcome: Exclude<ReceiverOutcome, 'pending'>, status: number | null, at: number): boolean {
    return this.s.finish.run(outcome, status, at, id).changes > 0;
  }

  /** Newest first, ids below beforeId. */
  page(receiverId: number, beforeId: number, limit: number): ReceiverRequestRow[] {
    return (this.s.page.all(receiverId, beforeId, limit) as RawRequest[]).map(requestOf);
  }

  summaries(ids: readonly number[]): ReceiverRequestRow[] {
    return (this.s.byIds.all(JSON.stringify(ids)) as RawRequest[]).map(requestOf);
  }

  request(id: number): ReceiverRequestFull | null {
    const row = this.s.one.get(id) as RawRequest | undefined;
    if (!row) return null;
    return { ...requestOf(row), headers: JSON.parse(row.headers ?? '[]') as [string, string][], body: row.body ?? Buffer.alloc(0) };
  }

  /** At start: requests left pending by the last stop are marked as cut off. */
  recoverInterrupted(): number {
    return this.s.interrupted.run().changes;
  }
}
