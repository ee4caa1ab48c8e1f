/**
 * The launch token kept per data folder: the choice as a table, and two real `hookbench serve`
 * starts on one folder (a tab's token keeps working), then --new-token and HOOKBENCH_TOKEN.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseToken, launchToken, readKeptToken, TOKEN_FILE } from './launch-token';
import { startServe, type ServeProcess } from './testing/process';

test('chooseToken: HOOKBENCH_TOKEN wins, then the kept one, unless --new-token', () => {
  const rows: [string | undefined, string | null, boolean, ReturnType<typeof chooseToken>][] = [
    ['env_token_0123456789', 'kept_token_0123456789', false, { token: 'env_token_0123456789', source: 'env' }],
    ['env_token_0123456789', null, true, { token: 'env_token_0123456789', source: 'env' }],
    [undefined, 'kept_token_0123456789', false, { token: 'kept_token_0123456789', source: 'kept' }],
    [undefined, 'kept_token_0123456789', true, { token: null, source: 'new' }],
    [undefined, null, false, { token: null, source: 'new' }],
  ];
  for (const [env, kept, renew, expected] of rows) assert.deepEqual(chooseToken(env, kept, renew), expected, `${env} ${kept} ${renew}`);
});

test('the kept token file is 0600; a damaged one is replaced, a loose one tightened', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-token-'));
  try {
    const first = launchToken(dir, undefined, false);
    assert.equal(first.source, 'new');
    const path = join(dir, TOKEN_FILE);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(launchToken(dir, undefined, false), { token: first.token, source: 'kept' });
    writeFileSync(path, 'not a token!\n', { mode: 0o644 });
    assert.equal(readKeptToken(dir), null);
    const replaced = launchToken(dir, undefined, false);
    assert.equal(replaced.source, 'new');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    writeFileSync(path, `${replaced.token}\n`, { mode: 0o644 });
    assert.equal(readKeptToken(dir), replaced.token);
    assert.equal(statSync(path).mode & 0o777, 0o600, 'tightened on read');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const tokenOf = (p: ServeProcess): string => {
  const m = /\?token=([A-Za-z0-9_-]+) in a browser/.exec(p.stderr());
  assert.ok(m?.[1], p.stderr());
  return m[1];
};

async function stopped(p: ServeProcess): Promise<void> {
  p.child.kill('SIGTERM');
  await p.exited;
}

async function callWith(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/api/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'listSources' }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Waits (bounded) until serve has written its stderr lines, which follow the ready line. */
async function withToken(p: ServeProcess): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (!/in a browser/.test(p.stderr())) {
    assert.ok(Date.now() < deadline, `no token line: ${p.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return tokenOf(p);
}

test('two hookbench serve starts on one folder use the same token; --new-token replaces it; HOOKBENCH_TOKEN wins without touching the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-token-serve-'));
  const env = { HOOKBENCH_TOKEN: '' };
  try {
    const one = await startServe(['--port', '0', '--data-dir', dir], { env });
    const token = await withToken(one);
    assert.equal(await callWith(one.url, token), 200);
    await stopped(one);
    assert.equal(readFileSync(join(dir, TOKEN_FILE), 'utf8').trim(), token);
    assert.equal(statSync(join(dir, TOKEN_FILE)).mode & 0o777, 0o600);

    const two = await startServe(['--port', '0', '--data-dir', dir], { env });
    assert.equal(await withToken(two), token, 'the second start keeps the token');
    assert.equal(await callWith(two.url, token), 200, 'a tab opened on the first start still works');
    await stopped(two);

    const three = await startServe(['--port', '0', '--data-dir', dir, '--new-token'], { env });
    const renewed = await withToken(three);
    assert.notEqual(renewed, token);
    assert.equal(await callWith(three.url, token), 401, 'the old token is refused after --new-token');
    assert.equal(await callWith(three.url, renewed), 200);
    await stopped(three);

    const fixed = 'fixed_token_for_ci_0123456789';
    const four = await startServe(['--port', '0', '--data-dir', dir], { env: { HOOKBENCH_TOKEN: fixed } });
    assert.equal(await withToken(four), fixed);
    await stopped(four);
    assert.equal(readFileSync(join(dir, TOKEN_FILE), 'utf8').trim(), renewed, 'HOOKBENCH_TOKEN leaves the kept token alone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
