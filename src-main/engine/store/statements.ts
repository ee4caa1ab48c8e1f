import type Database from 'better-sqlite3';
import type { Db } from './database';

export type Statement = Database.Statement<unknown[]>;

/**
 * The one way stores prepare SQL: each text is prepared on first use and kept for the life of its
 * connection, so a statement that is never run costs nothing and one run on every timer re-arm is
 * compiled once. Keyed by the text, so two stores sharing a statement share its compilation.
 */
const caches = new WeakMap<Db, Map<string, Statement>>();

/** Texts built from variable parts (filters, table names) come in a bounded number of shapes; this bounds the cache anyway. */
const MAX_CACHED = 500;

export function statement(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    if (cache.size >= MAX_CACHED) cache.clear();
    prepared = db.prepare<unknown[]>(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}

/**
 * A store's named statements: each property prepares its text on first read (through statement())
 * and keeps it, so the hot paths pay one property read.
 */
export function statements<K extends string>(db: Db, texts: Record<K, string>): Readonly<Record<K, Statement>> {
  const named = {} as Record<K, Statement>;
  for (const name of Object.keys(texts) as K[]) {
    let prepared: Statement | undefined;
    Object.defineProperty(named, name, { enumerable: true, get: () => (prepared ??= statement(db, texts[name])) });
  }
  return named;
}
