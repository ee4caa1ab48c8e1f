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
import { REQUEST_BODY_OF, REQUEST_BODY_TEXT } from './request-body-pack';
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

/** What one step of a purge removed from the log. */
export interface PurgeStep {
  messages: number;
  /** The deliveries removed, so the views can drop them. */
  deliveryIds: number[];
}

/** One stretch of a table read by id (requests, dropped items): what was removed, and where it stopped. */
export interface ScanStep {
  /** Rows removed (dropped items) or whose body was removed (requests). */
  changed: number;
  /** The last id looked at (the cursor for the next stretch); the same as `after` when none was. */
  last: number;
  /** Whether the stretch was full, so that more rows may follow. */
  full: boolean;
}

/** The person's linked ids, each with the first of their own messages that links it. */
export interface Links {
  /** Linked id → the message that carries it (its anonymousId, or an alias's previousId). */
  carriers: Map<string, number>;
  /** The newest of their messages read (0 when none). */
  last: number;
  /** How many of their messages were read. */
  read: number;
}

export class DeletionStore {
  private readonly s;
  private readonly pruner: RetentionStore;

  constructor(private readonly db: Db) {
    this.pruner = new RetentionStore(db);
    this.s = statements(db, {
      // Ids above the second parameter only: a purge under way reads just the messages committed
      // since it last looked (the rowid is part of every index entry, so no other row is read).
      // The + keeps the planner on messages_user rather than a range of the whole table by rowid.
      linked: `SELECT id, anonymous_id AS a, CASE WHEN type = 'alias' THEN json_extract(json, '$.previousId') END AS p
         FROM messages WHERE user_id = ? AND +id > ?`,
      // The same, the oldest \`limit\` only: the ids are sorted from the index alone, and only
      // those rows are read.
      linkedPart: `SELECT id, anonymous_id AS a, CASE WHEN type = 'alias' THEN json_extract(json, '$.previousId') END AS p
         FROM messages WHERE id IN (SELECT id FROM messages WHERE user_id = ? AND +id > ? ORDER BY id LIMIT ?)`,
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
      // What removing these messages reads: their rows, their deliveries and attempts, and the
      // index entries of each (by the indexes the removal walks).
      warmMessages: `SELECT m.*, (SELECT id FROM messages WHERE source_id = m.source_id AND dedupe_key = m.dedupe_key) AS d,
           (SELECT COUNT(*) FROM messages WHERE request_id = m.request_id AND id = m.id) AS r
         FROM messages m WHERE m.id IN (SELECT value FROM json_each(?))`,
      warmDeliveries: `SELECT d.* FROM deliveries d WHERE d.message_id IN (SELECT value FROM json_each(?))`,
      warmAttempts: `SELECT a.* FROM attempts a WHERE a.delivery_id IN (SELECT d.id FROM deliveries d WHERE d.message_id IN (SELECT value FROM json_each(?)))`,
      setStatus: 'UPDATE deletion_requests SET status = ? WHERE id = ?',
      setPurged: 'UPDATE deletion_requests SET purged_at = ? WHERE id = ?',
      // messages_user serves both halves of the condition (a seek per id), so neither the
      // footprint nor the purge reads the whole log.
      userMessageIds: `SELECT m.id FROM messages m WHERE ${USER_MESSAGES} LIMIT ?`,
      // A stretch of the table by id: every row's id (so the cursor moves past rows that cannot
      // match), with the text only where the cheap pre-filter lets it through.
      droppedCandidates: `SELECT id, CASE WHEN @needles IS NULL OR instr(raw, '\\') > 0
           OR EXISTS (SELECT 1 FROM json_each(@needles) j WHERE instr(raw, j.value) > 0) THEN raw END AS raw
         FROM dropped_items WHERE id > @after ORDER BY id LIMIT @limit`,
      deleteDropped: 'DELETE FROM dropped_items WHERE id IN (SELECT value FROM json_each(?))',
      requestBodyCandidates: `SELECT id, CASE WHEN body IS NOT NULL AND (@needles IS NULL OR instr(body, '\\') > 0
           OR EXISTS (SELECT 1 FROM json_each(@needles) j WHERE instr(body, j.value) > 0)) THEN body END AS body
         FROM (SELECT id, ${REQUEST_BODY_OF('r')} AS body FROM requests r WHERE id > @after ORDER BY id LIMIT @limit) ORDER BY id`,
      lastIds: 'SELECT (SELECT MAX(id) FROM messages) AS message, (SELECT MAX(id) FROM requests) AS request, (SELECT MAX(id) FROM dropped_items) AS dropped',
      // body_clipped = 2: the body was removed by a deletion (Inbound says so instead of showing it).
      removeRequestBodies: `UPDATE requests SET body = NULL, body_format = ${REQUEST_BODY_TEXT}, body_clipped = 2 WHERE id IN (SELECT value FROM json_each(?))`,
    });
  }

  /** The user and the ids linked to them (identity.ts), as the log holds them now. */
  person(userId: string): Person {
    return { userId, linkedIds: new Set(this.links(userId, 0).carriers.keys()) };
  }

  /**
   * The ids linked to the user by their messages above `afterId` (the oldest `limit` of them, when
   * given), each with the first message that carries it.
   */
  links(userId: string, afterId: number, limit?: number): Links {
    const rows = (limit === undefined ? this.s.linked.all(userId, afterId) : this.s.linkedPart.all(userId, afterId, limit)) as { id: number; a: unknown; p: unknown }[];
    const carriers = new Map<string, number>();
    let last = 0;
    for (const r of rows) {
      last = Math.max(last, r.id);
      for (const id of [r.a, r.p]) {
        if (typeof id !== 'string' || id === '' || id === userId) continue;
        const first = carriers.get(id);
        if (first === undefined || r.id < first) carriers.set(id, r.id);
      }
    }
    return { carriers, last, read: rows.length };
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
  plans(): Record<'chains' | 'linked' | 'linkedPart' | 'affectedSourceIds' | 'userMessageIds', string[]> {
    const plan = (sql: string, ...params: unknown[]): string[] =>
      (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    return {
      chains: plan(this.s.chains.source, { request: null }),
      linked: plan(this.s.linked.source, 'u', 0),
      linkedPart: plan(this.s.linkedPart.source, 'u', 0, 10),
      affectedSourceIds: plan(this.s.affectedSourceIds.source, 'u', '["a"]'),
      userMessageIds: plan(this.s.userMessageIds.source, 'u', '["a"]', 10),
    };
  }

  /**
   * Reads what a purge step would read and remove (`links` of the person's messages for their
   * links, then `limit` messages with their deliveries and attempts), and nothing else: on the
   * read worker's connection, ahead of the step, so the engine's thread finds those pages in the
   * operating system's cache rather than waiting for the disk. The number of rows read.
   */
  warm(next: { userId: string; linkedIds: readonly string[]; linksAfter: number; links: number; limit: number }): number {
    const links = this.links(next.userId, next.linksAfter, next.links);
    if (next.limit === 0) return links.read;
    const person: Person = { userId: next.userId, linkedIds: new Set([...next.linkedIds, ...links.carriers.keys()]) };
    const ids = JSON.stringify((this.s.userMessageIds.all(person.userId, JSON.stringify([...person.linkedIds]), next.limit) as { id: number }[]).map((r) => r.id));
    return links.read + this.s.warmMessages.all(ids).length + this.s.warmDeliveries.all(ids).length + this.s.warmAttempts.all(ids).length;
  }

  setStatus(id: number, status: DeletionStatus): void {
    this.s.setStatus.run(status, id);
  }

  /*
   * A purge runs in steps, each inside the caller's transaction (deletion/purge.ts decides their
   * order): the person's messages a few at a time, then the Inbound bodies and the dropped items
   * that name them, a stretch of each table at a time. Children first: foreign keys are on.
   */

  /**
   * Removes up to `limit` of the person's messages, except those in `keep`, with the deliveries
   * made from them (replays included) and their attempts.
   */
  removeMessagesOf(person: Person, limit: number, keep: readonly number[] = []): PurgeStep {
    // The kept ones are few (one per linked id): read past them rather than ask SQLite to.
    const kept = new Set(keep);
    const rows = this.s.userMessageIds.all(person.userId, JSON.stringify([...person.linkedIds]), limit + kept.size) as { id: number }[];
    const messageIds = rows.map((r) => r.id).filter((id) => !kept.has(id)).slice(0, limit);
    const { messages, deliveryIds } = this.pruner.removeMessages(messageIds);
    return { messages, deliveryIds };
  }

  /** Looks at up to `limit` Inbound calls after `afterId` and removes the kept body of each that names the person. */
  removeRequestBodies(person: Person, afterId: number, limit: number): ScanStep {
    const needles = droppedItemNeedles(person);
    const rows = this.s.requestBodyCandidates.all({ needles: needles === null ? null : JSON.stringify(needles), after: afterId, limit }) as { id: number; body: string | null }[];
    const naming = rows.filter((r) => r.body !== null && requestBodyNames(r.body, person)).map((r) => r.id);
    const changed = naming.length > 0 ? this.s.removeRequestBodies.run(JSON.stringify(naming)).changes : 0;
    return { changed, last: rows.at(-1)?.id ?? afterId, full: rows.length === limit };
  }

  /** Looks at up to `limit` dropped items after `afterId` and removes those about the person. */
  removeDroppedItems(person: Person, afterId: number, limit: number): ScanStep {
    const needles = droppedItemNeedles(person);
    const rows = this.s.droppedCandidates.all({ needles: needles === null ? null : JSON.stringify(needles), after: afterId, limit }) as { id: number; raw: string | null }[];
    const naming = rows.filter((r) => r.raw !== null && droppedItemNames(r.raw, person)).map((r) => r.id);
    const changed = naming.length > 0 ? this.s.deleteDropped.run(JSON.stringify(naming)).changes : 0;
    return { changed, last: rows.at(-1)?.id ?? afterId, full: rows.length === limit };
  }

  /** The largest id of the messages, the Inbound calls and the dropped items (0 for an empty table). */
  lastIds(): { message: number; request: number; dropped: number } {
    const r = this.s.lastIds.get() as { message: number | null; request: number | null; dropped: number | null };
    return { message: r.message ?? 0, request: r.request ?? 0, dropped: r.dropped ?? 0 };
  }

  setPurged(id: number, at: number): void {
    this.s.setPurged.run(at, id);
  }
}
