/**
 * What each table and index of a log costs per message, from SQLite's dbstat table: the pages a
 * b-tree holds (what the file pays) and the bytes of rows in them (what a freshly written file
 * would pay; the difference is free space left inside pages by rows that shrank or went).
 */
import type Database from 'better-sqlite3';

export interface TableCost {
  name: string;
  /** Pages the b-tree holds, in bytes, per message. */
  pages: number;
  /** Bytes of row content (payload and cell overhead, not free space), per message. */
  used: number;
}

/** Every table and index of the main database, largest first; FTS5's shadow tables by their own names. */
export function costPerMessage(db: Database.Database): { messages: number; fileBytes: number; rows: TableCost[] } {
  const messages = (db.prepare('SELECT COUNT(*) AS n FROM messages').get() as { n: number }).n;
  const per = Math.max(1, messages);
  const rows = (
    db
      .prepare(`SELECT name, SUM(pgsize) AS pages, SUM(pgsize - unused) AS used FROM dbstat WHERE aggregate = 0 GROUP BY name ORDER BY pages DESC`)
      .all() as { name: string; pages: number; used: number }[]
  ).map((r) => ({ name: r.name, pages: r.pages / per, used: r.used / per }));
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pageCount = db.pragma('page_count', { simple: true }) as number;
  return { messages, fileBytes: pageSize * pageCount, rows };
}

/** The table as text: one line per table or index of at least `min` bytes per message, and the rest summed. */
export function formatCosts(c: { messages: number; fileBytes: number; rows: TableCost[] }, min = 0.5): string {
  const f = (n: number): string => n.toFixed(1).padStart(8);
  const big = c.rows.filter((r) => r.pages >= min);
  const rest = c.rows.filter((r) => r.pages < min);
  const lines = [
    `bytes per message (${c.messages.toLocaleString('en-US')} messages; file ${(c.fileBytes / c.messages).toFixed(0)} B/msg)`,
    `  ${'table or index'.padEnd(34)}    pages     used`,
    ...big.map((r) => `  ${r.name.padEnd(34)} ${f(r.pages)} ${f(r.used)}`),
    `  ${`the other ${rest.length}`.padEnd(34)} ${f(rest.reduce((n, r) => n + r.pages, 0))} ${f(rest.reduce((n, r) => n + r.used, 0))}`,
    `  ${'sum'.padEnd(34)} ${f(c.rows.reduce((n, r) => n + r.pages, 0))} ${f(c.rows.reduce((n, r) => n + r.used, 0))}`,
  ];
  return lines.join('\n');
}
