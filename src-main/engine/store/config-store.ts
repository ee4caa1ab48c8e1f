import type { Db } from './database';
import { statement } from './statements';
import {
  DEFAULT_SIGNING,
  SIGNING_SCHEMES,
  type DeliverySettings,
  type Destination,
  type DestinationInput,
  type SigningScheme,
  type Source,
  type SourceInput,
  type WebhookEntry,
} from '../../../src-shared/settings';

interface SourceRow {
  id: number;
  name: string;
  write_key: string;
  created_at: number;
}
interface DestinationRow {
  id: number;
  name: string;
  enabled: number;
  shared_secret: string | null;
  signing: string;
  warp: number;
  created_at: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The id a new row gets: above every id in the table and every id a removed row had. The schema has
 * no AUTOINCREMENT, and log rows (messages, requests, deliveries) keep naming removed sources and
 * destinations, so a reused id would hand their history, dedupe window and replays to a newcomer.
 */
const nextIdOf = (table: 'sources' | 'destinations'): string =>
  `(SELECT MAX(COALESCE(MAX(id), 0), COALESCE((SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'retired.${table}'), 0)) + 1 FROM ${table})`;

/**
 * Seals a shared secret at rest (Electron passes one over safeStorage); secrets are plain without
 * one, as in headless mode. `seal` returns text (e.g. base64 of the ciphertext); `open` reverses it.
 * A sealer without `seal` only opens what was sealed before: new secrets are then stored plain.
 */
export interface SecretSealer {
  seal?(plain: string): string;
  open(sealed: string): string;
}

/** Marks a sealed value, so plain rows written without a sealer still read as they are. */
export const SEALED_PREFIX = 'sealed:v1:';

/** Sources, destinations and settings: small tables, read whole, written by name (idempotent). */
export class ConfigStore {
  constructor(
    private readonly db: Db,
    private readonly secrets?: SecretSealer,
  ) {}

  private sealSecret(plain: string | null): string | null {
    return plain === null || !this.secrets?.seal ? plain : SEALED_PREFIX + this.secrets.seal(plain);
  }

  /**
   * A secret sealed elsewhere (another machine's keychain) or by a sealer this run lacks cannot be
   * opened: it reads as no secret, so the destination shows none and can be given one again,
   * rather than signing with bytes nobody knows or refusing to start.
   */
  private openSecret(stored: string | null): string | null {
    if (stored === null || !stored.startsWith(SEALED_PREFIX)) return stored;
    if (!this.secrets) return null;
    try {
      return this.secrets.open(stored.slice(SEALED_PREFIX.length));
    } catch {
      return null;
    }
  }

  listSources(): Source[] {
    const rows = statement(this.db, 'SELECT * FROM sources ORDER BY id').all() as SourceRow[];
    return rows.map((r) => ({ id: r.id, name: r.name, writeKey: r.write_key, createdAt: iso(r.created_at) }));
  }

  /** Creates the source, or updates the write key of the one with that name. */
  upsertSource(input: SourceInput, now: number): Source {
    statement(
      this.db,
      `INSERT INTO sources (id, name, write_key, created_at) VALUES (${nextIdOf('sources')}, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET write_key = excluded.write_key`,
    ).run(input.name, input.writeKey, now);
    const row = statement(this.db, 'SELECT * FROM sources WHERE name = ?').get(input.name) as SourceRow;
    return { id: row.id, name: row.name, writeKey: row.write_key, createdAt: iso(row.created_at) };
  }

  listDestinations(): Destination[] {
    const rows = statement(this.db, 'SELECT * FROM destinations ORDER BY id').all() as DestinationRow[];
    const entries = statement(this.db, 'SELECT url, headers, enabled FROM webhook_entries WHERE destination_id = ? ORDER BY position');
    const sources = statement(
      this.db,
      'SELECT s.name FROM destination_sources ds JOIN sources s ON s.id = ds.source_id WHERE ds.destination_id = ? ORDER BY s.id',
    );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      enabled: r.enabled === 1,
      sharedSecret: this.openSecret(r.shared_secret),
      // A scheme this build does not know (a newer one wrote it) signs the default way.
      signing: Object.hasOwn(SIGNING_SCHEMES, r.signing) ? (r.signing as SigningScheme) : DEFAULT_SIGNING,
      warp: r.warp >= 1 ? r.warp : 1,
      createdAt: iso(r.created_at),
      sources: (sources.all(r.id) as { name: string }[]).map((s) => s.name),
      webhooks: (entries.all(r.id) as { url: string; headers: string; enabled: number }[]).map(
        (e): WebhookEntry => ({ url: e.url, headers: JSON.parse(e.headers) as Record<string, string>, enabled: e.enabled === 1 }),
      ),
    }));
  }

  /** Creates or replaces the destination with that name, whole, in one transaction. */
  upsertDestination(input: DestinationInput, now: number): Destination {
    const write = this.db.transaction(() => {
      statement(
        this.db,
        `INSERT INTO destinations (id, name, enabled, shared_secret, signing, warp, created_at)
         VALUES (${nextIdOf('destinations')}, ?, ?, ?, COALESCE(?, '${DEFAULT_SIGNING}'), COALESCE(?, 1), ?)
         ON CONFLICT(name) DO UPDATE SET enabled = excluded.enabled, shared_secret = excluded.shared_secret,
           signing = COALESCE(?, destinations.signing), warp = COALESCE(?, destinations.warp)`,
        // Saved without a scheme or a warp (an older client, a form that does not show it): the stored one stays.
      ).run(
        input.name,
        input.enabled ? 1 : 0,
        this.sealSecret(input.sharedSecret),
        input.signing ?? null,
        input.warp ?? null,
        now,
        input.signing ?? null,
        input.warp ?? null,
      );
      const { id } = statement(this.db, 'SELECT id FROM destinations WHERE name = ?').get(input.name) as { id: number };
      statement(this.db, 'DELETE FROM webhook_entries WHERE destination_id = ?').run(id);
      const addEntry = statement(this.db, 'INSERT INTO webhook_entries (destination_id, position, url, headers, enabled) VALUES (?, ?, ?, ?, ?)');
      input.webhooks.forEach((w, i) => addEntry.run(id, i, w.url, JSON.stringify(w.headers), w.enabled === false ? 0 : 1));
      statement(this.db, 'DELETE FROM destination_sources WHERE destination_id = ?').run(id);
      const attach = statement(
        this.db,
        'INSERT INTO destination_sources (destination_id, source_id) SELECT ?, id FROM sources WHERE name = ?',
      );
      for (const name of input.sources) {
        if (attach.run(id, name).changes === 0) throw new Error(`sources: no source named "${name}"`);
      }
      return id;
    });
    const id = write();
    const saved = this.listDestinations().find((d) => d.id === id);
    if (!saved) throw new Error(`destination ${id} vanished while being saved`);
    return saved;
  }

  /** Names of the destinations attached to this source (what stops it from being removed). */
  destinationsAttachedTo(sourceName: string): string[] {
    const rows = statement(
      this.db,
      `SELECT d.name FROM destination_sources ds JOIN destinations d ON d.id = ds.destination_id
       JOIN sources s ON s.id = ds.source_id WHERE s.name = ? ORDER BY d.id`,
    ).all(sourceName) as { name: string }[];
    return rows.map((r) => r.name);
  }

  /** Removes the source with that name; its id is never given out again. Returns the id, or null if there was none. */
  deleteSource(name: string): number | null {
    return this.retire('sources', name);
  }

  /**
   * Removes the destination with that name (its entries and attachments go with it); its id is
   * never given out again. Returns the id, or null if there was none.
   */
  deleteDestination(name: string, now: number): number | null {
    return this.db.transaction((): number | null => {
      const id = this.retire('destinations', name);
      // Its queued deliveries fall due now, so the scheduler discards them at once, with the reason,
      // instead of showing them as retrying for hours towards a destination that no longer exists.
      if (id !== null) {
        statement(this.db, `UPDATE deliveries SET next_attempt_at = ? WHERE destination_id = ? AND status IN ('pending', 'retrying')`).run(now, id);
      }
      return id;
    })();
  }

  /**
   * Gives a destination a new name, keeping its id, so its deliveries (which point at the id) now
   * show the new name. 'missing' when there is no destination `from`, 'taken' when `to` is in use.
   */
  renameDestination(from: string, to: string): 'renamed' | 'missing' | 'taken' {
    return this.db.transaction((): 'renamed' | 'missing' | 'taken' => {
      const row = statement(this.db, 'SELECT id FROM destinations WHERE name = ?').get(from) as { id: number } | undefined;
      if (!row) return 'missing';
      if (from === to) return 'renamed';
      if (statement(this.db, 'SELECT 1 FROM destinations WHERE name = ?').get(to)) return 'taken';
      statement(this.db, 'UPDATE destinations SET name = ? WHERE id = ?').run(to, row.id);
      return 'renamed';
    })();
  }

  private retire(table: 'sources' | 'destinations', name: string): number | null {
    return this.db.transaction((): number | null => {
      const row = statement(this.db, `SELECT id FROM ${table} WHERE name = ?`).get(name) as { id: number } | undefined;
      if (!row) return null;
      statement(this.db, `DELETE FROM ${table} WHERE id = ?`).run(row.id);
      const retired = this.getSetting<number>(`retired.${table}`) ?? 0;
      this.setSetting(`retired.${table}`, Math.max(retired, row.id));
      return row.id;
    })();
  }

  getSetting<T>(key: string): T | undefined {
    const row = statement(this.db, 'SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  setSetting(key: string, value: unknown): void {
    statement(this.db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(value));
  }

  getDeliverySettings(defaults: DeliverySettings): DeliverySettings {
    return { ...defaults, ...(this.getSetting<Partial<DeliverySettings>>('delivery') ?? {}) };
  }
}
