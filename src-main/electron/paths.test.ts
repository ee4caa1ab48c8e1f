import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { electronSqliteBinding, preferredIngestPort } from './paths';

const facts = { isPackaged: false, resourcesPath: '/opt/Hookbench/resources', appPath: '/home/me/hookbench', env: {} };

test('the Electron build of better-sqlite3: beside the checkout, in resources when installed, or where the environment says', () => {
  assert.equal(electronSqliteBinding(facts), join('/home/me/hookbench', 'build', 'electron-sqlite', 'better_sqlite3.node'));
  assert.equal(electronSqliteBinding({ ...facts, isPackaged: true }), join('/opt/Hookbench/resources', 'electron-sqlite', 'better_sqlite3.node'));
  assert.equal(electronSqliteBinding({ ...facts, env: { HOOKBENCH_SQLITE_BINDING: '/x/b.node' } }), '/x/b.node');
  // Never the Node build the tests use.
  assert.ok(!electronSqliteBinding(facts).includes('node_modules'));
});

test('the ingest port: 4545 unless HOOKBENCH_INGEST_PORT says otherwise; nonsense is refused in words', () => {
  assert.equal(preferredIngestPort({}), 4545);
  assert.equal(preferredIngestPort({ HOOKBENCH_INGEST_PORT: '' }), 4545);
  assert.equal(preferredIngestPort({ HOOKBENCH_INGEST_PORT: '0' }), 0);
  assert.equal(preferredIngestPort({ HOOKBENCH_INGEST_PORT: '8080' }), 8080);
  for (const bad of ['abc', '-1', '65536', '80.5']) {
    assert.throws(() => preferredIngestPort({ HOOKBENCH_INGEST_PORT: bad }), /HOOKBENCH_INGEST_PORT must be a port number from 0 to 65535/);
  }
});
