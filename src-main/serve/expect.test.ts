import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseExpectArgs, parseExportArgs, parseResetArgs } from './args';
import { accountOf, describeExpectation, junitXml } from './expect';
import { startServe } from './testing/process';
import { Receiver } from '../engine/testing/receiver';
import type { WaitResult } from '../../src-shared/assertions';

const root = new URL('../../', import.meta.url).pathname;

test('expect and reset flags become the API query; refusals name the flag', () => {
  assert.deepEqual(parseExpectArgs(['--event', 'Order Completed', '--user-id=u-1', '--delivered', '--no-violations', '--count', '2']), {
    query: { event: 'Order Completed', userId: 'u-1', count: '2', timeout: '10', delivered: 'true', violations: 'none' },
    json: false,
    timeoutSeconds: 10,
  });
  assert.deepEqual(parseExpectArgs(['--type', 'identify', '--timeout', '2.5', '--json', '--junit', 'r.xml', '--server', 'http://h:1'], { HOOKBENCH_MARKER: 'm-1' }).query, {
    type: 'identify',
    timeout: '2.5',
    marker: 'm-1',
  });
  assert.equal(parseExpectArgs(['--marker', 'mine'], { HOOKBENCH_MARKER: 'env' }).query.marker, 'mine');
  assert.equal(parseExpectArgs(['--with-violations']).query.violations, 'any');
  assert.equal(parseExportArgs(['--with-violations']).query.violations, 'any');
  assert.throws(() => parseExpectArgs(['--no-violations', '--with-violations']), /--no-violations or --with-violations, not both/);
  assert.match(describeExpectation({ event: 'Bad', violations: 'any' }), /with tracking-plan violations/);
  assert.throws(() => parseExpectArgs(['--count', '0']), /--count must be a whole number/);
  assert.throws(() => parseExpectArgs(['--timeout', '301']), /--timeout must be a number of seconds from 0 to 300/);
  assert.throws(() => parseExpectArgs(['--evnt', 'x']), /unknown option --evnt/);
  assert.throws(() => parseExpectArgs(['--event']), /--event needs a value/);
  assert.deepEqual(parseResetArgs([]), { clear: false, json: false, mark: true });
  assert.deepEqual(parseResetArgs(['--mark', 'run-1', '--server', 'http://h:1']), { clear: false, json: false, mark: 'run-1', server: 'http://h:1' });
  assert.deepEqual(parseResetArgs(['--clear']), { clear: true, json: false });
  assert.throws(() => parseResetArgs(['--clear', '--mark', 'x']), /--mark or --clear, not both/);
});

const missed: WaitResult = {
  met: false,
  matched: 0,
  wanted: 1,
  waitedMs: 2000,
  messages: [],
  closest: [
    {
      message: {
        id: 7,
        messageId: 'abc',
        type: 'track',
        event: 'Order Placed',
        userId: 'u-1',
        anonymousId: null,
        source: 'web',
        receivedAt: '2026-11-23T12:00:00.000Z',
        message: {},
        violations: [],
        deliveries: [],
      },
      mismatches: [{ field: 'event', expected: '"Order Completed"', actual: '"Order Placed"' }],
    },
  ],
};

test('the account of an unmet expectation names each near miss and why; JUnit carries it as the failure', () => {
  const description = describeExpectation({ event: 'Order Completed', userId: 'u-1', delivered: 'true', marker: 'run-1' });
  assert.equal(description, 'at least 1 message "Order Completed", userId "u-1", delivered (2xx), after marker run-1');
  assert.equal(
    accountOf(description, missed),
    `FAILED: ${description}: 0 of 1 matched within 2.0 s
  closest messages, and why each did not match:
  #7 track "Order Placed", userId "u-1", source web, at 2026-11-23T12:00:00.000Z
      event: wanted "Order Completed", got "Order Placed"
`,
  );
  const report = junitXml('checkout <sends> "order"', description, missed);
  assert.match(report, /<testsuites tests="1" failures="1" time="2.000">/);
  assert.match(report, /name="checkout &lt;sends&gt; &quot;order&quot;"/);
  assert.match(report, /<failure message="0 of 1 matched" type="expectation">FAILED: /);
  assert.match(report, /event: wanted &quot;Order Completed&quot;, got &quot;Order Placed&quot;/);
  assert.match(junitXml('ok', description, { ...missed, met: true, matched: 1, closest: [] }), /failures="0"[^]*<testcase [^>]*><\/testcase>/);
});

function run(command: string, args: string[], env: Record<string, string>, cwd = root): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/**
 * The CI flow as a user writes it: a real `hookbench serve`, a shell script that marks the log,
 * sends events with @segment/analytics-node, and asserts with `hookbench expect`.
 */
test('a CI script: reset, send with a real SDK, expect passes for what was sent and fails with its account for what was not', async () => {
  const receiver = await new Receiver().start();
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-ci-'));
  const token = 'ci-token-0123456789abcdef';
  writeFileSync(
    join(dir, 'hookbench.json'),
    JSON.stringify({
      sources: [{ name: 'backend', writeKey: 'wk_ci' }],
      destinations: [{ name: 'Receiver', enabled: true, sources: ['backend'], webhooks: [{ url: receiver.url }] }],
      trackingPlan: 'tracking-plan.json',
    }),
  );
  writeFileSync(
    join(dir, 'tracking-plan.json'),
    JSON.stringify({ events: { 'Signup Started': { type: 'object', properties: { plan: { enum: ['free', 'pro'] } } } } }),
  );
  const serve = await startServe(['--config', join(dir, 'hookbench.json'), '--data-dir', join(dir, 'data'), '--port', '0'], { env: { HOOKBENCH_TOKEN: token } });
  try {
    writeFileSync(
      join(dir, 'send.cjs'),
      `const { Analytics } = require('@segment/analytics-node');
const analytics = new Analytics({ writeKey: 'wk_ci', host: process.env.HOOKBENCH_SERVER, flushAt: 10, flushInterval: 100 });
analytics.identify({ userId: 'u-1', traits: { plan: 'pro' } });
analytics.track({ userId: 'u-1', event: 'Order Completed', properties: { total: 42 } });
analytics.track({ userId: 'u-1', event: 'Signup Started', properties: { plan: 'platinum' } });
analytics.closeAndFlush({ timeout: 10000 }).then(() => console.log('sent'));
`,
    );
    writeFileSync(
      join(dir, 'ci.sh'),
      `set -u
hookbench() { node "${root}bin/hookbench.mjs" "$@"; }
export HOOKBENCH_MARKER=$(hookbench reset)
node send.cjs
hookbench expect --event "Order Completed" --user-id u-1 --delivered --timeout 30 --junit pass.xml --name "order sent"
echo "pass-exit=$?"
hookbench expect --event "Order Refunded" --user-id u-1 --timeout 1
echo "miss-exit=$?"
hookbench expect --type identify --count 2 --timeout 0 --json > miss.json
echo "json-exit=$?"
hookbench expect --event "Signup Started" --no-violations --timeout 0
echo "plan-exit=$?"
`,
    );
    const script = await run('bash', ['ci.sh'], { HOOKBENCH_SERVER: serve.url, HOOKBENCH_TOKEN: token, NODE_PATH: join(root, 'node_modules') }, dir);
    assert.match(script.stdout, /^sent$/m, script.stderr);
    assert.match(script.stdout, /^ok: at least 1 message "Order Completed", userId "u-1", delivered \(2xx\), after marker run-[0-9a-z-]+: 1 matched/m, script.stderr);
    assert.match(script.stdout, /^pass-exit=0$/m);
    assert.match(readFileSync(join(dir, 'pass.xml'), 'utf8'), /<testcase classname="hookbench.expect" name="order sent" time="[\d.]+"><\/testcase>/);

    assert.match(script.stdout, /^FAILED: at least 1 message "Order Refunded", userId "u-1", after marker run-[0-9a-z-]+: 0 of 1 matched within 1\.\d s$/m);
    assert.match(
      script.stdout,
      /closest messages, and why each did not match:\n {2}#\d+ track "Signup Started", userId "u-1", source backend, at \S+\n {6}event: wanted "Order Refunded", got "Signup Started"\n {2}#\d+ track "Order Completed", [^\n]+\n {6}event: wanted "Order Refunded", got "Order Completed"\n {2}#\d+ identify, userId "u-1"/,
    );
    assert.match(script.stdout, /^miss-exit=1$/m);

    assert.match(script.stdout, /^json-exit=1$/m);
    const json = JSON.parse(readFileSync(join(dir, 'miss.json'), 'utf8')) as WaitResult & { expectation: string };
    assert.equal(json.met, false);
    assert.equal(json.matched, 1);
    assert.equal(json.wanted, 2);
    assert.equal(json.messages[0]?.type, 'identify');
    assert.deepEqual((json.messages[0]?.message as { traits: unknown }).traits, { plan: 'pro' });
    assert.equal(json.closest[0]?.mismatches[0]?.field, 'type');

    assert.match(script.stdout, /^ {6}violations: wanted no violations, got 1 violation: \/properties\/plan must be equal to one of the allowed values \(got "platinum"\)$/m);
    assert.match(script.stdout, /^plan-exit=1$/m);

    const badToken = await run(process.execPath, ['bin/hookbench.mjs', 'expect', '--event', 'x', '--server', serve.url], { HOOKBENCH_TOKEN: 'wrong-token-0123456789' });
    assert.equal(badToken.code, 2);
    assert.match(badToken.stderr, /refused the token/);
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
