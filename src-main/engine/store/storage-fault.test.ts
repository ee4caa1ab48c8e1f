import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyStorageError, moveAsideCommand, storageFaultCode } from './storage-fault';

const err = (code: string, message = code): Error => Object.assign(new Error(message), { code });
const ctx = { dbPath: '/data/hookbench.sqlite' };

test('SQLite and file system codes map to one storage fault code each; anything else is no storage fault', () => {
  const cases: [string, string | null][] = [
    ['SQLITE_FULL', 'disk_full'],
    ['ENOSPC', 'disk_full'],
    ['EDQUOT', 'disk_full'],
    ['SQLITE_BUSY', 'database_locked'],
    ['SQLITE_BUSY_SNAPSHOT', 'database_locked'],
    ['SQLITE_LOCKED', 'database_locked'],
    ['SQLITE_IOERR_WRITE', 'io_error'],
    ['SQLITE_IOERR_FSYNC', 'io_error'],
    ['EIO', 'io_error'],
    ['SQLITE_CORRUPT', 'database_corrupt'],
    ['SQLITE_NOTADB', 'database_corrupt'],
    ['SQLITE_CANTOPEN', 'not_writable'],
    ['SQLITE_READONLY', 'not_writable'],
    ['EACCES', 'not_writable'],
    ['EROFS', 'not_writable'],
    ['SQLITE_CONSTRAINT_UNIQUE', null],
    ['SQLITE_ERROR', null],
    ['ERR_INVALID_ARG_TYPE', null],
  ];
  for (const [code, expected] of cases) assert.equal(storageFaultCode(err(code)), expected, code);
  assert.equal(storageFaultCode(new TypeError('x is undefined')), null);
  assert.equal(storageFaultCode('SQLITE_FULL'), null);
  assert.equal(classifyStorageError(new Error('plain'), ctx), null);
});

test('each fault names the file or folder and what to do; only a damaged file is not retryable', () => {
  const full = classifyStorageError(err('SQLITE_FULL', 'database or disk is full'), ctx);
  assert.deepEqual(full && { code: full.code, retryable: full.retryable }, { code: 'disk_full', retryable: true });
  assert.match(full?.message ?? '', /the disk holding \/data is full \(database or disk is full\)/);
  assert.equal(full?.advice, 'free disk space on the disk that holds /data');
  const locked = classifyStorageError(err('SQLITE_BUSY', 'database is locked'), ctx);
  assert.match(locked?.message ?? '', /another program holds a lock on \/data\/hookbench\.sqlite/);
  const damaged = classifyStorageError(err('SQLITE_NOTADB', 'file is not a database'), { ...ctx, stamp: 'S', companions: ['/data/hookbench.sqlite-wal'] });
  assert.equal(damaged?.retryable, false);
  assert.match(
    damaged?.advice ?? '',
    /: mv '\/data\/hookbench\.sqlite' '\/data\/hookbench\.sqlite\.damaged-S' && mv '\/data\/hookbench\.sqlite-wal' '\/data\/hookbench\.sqlite-wal\.damaged-S'$/,
  );
});

test('the move-aside command runs in a real shell, quoting included', () => {
  const dir = mkdtempSync(join(tmpdir(), "hookbench it's-"));
  try {
    const dbPath = join(dir, 'hookbench.sqlite');
    writeFileSync(dbPath, 'x');
    writeFileSync(`${dbPath}-wal`, 'y');
    execFileSync('sh', ['-c', moveAsideCommand({ dbPath, companions: [`${dbPath}-wal`], stamp: 'T' })]);
    assert.deepEqual([existsSync(dbPath), existsSync(`${dbPath}.damaged-T`), existsSync(`${dbPath}-wal.damaged-T`)], [false, true, true]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
