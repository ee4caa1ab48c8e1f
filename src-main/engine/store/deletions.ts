/**
 * The deletion room's SQL: requests, their notices, the user's footprint in the log, and the purge.
 * Tables from the schema's deletion migration (store/schema.ts). After a purge the request and its
 * notices (with the notice deliveries and their attempts) are the only rows left that name the
 * user, on purpose: they are the record that the user asked and that the notices went out.
 */
import type { DeliveryStatus } from '../../../src-shared/api';
import type { DeletionStatus } from '../../../src-shared/personas';
import type { Db } from './database';
import { BODY_OF } from './body-pack';
import { statements } from './statements';
import { RetentionStore } from './retention';
import type { ChainMember } from '../deletion/status';
import { droppedItemNames, droppedItemNeedles, requestBodyNames, type Person } from '../deletion/identity';

export interface RequestRow {
  id: number;
  user_id: string;
  purge: number;
  status: DeletionStatus;
  affected_sources: string;
  created_at: number;
  purged_at: number | null;
}

export interface NoticeRow {
  delivery_id: number;
  request_id: number;
  source_name: string;
  destination_name: string;
}

export interface ChainRow {
  root: number;
  id: number;
  status: DeliveryStatus;
  counts: number;
  last_error: string | null;
}

/** "The user's messages" as one SQL condition over messages m: params userId, then the linked ids as a JSON list. */
const USER_MESSAGES = `(m.user_id = ? OR (m.user_id IS NULL AND m.anonymous_id IN (SELECT value FROM json_each(?))))`;

export interface PurgeCounts {
  messages: number;
  deliveries: number;
  attempts: number;
  droppedItems: number;
  /** Inbound calls whose kept body named the person: the body is removed, the call's line stays. */
  requestBodies: number;
  /** The deliveries removed, so the views can drop them. */
  deliveryIds: number[];
}

export class DeletionStore {
  private readonly s;
  private readonly pruner: RetentionStore;

  constructor(private readonly db: Db) {
    this.pruner = new RetentionStore(db);
    this.s = statements(db, {
      linked: `SELECT anonymous_id AS a, CASE WHEN type = 'alias' THEN json_extract(json, '$.previousId') END AS p
         FROM messages WHERE user_id = ?`,
      affectedSourceIds: `SELECT DISTINCT m.source_id AS id FROM messages m WHERE ${USER_MESSAGES} ORDER BY m.source_id`,
      insertRequest: `INSERT INTO deletion_requests (user_id, purge, status, affected_sources, created_at) VALUES (?, ?, ?, ?, ?)`,
      insertNotice: 'INSERT INTO deletion_notices (delivery_id, request_id, source_name, destination_name) VALUES (?, ?, ?, ?)',
      request: 'SELECT * FROM deletion_requests WHERE id = ?',
      requests: 'SELECT * FROM deletion_requests ORDER BY id DESC',
      unsettled: `SELECT id FROM deletion_requests WHERE status != 'forwarded' OR (purge = 1 AND purged_at IS NULL) ORDER BY id`,
      noticesOf: 'SELECT * FROM deletion_notices WHERE request_id = ? ORDER BY delivery_id',
      allNotices: 'SELECT * FROM deletion_notices ORDER BY delivery_id',
      // Every notice with its replays, at any depth. A replay counts for the notice when it carries
      // the notice's exact bytes to the destination's own entries. CROSS JOIN keeps the chain
      // (a handful of rows) outermost: left to the planner, the join scans every delivery against
      // a bloom filter of the chain, on every status check of a log that has no notice at all.
      chains: `WITH RECURSIVE chain(root, id) AS (
           SELECT n.delivery_id, n.delivery_id FROM deletion_notices n
             WHERE (@request IS NULL OR n.request_id = @request)
           UNION ALL
           SELECT chain.root, r.id FROM chain CROSS JOIN deliveries r ON r.replay_of = chain.id
         )
         SELECT chain.root, d.id, d.status, d.last_error,
           (d.id = chain.root OR (d.target_url IS NULL AND ${BODY_OF('d')} = ${BODY_OF('root')})) AS counts
         FROM chain CROSS JOIN deliveries d ON d.id = chain.id CROSS JOIN deliveries root ON root.id = chain.root
         ORDER BY chain.root, d.id`,
      setStatus: 'UPDATE deletion_requests SET status = ? WHERE id = ?',
      setPurged: 'UPDATE deletion_requests SET purged_at = ? WHERE id = ?',
      // messages_user serves both halves of the condition (a seek per id), so neither the
      // footprint nor the purge reads the whole log.
      userMessageIds: `SELECT m.id FROM messages m WHERE ${USER_MESSAGES}`,
      droppedCandidates: `SELECT id, raw FROM dropped_items
         WHERE @needles IS NULL OR instr(raw, '\\') > 0 OR EXISTS (SELECT 1 FROM json_each(@needles) j WHERE instr(raw, j.value) > 0)`,
      deleteDropped: 'DELETE FROM dropped_items WHERE id IN (SELECT value FROM json_each(?))',
      requestBodyCandidates: `SELECT id, body FROM requests
         WHERE body IS NOT NULL AND (@needles IS NULL OR instr(body, '\\') > 0 OR EXISTS (SELECT 1 FROM json_each(@needles) j WHERE instr(body, j.value) > 0))`,
      // body_clipped = 2: the body was removed by a deletion (Inbound says so instead of showing it).
      removeRequestBodies: 'UPDATE requests SET body = NULL, body_clipped = 2 WHERE id IN (SELECT value FROM json_each(?))',
    });
  }

  /** The user and the ids linked to them (identity.ts), as the log holds them now. */
  person(userId: string): Person {
    const rows = this.s.linked.all(userId) as { a: unknown; p: unknown }[];
    const linkedIds = new Set(
      rows.flatMap((r) => [r.a, r.p]).filter((id): id is string => typeof id === 'string' && id !== '' && id !== userId),
    );
    return { userId, linkedIds };
  }

  /** Ids of the sources holding messages of the person. */
  affectedSourceIds(person: Person): number[] {
    return (this.s.affectedSourceIds.all(person.userId, JSON.stringify([...person.linkedIds])) as { id: number }[]).map((r) => r.id);
  }

  insertRequest(r: { userId: string; purge: boolean; status: DeletionStatus; affectedSources: string[]; now: number }): number {
    return Number(
      this.s.insertRequest.run(r.userId, r.purge ? 1 : 0, r.status, JSON.stringify(r.affectedSources), r.now).lastInsertRowid,
    );
  }

  insertNotice(n: { deliveryId: number; requestId: number; source: string; destination: string }): void {
    this.s.insertNotice.run(n.deliveryId, n.requestId, n.source, n.destination);
  }

  request(id: number): RequestRow | undefined {
    return this.s.request.get(id) as RequestRow | undefined;
  }

  requests(): RequestRow[] {
    return this.s.requests.all() as RequestRow[];
  }

  /** Requests a trigger may still move: not yet forwarded, or forwarded with a purge still to do. */
  unsettledIds(): number[] {
    return (this.s.unsettled.all() as { id: number }[]).map((r) => r.id);
  }

  noticesOf(requestId: number): NoticeRow[] {
    return this.s.noticesOf.all(requestId) as NoticeRow[];
  }

  allNotices(): NoticeRow[] {
    return this.s.allNotices.all() as NoticeRow[];
  }

  /** Each notice's chain (the notice and its replays), by the notice's delivery id; one request's, or every one's. */
  chains(requestId: number | null): Map<number, ChainMember[]> {
    const byRoot = new Map<number, ChainMember[]>();
    for (const r of this.s.chains.all({ request: requestId }) as ChainRow[]) {
      const list = byRoot.get(r.root) ?? [];
      list.push({ id: r.id, status: r.status, counts: r.counts === 1, lastError: r.last_error });
      byRoot.set(r.root, list);
    }
    return byRoot;
  }

  /**
   * How SQLite runs the statements a deletion makes over the log (chains, the person's linked ids,
   * the affected sources, the purge's message ids), by name, one line per step: for checking that
   * none of them scans the log.
   */
  plans(): Record<'chains' | 'linked' | 'affectedSourceIds' | 'userMessageIds', string[]> {
    const plan = (sql: string, ...params: unknown[]): string[] =>
      (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    return {
      chains: plan(this.s.chains.source, { request: null }),
      linked: plan(this.s.linked.source, 'u'),
      affectedSourceIds: plan(this.s.affectedSourceIds.source, 'u', '["a"]'),
      userMessageIds: plan(this.s.userMessageIds.source, 'u', '["a"]'),
    };
  }

  setStatus(id: number, status: DeletionStatus): void {
    this.s.setStatus.run(status, id);
  }

  /**
   * Removes the person's messages, the deliveries made from them (replays included) and their
   * attempts, and the dropped items that name them; the caller runs it inside its transaction,
   * with the profile hooks. Children first: foreign keys are on.
   */
  purge(person: Person): PurgeCounts {
    const messageIds = (this.s.userMessageIds.all(person.userId, JSON.stringify([...person.linkedIds])) as { id: number }[]).map((r) => r.id);
    const { messages, deliveries, attempts, deliveryIds } = this.pruner.removeMessages(messageIds);
    const needles = droppedItemNeedles(person);
    const candidates = this.s.droppedCandidates.all({ needles: needles === null ? null : JSON.stringify(needles) }) as { id: number; raw: string }[];
    const dropped = candidates.filter((c) => droppedItemNames(c.raw, person)).map((c) => c.id);
    const droppedItems = dropped.length > 0 ? this.s.deleteDropped.run(JSON.stringify(dropped)).changes : 0;
    const bodies = this.s.requestBodyCandidates.all({ needles: needles === null ? null : JSON.stringify(needles) }) as { id: number; body: string }[];
    const naming = bodies.filter((b) => requestBodyNames(b.body, person)).map((b) => b.id);
    const requestBodies = naming.length > 0 ? this.s.removeRequestBodies.run(JSON.stringify(naming)).changes : 0;
    return { messages, deliveries, attempts, droppedItems, requestBodies, deliveryIds };
  }

  setPurged(id: number, at: number): void {
    this.s.setPurged.run(at, id);
  }
}
