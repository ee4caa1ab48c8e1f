/**
 * The SQL edge of profiles: catching up with the message log in chunks (each its own transaction,
 * so the ingest is never held for long), applying the reducer's operations, and reading profiles
 * back as views and as snapshots for evaluation.
 */
import type { JsonObject, JsonValue } from '../../../src-shared/json';
import type { ProfileEventView, ProfileView } from '../../../src-shared/personas';
import type { Db } from './database';
import { statements } from './statements';
import { toIso } from '../ingest/timestamps';
import type { Needs, ProfileSnapshot, TrackedEvent } from '../personas/evaluate';
import { idsOf, profileMessageOf, reduceChunk, type MessageRow, type ProfileMessage, type ProfileOp } from '../personas/profile-reducer';

/** Requests the syncs commit carry this path; their identify calls are ours, not the user's, so profiles skip them. */
export const SYNC_PATH = '/personas/sync';
export const CATCH_UP_CHUNK = 5000;

interface ProfileRow {
  profile_id: string;
  user_id: string | null;
  updated_at: number;
}

const parseObject = (text: string | null): JsonObject => (text === null ? {} : (JSON.parse(text) as JsonObject));

export class ProfileStore {
  private readonly q;

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
      setTrait: `INSERT INTO persona_traits (profile_id, key, value, seq) VALUES (?, ?, ?, ?)
         ON CONFLICT (profile_id, key) DO UPDATE SET value = excluded.value, seq = excluded.seq WHERE excluded.seq > persona_traits.seq`,
      addTrack: 'INSERT OR IGNORE INTO persona_tracks (message_id, profile_id, event, at, properties) VALUES (?, ?, ?, ?, ?)',
      touch: 'UPDATE persona_profiles SET updated_at = MAX(updated_at, ?) WHERE profile_id = ?',
      profileOfId: 'SELECT profile_id FROM persona_ids WHERE id = ?',
      profile: 'SELECT profile_id, user_id, updated_at FROM persona_profiles WHERE profile_id = ?',
      aliases: 'SELECT id FROM persona_ids WHERE profile_id = ? AND id != ? ORDER BY id',
      traits: 'SELECT key, value FROM persona_traits WHERE profile_id = ? ORDER BY key',
      events: `SELECT t.event, COUNT(*) AS n, MAX(t.at) AS last_at,
           (SELECT l.properties FROM persona_tracks l WHERE l.profile_id = t.profile_id AND l.event = t.event
            ORDER BY l.at DESC, l.message_id DESC LIMIT 1) AS last_properties
         FROM persona_tracks t WHERE t.profile_id = ? GROUP BY t.event ORDER BY t.event`,
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
      dropTracksOf: 'DELETE FROM persona_tracks WHERE message_id IN (SELECT value FROM json_each(?))',
    });
  }

  cursor(): number {
    return (this.q.cursor.get() as { id: number }).id;
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
      if (n < chunk) return read;
    }
  }

  /** One transaction of at most `chunk` messages; returns the cursor after it. */
  catchUpSome(chunk: number): number {
    this.db.transaction(() => this.step(chunk))();
    return this.cursor();
  }

  private step(chunk: number): number {
    const rows = this.q.messagesAfter.all(this.cursor(), chunk) as (MessageRow & { path: string | null })[];
    const last = rows[rows.length - 1];
    if (!last) return 0;
    const messages: ProfileMessage[] = [];
    for (const row of rows) {
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
        q.mergeTraits.run(op.into, op.from);
        q.mergeUpdatedAt.run(op.from, op.into);
        q.dropTraits.run(op.from);
        // What was sent for the merged-away profile was sent under its old id; the merged profile
        // is judged afresh at the next sync (and sent under its userId if it qualifies).
        q.dropSynced.run(op.from);
        q.dropProfile.run(op.from);
        return;
      case 'traits':
        for (const [key, value] of Object.entries(op.traits)) q.setTrait.run(op.profileId, key, JSON.stringify(value), op.seq);
        return;
      case 'track':
        q.addTrack.run(op.seq, op.profileId, op.event, op.at, Object.keys(op.properties).length > 0 ? JSON.stringify(op.properties) : null);
        return;
      case 'touch':
        q.touch.run(op.at, op.profileId);
        return;
    }
  }

  /** The profile an id belongs to (its own id, an anonymousId, a previousId), or null. */
  resolve(id: string): string | null {
    return (this.q.profileOfId.get(id) as { profile_id: string } | undefined)?.profile_id ?? null;
  }

  view(profileId: string): ProfileView | null {
    const row = this.q.profile.get(profileId) as ProfileRow | undefined;
    return row ? this.toView(row) : null;
  }

  /** Profiles by id after `after`, optionally those whose id, any linked id or any trait value contains `text`. */
  page(page: { text: string | null; after: string; limit: number }): { items: ProfileView[]; next: string | null } {
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
    const out = new Map<string, string[]>();
    for (const r of this.q.idsOfProfiles.all(JSON.stringify(profileIds)) as { id: string; profile_id: string }[]) {
      let list = out.get(r.profile_id);
      if (!list) out.set(r.profile_id, (list = []));
      list.push(r.id);
    }
    return out;
  }

  /** Every profile, with only what a definition needs of it: the named traits and events. */
  snapshots(needs: Needs): ProfileSnapshot[] {
    const all = (this.q.allProfiles.all() as { profile_id: string; user_id: string | null }[]).map((p) => ({
      profileId: p.profile_id,
      userId: p.user_id,
      traits: {} as { [key: string]: JsonValue },
      events: new Map<string, TrackedEvent[]>(),
    }));
    const byId = new Map(all.map((s) => [s.profileId, s]));
    if (needs.traits.size > 0) {
      for (const t of this.q.traitsNamed.all(JSON.stringify([...needs.traits])) as { profile_id: string; key: string; value: string }[]) {
        const s = byId.get(t.profile_id);
        if (s) s.traits[t.key] = JSON.parse(t.value) as JsonValue;
      }
    }
    for (const [event, withProperties] of needs.events) {
      for (const t of this.q.tracksOf.all(event) as { profile_id: string; message_id: number; at: number; properties: string | null }[]) {
        const s = byId.get(t.profile_id);
        if (!s) continue;
        let list = s.events.get(event);
        if (!list) s.events.set(event, (list = []));
        list.push({ at: t.at, seq: t.message_id, properties: withProperties ? parseObject(t.properties) : {} });
      }
    }
    return all;
  }

  /**
   * Retention removed these messages: their track events go with them (one row each, with its
   * properties, so keeping them would let the profiles outgrow any size limit). The profile keeps
   * its ids, its identify traits and its last-seen time. Inside retention's transaction.
   */
  forgetTracks(messageIds: readonly number[]): void {
    if (messageIds.length > 0) this.q.dropTracksOf.run(JSON.stringify(messageIds));
  }

  /**
   * A deletion's purge (engine.onPurge): the userId's profile goes, with its ids, traits, events and
   * synced state, and so do the anonymous profiles of its linked ids; nothing is sent for them. A
   * linked id that belongs to another user's profile (a shared device) leaves that profile alone.
   * Inside the purge's transaction.
   */
  forget(person: { userId: string; linkedIds: readonly string[] }): void {
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
      this.q.dropTraits.run(p);
      this.q.dropSynced.run(p);
      this.q.dropProfile.run(p);
    }
  }
}
