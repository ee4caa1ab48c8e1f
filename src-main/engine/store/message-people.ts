import type { Db } from './database';
import { statements } from './statements';

/**
 * A person's messages by era (schema 21). message_people holds one entry per message under
 * (era, person, id): era is the id's top bits, so the entries a commit adds all land in the newest
 * era's pages, which stay in memory however large the log grows; a lookup seeks the person in each
 * era from the first that can hold a match to the newest.
 *
 * A log from before schema 21 had its messages under messages_user; they are copied in by
 * `backfill`, newest first, a slice at a time. Until that is done the lookups keep using
 * messages_user, which holds every message; when it is, the index is dropped and ingest stops
 * paying for it.
 */

/** Messages per era, as a shift of the id (the schema's `id >> 16`). */
export const ERA_BITS = 16;

/** The person key of a userId, and of an anonymousId with no userId (the schema's triggers). */
export const userKey = (userId: string): string => `u:${userId}`;
export const anonymousKey = (anonymousId: string): string => `a:${anonymousId}`;

/**
 * A recursive table `era(n)`: every era from the one holding the larger of `@after + 1` and the
 * oldest message, to the newest message's. To be put in front of a `WITH RECURSIVE`.
 */
export const ERAS = `era(n) AS (
    SELECT MAX(@after + 1, COALESCE((SELECT MIN(id) FROM messages), 0)) >> ${ERA_BITS}
    UNION ALL SELECT n + 1 FROM era WHERE n < COALESCE((SELECT MAX(id) FROM messages), 0) >> ${ERA_BITS}
  )`;

/**
 * A table `person(key)` of the person's keys: the userId's, then each linked anonymousId's
 * (`@anonymous`, a JSON array of distinct ids) for the messages that carry no userId. In that
 * order, so that within an era a purge takes the user's own messages first.
 */
export const PERSON_KEYS = `person(key) AS (
    SELECT 'u:' || @user UNION ALL SELECT 'a:' || value FROM json_each(@anonymous)
  )`;

export class MessagePeopleStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = statements(db, {
      below: 'SELECT below FROM message_people_backfill',
      setBelow: 'UPDATE message_people_backfill SET below = ?',
      lowest: 'SELECT MIN(id) AS low, COUNT(*) AS n FROM (SELECT id FROM messages WHERE id < ? ORDER BY id DESC LIMIT ?)',
      copy: `INSERT OR IGNORE INTO message_people (era, person, id)
        SELECT id >> ${ERA_BITS}, iif(user_id IS NOT NULL, 'u:' || user_id, 'a:' || anonymous_id), id FROM messages
        WHERE id >= ? AND id < ? AND (user_id IS NOT NULL OR anonymous_id IS NOT NULL)`,
      hasUserIndex: `SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'messages_user'`,
    });
  }

  /** Whether every message in the log has its entry (the lookups by era are complete). */
  ready(): boolean {
    return (this.s.below.get() as { below: number }).below === 0;
  }

  /**
   * Copies the entries of up to `max` messages from before schema 21, newest first, in one
   * transaction; true when none is left. The slice after the last drops messages_user.
   */
  backfill(max: number): boolean {
    return this.db.transaction(() => {
      const below = (this.s.below.get() as { below: number }).below;
      if (below === 0) {
        // Reading every page of it to free them: about 50 ms a million messages, once.
        if (this.s.hasUserIndex.get() !== undefined) this.db.exec('DROP INDEX messages_user');
        return true;
      }
      const { low, n } = this.s.lowest.get(below, max) as { low: number | null; n: number };
      if (low !== null) this.s.copy.run(low, below);
      const done = low === null || n < max;
      this.s.setBelow.run(done ? 0 : low);
      return false;
    })();
  }
}
