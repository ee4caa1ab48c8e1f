import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseClearArgs, parseServeArgs } from './args';
import { startServe } from './testing/process';
import { Receiver } from '../engine/testing/receiver';
import { parseConfig } from '../engine/config';
import { ValidationError } from '../../src-shared/settings';

const root = new URL('../../', import.meta.url).pathname;

test('serve flags: defaults, forms, and refusals that name the flag', () => {
  assert.deepEqual(parseServeArgs([]), { port: 4545, host: '127.0.0.1', newToken: false, receiversTlsPort: 0 });
  assert.deepEqual(parseServeArgs(['--port=0', '--host', '::1', '--data-dir', '/d', '--config=c.json', '--new-token', '--receivers-tls-port', '8443']), {
    port: 0,
    host: '::1',
    dataDir: '/d',
    config: 'c.json',
    newToken: true,
    receiversTlsPort: 8443,
  });
  assert.throws(() => parseServeArgs(['--new-token=yes']), /--new-token takes no value/);
  assert.throws(() => parseServeArgs(['--receivers-tls-port', 'x']), /--receivers-tls-port must be a whole number from 0 to 65535, not "x"/);
  assert.throws(() => parseServeArgs(['--port', 'abc']), /--port must be a whole number/);
  assert.throws(() => parseServeArgs(['--port', '70000']), /--port/);
  assert.throws(() => parseServeArgs(['--config']), /--config needs a value/);
  assert.throws(() => parseServeArgs(['--verbose']), /unknown option --verbose/);
  assert.deepEqual(parseClearArgs([]), { yes: false });
  assert.deepEqual(parseClearArgs(['--data-dir=/d', '--yes']), { dataDir: '/d', yes: true });
  assert.throws(() => parseClearArgs(['--data-dir']), /--data-dir needs a value/);
  assert.throws(() => parseClearArgs(['--force']), /unknown option --force/);
  assert.deepEqual(parseClearArgs(['-y']), { yes: true });
  assert.throws(() => parseClearArgs(['--yes=1']), /--yes takes no value/);
  assert.throws(() => parseServeArgs(['--config=']), /--config needs a value/);
  assert.throws(() => parseServeArgs(['--config', '--port', '0']), /--config needs a value/, 'a flag is not taken as the value of another');
  assert.throws(() => parseServeArgs(['--verbose=1']), /unknown option --verbose=1/);
  assert.throws(() => parseServeArgs(['extra']), /unexpected argument extra/);
});

function configErrors(input: unknown): string[] {
  try {
    parseConfig(input);
    return [];
  } catch (err) {
    assert.ok(err instanceof ValidationError);
    return err.errors.map((e) => `${e.field}: ${e.message}`);
  }
}

test('config validation names the field and the limit', () => {
  const base = { sources: [{ name: 'b', writeKey: 'wk_b' }] };
  const dest = (webhooks: unknown, extra: Record<string, unknown> = {}): unknown => ({
    ...base,
    destinations: [{ name: 'd', sources: ['b'], webhooks, ...extra }],
  });
  const six = Array.from({ length: 6 }, (_, i) => ({ url: `http://127.0.0.1:9000/${i}` }));
  assert.deepEqual(configErrors(dest(six)), ['destinations[0].webhooks[5]: a destination has at most 5 webhook URLs; this is number 6']);
  assert.deepEqual(configErrors(dest([{ url: 'ftp://x/y' }])), ['destinations[0].webhooks[0].url: must use http or https, not ftp']);
  assert.deepEqual(configErrors(dest([{ url: 'not a url' }])), ['destinations[0].webhooks[0].url: "not a url" is not a valid URL']);
  assert.match(configErrors(dest([{ url: 'http://x/', headers: { 'X-A': 'a\r\nX-Injected: 1' } }]))[0] ?? '', /webhooks\[0\]\.headers\.X-A: header value must not contain CR, LF/);
  assert.match(configErrors(dest([{ url: 'http://x/', headers: { 'Bad Name': 'v' } }]))[0] ?? '', /headers\.Bad Name: header name must be a token/);
  for (const reserved of ['Content-Type', 'user-agent', 'X-Signature']) {
    assert.match(configErrors(dest([{ url: 'http://x/', headers: { [reserved]: 'v' } }]))[0] ?? '', /cannot be overridden/);
  }
  assert.deepEqual(configErrors(dest([{ url: 'http://x/' }], { sources: ['nope'] })), ['destinations[0].sources[0]: no source named "nope" in sources']);
  assert.deepEqual(configErrors({ ...base, destinations: [], delivery: { timeoutMs: -1 } }), ['delivery.timeoutMs: must be a whole number of milliseconds from 1 to 3600000']);
  assert.deepEqual(configErrors({ ...base, destinations: [], colour: 'blue' }), ['colour: is not a config field (expected sources, destinations, delivery, retention, receivers, trackingPlan)']);
  assert.deepEqual(configErrors({ ...base, destinations: [], retention: { days: 0, megabytes: 1.5, hours: 3 } }), [
    'retention.hours: is not a retention setting (expected days, megabytes)',
    'retention.days: must be a whole number of days from 1 to 3650',
    'retention.megabytes: must be a whole number of megabytes from 1 to 1048576',
  ]);
  assert.deepEqual(configErrors({ ...base, destinations: [], retention: 30 }), ['retention: must be an object { days, megabytes }']);
  assert.deepEqual(configErrors({ ...base, destinations: [], retention: { days: 7, megabytes: 200 } }), []);
  assert.deepEqual(configErrors({ ...base, destinations: [], receivers: [{ name: 'flaky', responses: [{ status: 500 }, { status: 500 }, { status: 200 }] }] }), []);
  assert.deepEqual(
    configErrors({
      ...base,
      destinations: [],
      receivers: [
        { name: 'flaky', responses: [{ status: 1000 }] },
        { name: 'flaky', responses: [{ hang: true, reset: true }] },
      ],
    }),
    [
      'receivers[0].responses[0].status: must be an HTTP status from 100 to 599',
      'receivers[1].responses[0].reset: cannot be combined with hang: a step either hangs or resets',
      'receivers[1].name: "flaky" is given twice',
    ],
  );
  assert.deepEqual(configErrors({ ...base, destinations: [], receivers: [{ name: 'a', responses: [{}] }, { name: 'a', responses: [{}] }] }), [
    'receivers[1].name: "a" is given twice',
  ]);
  assert.deepEqual(configErrors(dest([{ url: 'https://127.0.0.1:9/' }])), []);
});

test('hookbench serve prints exactly one ready line, applies its config idempotently, and stops on SIGINT', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-cli-'));
  const receiver = await new Receiver().start();
  const configPath = join(dir, 'hookbench.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ name: 'backend', writeKey: 'wk_backend' }],
      destinations: [{ name: 'Local receiver', enabled: true, sources: ['backend'], sharedSecret: 's3cret', webhooks: [{ url: receiver.url, headers: { 'X-Env': 'dev' } }] }],
      delivery: { timeoutMs: 5000, retryWindowMs: 14400000 },
    }),
  );
  try {
    for (let run = 0; run < 2; run++) {
      const serve = await startServe(['--config', configPath, '--data-dir', dir, '--port', '0']);
      let stdout = '';
      serve.child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
      const res = await fetch(`${serve.url}/v1/track`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('wk_backend:').toString('base64')}` },
        body: JSON.stringify({ userId: 'u', event: 'E' }),
      });
      assert.equal(res.status, 200);
      await receiver.waitFor(run + 1);
      serve.child.kill('SIGINT');
      assert.equal((await serve.exited).code, 0);
      assert.equal(stdout, '', 'nothing but the ready line on stdout');
    }
    assert.equal(receiver.received.length, 2, 'applying the config twice did not duplicate the destination');
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bad config file stops serve with every problem by field, exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-cli-'));
  const configPath = join(dir, 'bad.json');
  writeFileSync(configPath, JSON.stringify({ sources: [{ name: 'b' }], destinations: [{ name: 'd', webhooks: [{ url: 'gopher://x' }] }] }));
  const r = spawnSync(process.execPath, ['bin/hookbench.mjs', 'serve', '--config', configPath, '--data-dir', dir, '--port', '0'], { cwd: root, encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /sources\[0\]\.writeKey/);
  assert.match(r.stderr, /destinations\[0\]\.webhooks\[0\]\.url: must use http or https/);
  assert.equal(r.stdout, '');
});
