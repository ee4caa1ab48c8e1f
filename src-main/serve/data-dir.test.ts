import { test } from 'node:test';
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir } from './data-dir';

test('XDG_DATA_HOME names the base folder on Linux; empty or relative counts as unset', () => {
  const fallback = join(homedir(), '.local', 'share', 'hookbench');
  assert.equal(defaultDataDir({ XDG_DATA_HOME: '/srv/data' }, 'linux'), '/srv/data/hookbench');
  assert.equal(defaultDataDir({}, 'linux'), fallback);
  assert.equal(defaultDataDir({ XDG_DATA_HOME: '' }, 'linux'), fallback);
  assert.equal(defaultDataDir({ XDG_DATA_HOME: 'relative/dir' }, 'linux'), fallback);
});

test('APPDATA names the base folder on Windows; empty counts as unset', () => {
  assert.equal(defaultDataDir({ APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' }, 'win32'), join('C:\\Users\\ann\\AppData\\Roaming', 'Hookbench'));
  assert.equal(defaultDataDir({ APPDATA: '' }, 'win32'), join(homedir(), 'AppData', 'Roaming', 'Hookbench'));
});
