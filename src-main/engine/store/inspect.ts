/**
 * For tests and measurements only: a second connection on an engine's database file, the way
 * another program would open it. Tests read what the engine committed (or stage a row, or hold
 * a lock) through it, so the engine itself never hands out its connection.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { registerBodyFunctions } from './body-pack';
import { statement } from './statements';

export class LogInspector {
  private readonly db: Database.Database;

  /** Opens the database file at path (hookbench.sqlite); see LogInspector.of for a data folder. */
  constructor(path: string, options: { readonly?: boolean } = {}) {
    this.db = new Database(path, { readonly: options.readonly ?? false });
    registerBodyFunctions(this.db);
  }

  /** The log of the data folder dataDir. */
  static of(dataDir: string, options: { readonly?: boolean } = {}): LogInspector {
    return new LogInspector(join(dataDir, 'hookbench.sqlite'), options);
  }

  all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[] {
    return statement(this.db, sql).all(...params) as T[];
  }

  get<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T | undefined {
    return statement(this.db, sql).get(...params) as T | undefined;
  }

  /** The first column of the first row, e.g. of a SELECT COUNT(*). */
  value<T = number>(sql: string, ...params: unknown[]): T {
    const row = statement(this.db, sql).get(...params) as Record<string, unknown> | undefined;
    if (!row) throw new Error(`no row from: ${sql}`);
    return Object.values(row)[0] as T;
  }

  /** Counts the rows of table that match where (SQL, with params). */
  count(table: string, where = '1', ...params: unknown[]): number {
    return this.value<number>(`SELECT COUNT(*) FROM ${table} WHERE ${where}`, ...params);
  }

  /** Runs one statement; returns how many rows it changed and the last inserted row id. */
  run(sql: string, ...params: unknown[]): { changes: number; lastId: number } {
    const r = statement(this.db, sql).run(...params);
    return { changes: r.changes, lastId: Number(r.lastInsertRowid) };
  }

  /** Runs statements without results, e.g. BEGIN EXCLUSIVE to hold the write lock as another program might. */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(name: string): unknown {
    return this.db.pragma(name, { simple: true });
  }

  close(): void {
    this.db.close();
  }
}
