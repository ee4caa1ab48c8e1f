/**
 * The SQL edge of computations: definitions, what was last synced per profile, and the sync log.
 */
import { SYNC_DELIVERY_IDS, type ComputationClass, type ComputedTraitRule, type Condition, type SyncSummary } from '../../../src-shared/personas';
import type { Db } from './database';
import { statements } from './statements';
import { toIso } from '../ingest/timestamps';
import { canonicalJson } from '../personas/evaluate';
import type { SyncDiff } from '../personas/sync-plan';

export interface ComputationRow {
  id: number;
  class: ComputationClass;
  name: string;
  key: string;
  space: string;
  definition: string;
  sync_every_minutes: number | null;
  created_at: number;
  updated_at: number;
}

export interface Definition {
  class: ComputationClass;
  name: string;
  key: string;
  space: string;
  syncEveryMinutes: number | null;
  definition: Condition | ComputedTraitRule;
}

interface SyncRow {
  id: number;
  computation_id: number;
  kind: 'initial' | 'incremental';
  started_at: number;
  entered: number;
  exited: number;
  changed: number;
  sent: number;
  request_id: number | null;
  /** Null for syncs logged before migration 21. */
  deliveries: number | null;
}

export class ComputationStore {
  private readonly q;

  constructor(db: Db) {
    this.q = statements(db, {
      all: 'SELECT * FROM persona_computations ORDER BY id',
      get: 'SELECT * FROM persona_computations WHERE id = ?',
      byName: 'SELECT * FROM persona_computations WHERE space = ? AND name = ? AND class = ?',
      byKey: 'SELECT * FROM persona_computations WHERE space = ? AND key = ?',
      traitsIn: `SELECT * FROM persona_computations WHERE class = 'trait' AND (? IS NULL OR space = ?) ORDER BY id`,
      insert: `INSERT INTO persona_computations (class, name, key, space, definition, sync_every_minutes, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      update: 'UPDATE persona_computations SET definition = ?, sync_every_minutes = ?, updated_at = ? WHERE id = ?',
      delete: 'DELETE FROM persona_computations WHERE id = ?',
      sizes: 'SELECT computation_id AS id, COUNT(*) AS n FROM persona_synced GROUP BY computation_id',
      size: 'SELECT COUNT(*) AS n FROM persona_synced WHERE computation_id = ?',
      syncedAfter: 'SELECT profile_id, value FROM persona_synced WHERE computation_id = ? AND profile_id > ?',
      syncedBetween: 'SELECT profile_id, value FROM persona_synced WHERE computation_id = ? AND profile_id > ? AND profile_id <= ?',
      setSynced: `INSERT INTO persona_synced (computation_id, profile_id, value) VALUES (?, ?, ?)
         ON CONFLICT (computation_id, profile_id) DO UPDATE SET value = excluded.value`,
      dropSynced: 'DELETE FROM persona_synced WHERE computation_id = ? AND profile_id = ?',
      insertSync: `INSERT INTO persona_syncs (computation_id, kind, started_at, entered, exited, changed, sent, request_id, deliveries)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      syncs: 'SELECT * FROM persona_syncs WHERE computation_id = ? ORDER BY id DESC',
      sync: 'SELECT * FROM persona_syncs WHERE id = ?',
      lastSync: 'SELECT * FROM persona_syncs WHERE computation_id = ? ORDER BY id DESC LIMIT 1',
      // Replays carry their original's message too; a sync's deliveries are the ones it caused.
      deliveriesOf: `SELECT d.id FROM messages m JOIN deliveries d ON d.message_id = m.id
         WHERE m.request_id = ? AND d.replay_of IS NULL ORDER BY d.id LIMIT ?`,
      countDeliveriesOf: `SELECT COUNT(*) AS n FROM messages m JOIN deliveries d ON d.message_id = m.id
         WHERE m.request_id = ? AND d.replay_of IS NULL`,
    });
  }

  all(): ComputationRow[] {
    return this.q.all.all() as ComputationRow[];
  }

  get(id: number): ComputationRow | undefined {
    return this.q.get.get(id) as ComputationRow | undefined;
  }

  byName(space: string, name: string, cls: ComputationClass): ComputationRow | undefined {
    return this.q.byName.get(space, name, cls) as ComputationRow | undefined;
  }

  byKey(space: string, key: string): ComputationRow | undefined {
    return this.q.byKey.get(space, key) as ComputationRow | undefined;
  }

  /** Computed traits of a space (of every space when null), oldest first. */
  traitsIn(space: string | null): ComputationRow[] {
    return this.q.traitsIn.all(space, space) as ComputationRow[];
  }

  insert(d: Definition, now: number): number {
    return Number(
      this.q.insert.run(d.class, d.name, d.key, d.space, JSON.stringify(d.definition), d.syncEveryMinutes, now, now).lastInsertRowid,
    );
  }

  update(id: number, d: Definition, now: number): void {
    this.q.update.run(JSON.stringify(d.definition), d.syncEveryMinutes, now, id);
  }

  delete(id: number): boolean {
    return this.q.delete.run(id).changes > 0;
  }

  sizes(): Map<number, number> {
    return new Map((this.q.sizes.all() as { id: number; n: number }[]).map((r) => [r.id, r.n]));
  }

  /** Members (audiences) or profiles with a value (traits) at the last sync. */
  size(id: number): number {
    return (this.q.size.get(id) as { n: number }).n;
  }

  /** The synced state of the profiles after `after` up to `through` (null: to the last), in profile order. */
  syncedBetween(id: number, after: string, through: string | null): Map<string, string> {
    const rows = (through === null ? this.q.syncedAfter.all(id, after) : this.q.syncedBetween.all(id, after, through)) as { profile_id: string; value: string }[];
    return new Map(rows.map((r) => [r.profile_id, r.value]));
  }

  /** Records what a sync told the destinations: entries and changes hold their value, exits are forgotten. */
  applySynced(id: number, diff: SyncDiff): void {
    const exited = new Set(diff.exited);
    for (const s of diff.send) {
      if (exited.has(s.profileId)) this.q.dropSynced.run(id, s.profileId);
      else this.q.setSynced.run(id, s.profileId, canonicalJson(s.value));
    }
  }

  /** A profile that no longer exists: its state goes without anything being sent. */
  forgetSynced(id: number, profileId: string): void {
    this.q.dropSynced.run(id, profileId);
  }

  insertSync(s: Omit<SyncRow, 'id'>): number {
    return Number(
      this.q.insertSync.run(s.computation_id, s.kind, s.started_at, s.entered, s.exited, s.changed, s.sent, s.request_id, s.deliveries).lastInsertRowid,
    );
  }

  syncs(id: number): SyncSummary[] {
    return (this.q.syncs.all(id) as SyncRow[]).map((r) => this.summary(r));
  }

  sync(syncId: number): SyncSummary {
    return this.summary(this.q.sync.get(syncId) as SyncRow);
  }

  lastSync(id: number): SyncSummary | null {
    const row = this.q.lastSync.get(id) as SyncRow | undefined;
    return row ? this.summary(row) : null;
  }

  lastSyncAt(id: number): number | null {
    return (this.q.lastSync.get(id) as SyncRow | undefined)?.started_at ?? null;
  }

  private summary(r: SyncRow): SyncSummary {
    return {
      id: r.id,
      computationId: r.computation_id,
      kind: r.kind,
      startedAt: toIso(r.started_at),
      entered: r.entered,
      exited: r.exited,
      changed: r.changed,
      sent: r.sent,
      deliveryIds: r.request_id === null ? [] : (this.q.deliveriesOf.all(r.request_id, SYNC_DELIVERY_IDS) as { id: number }[]).map((d) => d.id),
      deliveries: r.request_id === null ? 0 : (r.deliveries ?? (this.q.countDeliveriesOf.get(r.request_id) as { n: number }).n),
      requestId: r.request_id,
    };
  }
}

export const definitionOf = (row: ComputationRow): Condition | ComputedTraitRule => JSON.parse(row.definition) as Condition | ComputedTraitRule;
