/**
 * The SQL edge of profiles: following the message log (once the profiles are current, each
 * commit's messages are read in right after it, in the engine's follow-up slices or by the next
 * read, whichever comes first; a log from before that owes a backlog, read in slices), applying
 * the reducer's operations, and reading profiles back as views and as snapshots for evaluation.
 */
import type { JsonObject, JsonValue } from '../../../src-shared/json';
import { SYNC_PATH, type ProfileEventView, type ProfileView } from '../../../src-shared/personas';
import type { Db } from './database';
import { statement, statements, type Statement } from './statements';
import { toIso } from '../ingest/timestamps';
import { DAY_MS, historyOf, type EventHistory, type Needs, type ProfileSnapshot, type TrackedEvent } from '../personas/evaluate';
import { storageFaultCode } from './storage-fault';
import type { Candidates } from '../personas/preview';
import { idsOf, profileMessageOf, reduceChunk, type MessageRow, type ProfileMessage, type ProfileOp } from '../personas/profile-reducer';

export const CATCH_UP_CHUNK = 5000;
/** Messages a read takes in per transaction when commits left it many (a batch of tiny calls can hold thousands). */
export const FOLLOW_LIMIT = 5000;
/** Owed messages a read takes in at once, at most (see settle). */
export const READ_SETTLES_AT_MOST = 500;

/** How far the profiles have read the log, while they catch up with a backlog. */
export interface ProfilesProgress {
  /** True while messages committed before the profiles were kept current are still being read. */
  catchingUp: boolean;
  /** The last message id read, and the last one in the log. */
  read: number;
  of: number;
}

interface ProfileRow {
  profile_id: string;
  user_id: string | null;
  updated_at: number;
}

const parseObject = (text: string | null): JsonObject => (text === null ? {} : (JSON.parse(text) as JsonObject));

/**
 * A statement's rows as arrays, not objects: about half the time for the thousands of rows a
 * preview reads (one per profile). The statement is shared, so it is put back as it was.
 */
function rowsOf<T extends unknown[]>(statement: Statement, ...params: unknown[]): T[] {
  statement.raw(true);
  try {
    return statement.all(...params) as T[];
  } finally {
    statement.raw(false);
  }
}

/** A page of profiles: those whose id, a linked id or a trait value contains `text`, after `after`. */
export interface ProfilePageArgs {
  text: string | null;
  after: string;
  limit: number;
}

export class ProfileStore {
  private readonly q;
  /**
   * Whether the profiles have read every committed message, so that each commit reads its own
   * messages in (followCommit). Memory only: worked out from the cursor when the store opens.
   */
  private current: boolean;
  /** Commits left messages the profiles have not read yet (memory only: at start, a tail is a backlog). */
  private owed = false;
  private behind: (() => void) | null = null;

  constructor(private readonly db: Db) {
    this.q = statements(db, {
      cursor: 'SELECT last_message_id AS id FROM persona_cursor WHERE id = 1',
      setCursor: 'UPDATE persona_cursor SET last_message_id = ? WHERE id = 1',
      messagesAfter: `SELECT m.id, m.type, m.user_id, m.anonymous_id, m.event, m.received_at, m.json, r.path
         FROM messages m LEFT JOIN requests r ON r.id = m.request_id
         WHERE m.id > ? ORDER BY m.id LIMIT ?`,
      idsIn: 'SELECT id, profile_id FROM persona_ids WHERE id IN (SELECT value FROM json_each(?))',
      profilesIn: 'SELECT profile_id, user_id FROM persona_profiles WHERE profile_id IN (SELECT value FROM json_each(?))',
      createProfile: 'INSERT OR IGNORE INTO persona_profiles (profile_id, user_id, updated_at) VALUES (?, ?, 0)',
      claim: 'UPDATE persona_profiles SET user_id = ? WHERE profile_id = ?',
      link: 'INSERT OR REPLACE INTO persona_ids (id, profile_id) VALUES (?, ?)',
      moveIds: 'UPDATE persona_ids SET profile_id = ? WHERE profile_id = ?',
      moveTracks: 'UPDATE persona_tracks SET profile_id = ? WHERE profile_id = ?',
      mergeTraits: `INSERT INTO persona_traits (profile_id, key, value, seq)
           SELECT ?, key, value, seq FROM persona_traits WHERE profile_id = ?
         ON CONFLICT (profile_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq WHERE excluded.seq > persona_traits.seq`,
      mergeUpdatedAt: `UPDATE persona_profiles SET updated_at = MAX(updated_at, (SELECT updated_at FROM persona_profiles WHERE profile_id = ?))
         WHERE profile_id = ?`,
      dropTraits: 'DELETE FROM persona_traits WHERE profile_id = ?',
      dropSynced: 'DELETE FROM persona_synced WHERE profile_id = ?',
      dropProfile: 'DELETE FROM persona_profiles WHERE profile_id = ?',
      dropIds: 'DELETE FROM persona_ids WHERE profile_id = ?',
      dropTracks: 'DELETE FROM persona_tracks WHERE profile_id = ?',
      // A trait sent again with the value it has (what SDKs do at every identify) moves only its
      // seq: the upsert below would rewrite its persona_traits_key entry too, one page of that
      // index for each key, although the entry stays the same.
      keepTrait: 'UPDATE persona_traits SET seq = ? WHERE profile_id = ? AND key = ? AND value = ? AND seq < ?',
      setTrait: `INSERT INTO persona_traits (profile_id, key, value, seq) VALUES (?, ?, ?, ?)
         ON CONFLICT (profile_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq WHERE excluded.seq > persona_traits.seq`,
      addTrack: 'INSERT OR IGNORE INTO persona_tracks (message_id, profile_id, event, at, properties) VALUES (?, ?, ?, ?, ?)',
      // A later occurrence (by timestamp, then message order) becomes the last; every right-hand
      // side reads the row as it was, so the three last_* columns move together.
      addEvent: `INSERT INTO persona_events (profile_id, event, n, first_at, last_at, last_seq, last_properties) VALUES (?, ?, 1, ?, ?, ?, ?)
         ON CONFLICT (event, profile_id) DO UPDATE SET n = n + 1, first_at = MIN(first_at, excluded.first_at),
           last_at = iif((excluded.last_at, excluded.last_seq) > (last_at, last_seq), excluded.last_at, last_at),
           last_seq = iif((excluded.last_at, excluded.last_seq) > (last_at, last_seq), excluded.last_seq, last_seq),
           last_properties = iif((excluded.last_at, excluded.last_seq) > (last_at, last_seq), excluded.last_properties, last_properties)`,
      mergeEvents: `INSERT INTO persona_events (profile_id, event, n, first_at, last_at, last_seq, last_properties)
           SELECT ?, event, n, first_at, last_at, last_seq, last_properties FROM persona_events WHERE profile_id = ?
         ON CONFLICT (event, profile_id) DO UPDATE SET n = n + excluded.n, first_at = MIN(first_at, excluded.first_at),
           last_at = iif((excluded.last_at, excluded.last_seq) > (last_at, last_seq), excluded.last_at, last_at),
           last_seq = iif((excluded.last_at, excluded.last_seq) > (last_at, last_seq), excluded.last_seq, last_seq),
           last_properties = iif((excluded.last_at, excluded.last_seq) > (last_at, last_seq), excluded.last_properties, last_properties)`,
      dropEvents: 'DELETE FROM persona_events WHERE profile_id = ?',
      lastMessage: 'SELECT COALESCE(MAX(id), 0) AS id FROM messages',
      eventsOfTracks: `SELECT profile_id, event, COUNT(*) AS n FROM persona_tracks WHERE message_id IN (SELECT value FROM json_each(?))
         GROUP BY profile_id, event`,
      // After some of its tracks went: the first and last of those left, found by the (profile_id, event, at) index.
      shrinkEvent: `UPDATE persona_events SET n = n - @removed,
           first_at = COALESCE((SELECT MIN(at) FROM persona_tracks WHERE profile_id = @profile AND event = @event), first_at),
           (last_at, last_seq, last_properties) = (SELECT at, message_id, properties FROM persona_tracks
             WHERE profile_id = @profile AND event = @event ORDER BY at DESC, message_id DESC LIMIT 1)
         WHERE profile_id = @profile AND event = @event`,
      dropEmptyEvent: 'DELETE FROM persona_events WHERE profile_id = ? AND event = ? AND NOT EXISTS (SELECT 1 FROM persona_tracks WHERE profile_id = ? AND event = ?)',
      summariesOf: `SELECT profile_id, n, first_at, last_at, last_seq, iif(@properties, last_properties, NULL) AS last_properties
         FROM persona_events WHERE event = @event`,
      tracksSinceOf: `SELECT t.profile_id, t.message_id, t.at FROM json_each(@ids) i CROSS JOIN persona_tracks t
         ON t.profile_id = i.value AND t.event = @event AND t.at >= @since`,
      touch: 'UPDATE persona_profiles SET updated_at = MAX(updated_at, ?) WHERE profile_id = ?',
      profileOfId: 'SELECT profile_id FROM persona_ids WHERE id = ?',
      profile: 'SELECT profile_id, user_id, updated_at FROM persona_profiles WHERE profile_id = ?',
      aliases: 'SELECT id FROM persona_ids WHERE profile_id = ? AND id != ? ORDER BY id',
      traits: 'SELECT key, value FROM persona_traits WHERE profile_id = ? ORDER BY key',
      events: 'SELECT event, n, last_at, last_properties FROM persona_events WHERE profile_id = ? ORDER BY event',
      computed: `SELECT c.key, s.value FROM persona_synced s JOIN persona_computations c ON c.id = s.computation_id
         WHERE s.profile_id = ? ORDER BY c.id`,
      page: `SELECT profile_id, user_id, updated_at FROM persona_profiles p
         WHERE profile_id > @after AND (@like IS NULL
           OR p.profile_id LIKE @like ESCAPE '\\'
           OR EXISTS (SELECT 1 FROM persona_ids i WHERE i.profile_id = p.profile_id AND i.id LIKE @like ESCAPE '\\')
           OR EXISTS (SELECT 1 FROM persona_traits t WHERE t.profile_id = p.profile_id AND t.value LIKE @like ESCAPE '\\'))
         ORDER BY profile_id LIMIT @limit`,
      allProfiles: 'SELECT profile_id, user_id FROM persona_profiles ORDER BY profile_id',
      idsOfProfiles: 'SELECT id, profile_id FROM persona_ids WHERE profile_id IN (SELECT value FROM json_each(?)) ORDER BY id',
      traitsNamed: 'SELECT profile_id, key, value FROM persona_traits WHERE key IN (SELECT value FROM json_each(?))',
      tracksOf: 'SELECT profile_id, message_id, at, properties FROM persona_tracks WHERE event = ?',
      // The same reads for a batch of profiles (a preview's), each by its key: one seek per profile.
      profilesOf: `SELECT profile_id, user_id FROM persona_profiles WHERE profile_id IN (SELECT value FROM json_each(?))
         ORDER BY profile_id`,
      traitsNamedOf: `SELECT t.profile_id, t.key, t.value FROM json_each(@ids) i CROSS JOIN persona_traits t
         ON t.profile_id = i.value AND t.key IN (SELECT value FROM json_each(@keys))`,
      summariesOfIds: `SELECT e.profile_id, e.n, e.first_at, e.last_at, e.last_seq, iif(@properties, e.last_properties, NULL) AS last_properties
         FROM json_each(@ids) i CROSS JOIN persona_events e ON e.event = @event AND e.profile_id = i.value`,
      tracksOfIds: `SELECT t.profile_id, t.message_id, t.at, t.properties FROM json_each(@ids) i CROSS JOIN persona_tracks t
         ON t.profile_id = i.value AND t.event = @event`,
      dropTracksOf: 'DELETE FROM persona_tracks WHERE message_id IN (SELECT value FROM json_each(?))',
    });
    this.current = this.cursor() >= this.lastMessageId();
  }

  cursor(): number {
    return (this.q.cursor.get() as { id: number }).id;
  }

  private lastMessageId(): number {
    return (this.q.lastMessage.get() as { id: number }).id;
  }

  /** Whether every committed message is in the profiles (no backlog being read). */
  isCurrent(): boolean {
    return this.current;
  }

  progress(): ProfilesProgress {
    const read = this.cursor();
    return { catchingUp: !this.current, read, of: this.current ? read : Math.max(read, this.lastMessageId()) };
  }

  /** Called when the profiles fall behind the log (a commit could not extend them): a catch-up should run. */
  onBehind(listener: () => void): void {
    this.behind = listener;
  }

  /**
   * Inside a commit's transaction, after its messages were inserted (the first of them is
   * `firstMessageId`): notes that they are owed, for the engine's follow-up (followOwed) or the
   * next read, whichever comes first. Reading them here held every commit for as long again as
   * its own inserts, before its deliveries could be claimed.
   */
  followCommit(firstMessageId: number): void {
    if (!this.current) return;
    // Messages are numbered from the largest id left, so a purge or a clear that removed the
    // newest ones lets new messages reuse ids at or below the cursor. Every id from
    // firstMessageId on is new, and everything at or below the cursor was read, so the cursor
    // moves back to just before this commit.
    if (this.cursor() >= firstMessageId) this.q.setCursor.run(firstMessageId - 1);
    this.owed = true;
  }

  /**
   * Reads up to `max` of the messages commits left owed, in one transaction; true when none is
   * left (or when a backlog's catch-up owns them). A failure other than a storage fault makes
   * the profiles fall behind: the catch-up reads those messages again.
   */
  followOwed(max: number): boolean {
    if (!this.current || !this.owed) return true;
    try {
      const read = this.db.transaction(() => this.step(max))();
      if (read < max) this.owed = false;
      return read < max;
    } catch (err) {
      if (storageFaultCode(err) !== null) throw err;
      this.current = false;
      this.owed = false;
      this.behind?.();
      return true;
    }
  }

  /**
   * How many owed messages a read takes in at once: all of them, unless the engine's follow-up
   * runs (`limitReadSettling`). Under sustained ingest far more than a few milliseconds' worth can
   * be owed, and taking it all in held the engine's thread for seconds; a running engine's API
   * waits for its follow-up before such a read instead (`engine.owedTakenIn`), so what was
   * committed before the call is in by then, and the read takes in at most a little more.
   */
  private readSettlesAtMost = Number.POSITIVE_INFINITY;

  limitReadSettling(messages: number): void {
    this.readSettlesAtMost = messages;
  }

  /** Before a read: takes in what commits still owe the profiles, as much as a read may (see readSettlesAtMost). */
  settleForRead(): void {
    this.settle(this.readSettlesAtMost);
  }

  /** Takes in what commits still owe the profiles, at most `limit` messages (all by default), so that a read sees every committed message. */
  settle(limit = Number.POSITIVE_INFINITY): void {
    for (let left = limit; left > 0; left -= FOLLOW_LIMIT) {
      if (this.followOwed(Math.min(FOLLOW_LIMIT, left))) return;
    }
  }

  /**
   * One slice of a backlog's catch-up, its own transaction: reads at most `max` messages. Returns
   * true once nothing is left; from then on each commit extends the profiles itself.
   */
  catchUpSlice(max: number): boolean {
    const read = this.db.transaction(() => this.step(max))();
    if (read < max && !this.db.inTransaction) this.current = true;
    return read < max;
  }

  /**
   * Brings profiles up to the end of the log, `chunk` messages per transaction. Returns how many
   * messages were read. Cheap when there is nothing new: one indexed probe.
   */
  catchUp(chunk = CATCH_UP_CHUNK): number {
    let read = 0;
    for (;;) {
      const n = this.db.transaction(() => this.step(chunk))();
      read += n;
      if (n < chunk) {
        if (!this.db.inTransaction) this.current = true;
        return read;
      }
    }
  }

  /** One transaction of at most `chunk` messages; returns the cursor after it. */
  catchUpSome(chunk: number): number {
    this.catchUpSlice(chunk);
    return this.cursor();
  }

  private step(chunk: number): number {
    const rows = this.q.messagesAfter.all(this.cursor(), chunk) as (MessageRow & { path: string | null })[];
    const last = rows[rows.length - 1];
    if (!last) return 0;
    const messages: ProfileMessage[] = [];
    for (const row of rows) {
      // A sync's calls are ours, not the user's: profiles skip them.
      if (row.path === SYNC_PATH) continue;
      const m = profileMessageOf(row);
      if (m) messages.push(m);
    }
    const mentioned = JSON.stringify([...new Set(messages.flatMap(idsOf))]);
    const ids = new Map((this.q.idsIn.all(mentioned) as { id: string; profile_id: string }[]).map((r) => [r.id, r.profile_id]));
    const profiles = new Map(
      (this.q.profilesIn.all(JSON.stringify([...new Set(ids.values())])) as { profile_id: string; user_id: string | null }[]).map((r) => [
        r.profile_id,
        r.user_id,
      ]),
    );
    for (const op of reduceChunk({ ids, profiles }, messages)) this.apply(op);
    this.q.setCursor.run(last.id);
    return rows.length;
  }

  private apply(op: ProfileOp): void {
    const q = this.q;
    switch (op.op) {
      case 'create':
        q.createProfile.run(op.profileId, op.userId);
        q.link.run(op.profileId, op.profileId);
        return;
      case 'claim':
        q.claim.run(op.userId, op.profileId);
        return;
      case 'link':
        q.link.run(op.id, op.profileId);
        return;
      case 'merge':
        q.moveIds.run(op.into, op.from);
        q.moveTracks.run(op.into, op.from);
        q.mergeEvents.run(op.into, op.from);
        q.dropEvents.run(op.from);
        q.mergeTraits.run(op.into, op.from);
        q.mergeUpdatedAt.run(op.from, op.into);
        q.dropTraits.run(op.from);
        // What was sent for the merged-away profile was sent under its old id; the merged profile
        // is judged afresh at the next sync (and sent under its userId if it qualifies).
        q.dropSynced.run(op.from);
        q.dropProfile.run(op.from);
        return;
      case 'traits':
        for (const [key, value] of Object.entries(op.traits)) {
          const text = JSON.stringify(value);
          if (q.keepTrait.run(op.seq, op.profileId, key, text, op.seq).changes === 0) q.setTrait.run(op.profileId, key, text, op.seq);
        }
        return;
      case 'track': {
        const properties = Object.keys(op.properties).length > 0 ? JSON.stringify(op.properties) : null;
        if (q.addTrack.run(op.seq, op.profileId, op.event, op.at, properties).changes > 0) {
          q.addEvent.run(op.profileId, op.event, op.at, op.at, op.seq, properties);
        }
        return;
      }
      case 'touch':
        q.touch.run(op.at, op.profileId);
        return;
    }
  }

  /** The profile an id belongs to (its own id, an anonymousId, a previousId), or null. */
  resolve(id: string): string | null {
    this.settleForRead();
    return (this.q.profileOfId.get(id) as { profile_id: string } | undefined)?.profile_id ?? null;
  }

  view(profileId: string): ProfileView | null {
    this.settleForRead();
    const row = this.q.profile.get(profileId) as ProfileRow | undefined;
    return row ? this.toView(row) : null;
  }

  /**
   * How SQLite runs what the profile view and the preview read per profile or per event, by name,
   * one line per step: for checking that none of them reads every track call.
   */
  plans(): Record<'summariesOf' | 'tracksSinceOf' | 'summariesOfIds' | 'traitsNamedOf' | 'traitsNamed' | 'events' | 'page', string[]> {
    const plan = (sql: string, ...params: unknown[]): string[] =>
      (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    return {
      summariesOf: plan(this.q.summariesOf.source, { event: 'e', properties: 0 }),
      tracksSinceOf: plan(this.q.tracksSinceOf.source, { ids: '["p"]', event: 'e', since: 0 }),
      summariesOfIds: plan(this.q.summariesOfIds.source, { ids: '["p"]', event: 'e', properties: 0 }),
      traitsNamedOf: plan(this.q.traitsNamedOf.source, { ids: '["p"]', keys: '["plan"]' }),
      traitsNamed: plan(this.q.traitsNamed.source, '["plan"]'),
      events: plan(this.q.events.source, 'p'),
      page: plan(this.q.page.source, { like: null, after: '', limit: 50 }),
    };
  }

  /** Profiles by id after `after`, optionally those whose id, any linked id or any trait value contains `text`. */
  page(page: ProfilePageArgs): { items: ProfileView[]; next: string | null } {
    this.settleForRead();
    return this.readPage(page);
  }

  /**
   * The page as the profiles stand, without taking in what commits still owe: for the read
   * worker's read-only connection, once the engine's thread has settled (`settle`).
   */
  readPage(page: ProfilePageArgs): { items: ProfileView[]; next: string | null } {
    const like = page.text === null ? null : `%${page.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const rows = this.q.page.all({ like, after: page.after, limit: page.limit + 1 }) as ProfileRow[];
    const more = rows.length > page.limit;
    const items = rows.slice(0, page.limit).map((r) => this.toView(r));
    return { items, next: more ? (items[items.length - 1]?.profileId ?? null) : null };
  }

  private toView(row: ProfileRow): ProfileView {
    const traits: { [key: string]: JsonValue } = {};
    for (const t of this.q.traits.all(row.profile_id) as { key: string; value: string }[]) traits[t.key] = JSON.parse(t.value) as JsonValue;
    const computed: { [key: string]: JsonValue } = {};
    for (const c of this.q.computed.all(row.profile_id) as { key: string; value: string }[]) computed[c.key] = JSON.parse(c.value) as JsonValue;
    const events = (
      this.q.events.all(row.profile_id) as { event: string; n: number; last_at: number; last_properties: string | null }[]
    ).map(
      (e): ProfileEventView => ({ event: e.event, count: e.n, lastAt: toIso(e.last_at), lastProperties: parseObject(e.last_properties) }),
    );
    return {
      profileId: row.profile_id,
      userId: row.user_id,
      aliases: (this.q.aliases.all(row.profile_id, row.profile_id) as { id: string }[]).map((r) => r.id),
      traits,
      events,
      computed,
      updatedAt: toIso(row.updated_at),
    };
  }

  /** The ids linked to each of these profiles (their own id included), in id order. */
  linkedIds(profileIds: readonly string[]): Map<string, string[]> {
    this.settleForRead();
    const out = new Map<string, string[]>();
    for (const r of this.q.idsOfProfiles.all(JSON.stringify(profileIds)) as { id: string; profile_id: string }[]) {
      let list = out.get(r.profile_id);
      if (!list) out.set(r.profile_id, (list = []));
      list.push(r.id);
    }
    return out;
  }

  /**
   * Every profile, with only what a definition needs of it: the named traits, and per named event
   * its summary (one row per profile), with the occurrences themselves only where the summary
   * cannot answer: all of them for a `where`, and for a time window those since the window's start
   * of the profiles whose occurrences straddle it.
   */
  snapshots(needs: Needs, now: number): ProfileSnapshot[] {
    this.settleForRead();
    return this.load(needs, now, null);
  }

  /** The same for these profiles only (those that exist, in profile order): a preview's batch. */
  snapshotsOf(needs: Needs, now: number, profileIds: readonly string[]): ProfileSnapshot[] {
    this.settleForRead();
    return profileIds.length === 0 ? [] : this.load(needs, now, JSON.stringify(profileIds));
  }

  /** Every profile (`ids` null), or those of a JSON array of ids. */
  private load(needs: Needs, now: number, ids: string | null): ProfileSnapshot[] {
    const base = ids === null ? rowsOf<[string, string | null]>(this.q.allProfiles) : rowsOf<[string, string | null]>(this.q.profilesOf, ids);
    const all = base.map(([profileId, userId]) => ({
      profileId,
      userId,
      traits: {} as { [key: string]: JsonValue },
      events: new Map<string, EventHistory>(),
    }));
    const byId = new Map(all.map((s) => [s.profileId, s]));
    if (needs.traits.size > 0) {
      const keys = JSON.stringify([...needs.traits]);
      const rows =
        ids === null
          ? rowsOf<[string, string, string]>(this.q.traitsNamed, keys)
          : rowsOf<[string, string, string]>(this.q.traitsNamedOf, { ids, keys });
      for (const [profileId, key, value] of rows) {
        const s = byId.get(profileId);
        if (s) s.traits[key] = JSON.parse(value) as JsonValue;
      }
    }
    for (const [event, need] of needs.events) {
      if (need.occurrences) {
        const lists = new Map<string, TrackedEvent[]>();
        const rows =
          ids === null
            ? rowsOf<[string, number, number, string | null]>(this.q.tracksOf, event)
            : rowsOf<[string, number, number, string | null]>(this.q.tracksOfIds, { ids, event });
        for (const [profileId, seq, at, properties] of rows) {
          let list = lists.get(profileId);
          if (!list) lists.set(profileId, (list = []));
          list.push({ at, seq, properties: parseObject(properties) });
        }
        for (const [profileId, list] of lists) {
          const h = historyOf(list);
          if (h) byId.get(profileId)?.events.set(event, h);
        }
        continue;
      }
      const starts = [...need.windows].map((days) => now - days * DAY_MS);
      const since = Math.min(...starts);
      const properties = need.lastProperties ? 1 : 0;
      const rows =
        ids === null
          ? rowsOf<[string, number, number, number, number, string | null]>(this.q.summariesOf, { event, properties })
          : rowsOf<[string, number, number, number, number, string | null]>(this.q.summariesOfIds, { ids, event, properties });
      const straddling = new Map<string, TrackedEvent[]>();
      for (const [profileId, count, firstAt, lastAt, lastSeq, lastProperties] of rows) {
        const s = byId.get(profileId);
        if (!s) continue;
        const h: EventHistory = { count, firstAt, lastAt, last: { at: lastAt, seq: lastSeq, properties: parseObject(lastProperties) } };
        if (starts.some((start) => firstAt < start && lastAt >= start)) {
          const list: TrackedEvent[] = [];
          straddling.set(profileId, list);
          h.occurrences = { since, list };
        }
        s.events.set(event, h);
      }
      // The calls since the window's start of the profiles that straddle it: one statement for
      // all of them (a seek per profile in the (profile_id, event, at) index), not one each.
      if (straddling.size > 0) {
        for (const [profileId, seq, at] of rowsOf<[string, number, number]>(this.q.tracksSinceOf, { ids: JSON.stringify([...straddling.keys()]), event, since })) {
          straddling.get(profileId)?.push({ at, seq, properties: {} });
        }
      }
    }
    return all;
  }

  /**
   * Up to `limit` profile ids after `after`, in profile order, that have what `c` asks of the
   * indexes (every profile when null): the first condition's index range is walked in profile
   * order (persona_events by (event, profile_id), persona_traits_key by (key, profile_id)), the
   * others probed per row by their keys.
   */
  candidateIds(c: Candidates | null, now: number, after: string, limit: number): string[] {
    this.settleForRead();
    const { sql, params } = candidateQuery(c, now, after, limit);
    return rowsOf<[string]>(statement(this.db, sql), ...params).map((r) => r[0]);
  }

  /** How SQLite runs a preview's candidate read (one line per step). */
  candidatePlan(c: Candidates | null): string[] {
    const { sql, params } = candidateQuery(c, 0, '', 1);
    return (this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
  }

  /**
   * Retention removed these messages: their track events go with them (one row each, with its
   * properties, so keeping them would let the profiles outgrow any size limit). The profile keeps
   * its ids, its identify traits and its last-seen time. Inside retention's transaction.
   */
  forgetTracks(messageIds: readonly number[]): void {
    if (messageIds.length === 0) return;
    const ids = JSON.stringify(messageIds);
    const touched = this.q.eventsOfTracks.all(ids) as { profile_id: string; event: string; n: number }[];
    this.q.dropTracksOf.run(ids);
    for (const t of touched) {
      if (this.q.dropEmptyEvent.run(t.profile_id, t.event, t.profile_id, t.event).changes > 0) continue;
      this.q.shrinkEvent.run({ removed: t.n, profile: t.profile_id, event: t.event });
    }
  }

  /**
   * A deletion's purge (engine.onPurge): the userId's profile goes, with its ids, traits, events and
   * synced state, and so do the anonymous profiles of its linked ids; nothing is sent for them. A
   * linked id that belongs to another user's profile (a shared device) leaves that profile alone.
   * Inside the purge's transaction.
   */
  forget(person: { userId: string; linkedIds: readonly string[] }): void {
    this.settle();
    const profiles = new Set<string>();
    const own = this.resolve(person.userId);
    if (own !== null) profiles.add(own);
    for (const id of person.linkedIds) {
      const p = this.resolve(id);
      if (p === null || p === own) continue;
      if ((this.q.profile.get(p) as ProfileRow | undefined)?.user_id === null) profiles.add(p);
    }
    for (const p of profiles) {
      this.q.dropIds.run(p);
      this.q.dropTracks.run(p);
      this.q.dropEvents.run(p);
      this.q.dropTraits.run(p);
      this.q.dropSynced.run(p);
      this.q.dropProfile.run(p);
    }
  }
}

/**
 * The SQL of a preview's candidates (see ProfileStore.candidateIds). Each part is a range of one
 * index or a probe by key; aliases are numbered so a probe names the row it belongs to.
 */
function candidateQuery(c: Candidates | null, now: number, after: string, limit: number): { sql: string; params: unknown[] } {
  if (c === null) return { sql: 'SELECT profile_id FROM persona_profiles WHERE profile_id > ? ORDER BY profile_id LIMIT ?', params: [after, limit] };
  const params: unknown[] = [];
  let alias = 0;
  const since = (withinDays: number | undefined): number => (withinDays === undefined ? Number.MIN_SAFE_INTEGER : now - withinDays * DAY_MS);
  /** Whether the profile `col` has the trait (with the value, or non-null): the negation of `without`. */
  const without = (x: { key: string; value?: string }, col: string, a: string): string => {
    params.push(x.key, x.value ?? 'null');
    return `EXISTS (SELECT 1 FROM persona_traits ${a} WHERE ${a}.profile_id = ${col} AND ${a}.key = ? AND ${a}.value ${x.value === undefined ? '!=' : '='} ?)`;
  };
  /** A boolean over the profile id `col`. */
  const probe = (x: Candidates, col: string): string => {
    const a = `x${alias++}`;
    switch (x.kind) {
      case 'event':
        params.push(x.event, x.atLeast, since(x.withinDays));
        return `EXISTS (SELECT 1 FROM persona_events ${a} WHERE ${a}.event = ? AND ${a}.profile_id = ${col} AND ${a}.n >= ? AND ${a}.last_at >= ?)`;
      case 'trait':
        params.push(x.key);
        if (x.value === undefined) return `EXISTS (SELECT 1 FROM persona_traits ${a} WHERE ${a}.profile_id = ${col} AND ${a}.key = ?)`;
        params.push(x.value);
        return `EXISTS (SELECT 1 FROM persona_traits ${a} WHERE ${a}.profile_id = ${col} AND ${a}.key = ? AND ${a}.value = ?)`;
      case 'without':
        return `NOT ${without(x, col, a)}`;
      case 'and':
        return `(${x.all.map((y) => probe(y, col)).join(' AND ')})`;
      case 'or':
        return `(${x.any.map((y) => probe(y, col)).join(' OR ')})`;
    }
  };
  /** A SELECT of the profile ids after `after` that have `x`; unique ids. */
  const range = (x: Candidates): string => {
    const a = `x${alias++}`;
    switch (x.kind) {
      case 'event':
        params.push(x.event, after, x.atLeast, since(x.withinDays));
        return `SELECT ${a}.profile_id FROM persona_events ${a} WHERE ${a}.event = ? AND ${a}.profile_id > ? AND ${a}.n >= ? AND ${a}.last_at >= ?`;
      case 'trait':
        params.push(x.key, after);
        if (x.value === undefined) return `SELECT ${a}.profile_id FROM persona_traits ${a} INDEXED BY persona_traits_key WHERE ${a}.key = ? AND ${a}.profile_id > ?`;
        params.push(x.value);
        return `SELECT ${a}.profile_id FROM persona_traits ${a} INDEXED BY persona_traits_key WHERE ${a}.key = ? AND ${a}.profile_id > ? AND ${a}.value = ?`;
      case 'without':
        params.push(after);
        return `SELECT ${a}.profile_id FROM persona_profiles ${a} WHERE ${a}.profile_id > ? AND NOT ${without(x, `${a}.profile_id`, `${a}w`)}`;
      case 'and': {
        const [first, ...rest] = x.all as [Candidates, ...Candidates[]];
        const inner = range(first);
        const b = `x${alias++}`;
        return `SELECT ${b}.profile_id FROM (${inner}) ${b} WHERE ${rest.map((y) => probe(y, `${b}.profile_id`)).join(' AND ')}`;
      }
      case 'or':
        return x.any.map((y) => range(y)).join(' UNION ');
    }
  };
  const body = range(c);
  params.push(limit);
  return { sql: `SELECT profile_id FROM (${body}) ORDER BY profile_id LIMIT ?`, params };
}
