/**
 * What a failed read or write of the log means for the user. SQLite (through better-sqlite3) and
 * Node's fs report machine faults as codes; this turns one into a stable code for APIs, a sentence
 * for people, and what to do about it. Pure: the caller says where the data lives.
 */
import { basename, dirname } from 'node:path';

export type StorageFaultCode = 'disk_full' | 'database_locked' | 'io_error' | 'database_corrupt' | 'not_writable';

export interface StorageFault {
  code: StorageFaultCode;
  /** What went wrong, for people: one sentence naming the file or folder. */
  message: string;
  /** What to do about it, for people: one sentence (whether the engine then recovers by itself is `retryable`). */
  advice: string;
  /** True when the fault can clear by itself or by the user's action while the engine runs (space freed, lock released). */
  retryable: boolean;
}

export interface FaultContext {
  /** The database file (hookbench.sqlite in the data folder). */
  dbPath: string;
  /** Its companion files that exist now (-wal, -shm), moved aside with it when it is damaged. */
  companions?: string[];
  /** Appended to a damaged file's new name, so that moving it aside never overwrites an earlier one. */
  stamp?: string;
}

function codeOf(err: unknown): string {
  if (typeof err !== 'object' || err === null) return '';
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

/** The errors of the storage layer that are machine faults; any other error (a bug, bad input) is not one. */
export function storageFaultCode(err: unknown): StorageFaultCode | null {
  const code = codeOf(err);
  if (code.startsWith('SQLITE_FULL') || code === 'ENOSPC' || code === 'EDQUOT') return 'disk_full';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'database_locked';
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB')) return 'database_corrupt';
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return 'io_error';
  if (
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_PERM') ||
    code === 'EACCES' ||
    code === 'EPERM' ||
    code === 'EROFS'
  ) {
    return 'not_writable';
  }
  return null;
}

const quote = (path: string): string => `'${path.replace(/'/g, `'\\''`)}'`;

/** The shell command that moves a damaged database (and its companions) aside, so that the next start makes a new one. */
export function moveAsideCommand(ctx: FaultContext): string {
  const suffix = `.damaged${ctx.stamp ? `-${ctx.stamp}` : ''}`;
  return [ctx.dbPath, ...(ctx.companions ?? [])].map((file) => `mv ${quote(file)} ${quote(file + suffix)}`).join(' && ');
}

export function classifyStorageError(err: unknown, ctx: FaultContext): StorageFault | null {
  const code = storageFaultCode(err);
  if (code === null) return null;
  const folder = dirname(ctx.dbPath);
  const file = basename(ctx.dbPath);
  const detail = err instanceof Error ? err.message : String(err);
  switch (code) {
    case 'disk_full':
      return {
        code,
        message: `the disk holding ${folder} is full (${detail})`,
        advice: `free disk space on the disk that holds ${folder}`,
        retryable: true,
      };
    case 'database_locked':
      return {
        code,
        message: `another program holds a lock on ${ctx.dbPath} (${detail})`,
        advice: `close the other program using ${file} (a database browser, a backup or sync tool)`,
        retryable: true,
      };
    case 'io_error':
      return {
        code,
        message: `reading or writing ${ctx.dbPath} failed with an I/O error (${detail})`,
        advice: `check the disk that holds ${folder} (removed, remounted read-only, failing)`,
        retryable: true,
      };
    case 'not_writable':
      return {
        code,
        message: `Hookbench cannot open or write ${ctx.dbPath} (${detail})`,
        advice: `make ${folder} and the files in it readable and writable by this user, or choose another data folder`,
        retryable: true,
      };
    case 'database_corrupt':
      return {
        code,
        message: `${ctx.dbPath} is damaged (${detail})`,
        advice: `stop Hookbench and move the damaged file aside (a new, empty log is made at the next start): ${moveAsideCommand(ctx)}`,
        retryable: false,
      };
  }
}

/** A storage fault that stops the engine from starting (the file cannot be opened, read or written). */
export class StorageFaultError extends Error {
  constructor(readonly fault: StorageFault) {
    super(`${fault.message}; ${fault.advice}`);
    this.name = 'StorageFaultError';
  }
}
