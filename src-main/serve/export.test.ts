import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvLine } from '../engine/export/page';
import { batchesOf, messagesOfHar } from '../../src-shared/import-file';
import { parseExportArgs, parseImportArgs } from './args';
import { startServe, type ServeProcess } from './testing/process';
import type { AssertedMessage } from '../../src-shared/assertions';

const root = new URL('../../', import.meta.url).pathname;

test('batchesOf keeps each batch within the limits and names the lines it skips', () => {
  const lines = ['{"type":"track","event":"a"}', '', 'not json', '[1]', ...Array.from({ length: 250 }, (_, i) => JSON.stringify({ type: 'track', event: `e${i}` }))];
  const { batches, skipped, messages } = batchesOf(lines.join('\n'));
  assert.equal(messages, 251);
  assert.deepEqual(batches.map((b) => b.length), [100, 100, 51]);
  assert.deepEqual(skipped, [{ line: 3, reason: 'not valid JSON' }, { line: 4, reason: 'not a JSON object' }]);
  const big = Array.from({ length: 40 }, () => JSON.stringify({ type: 'track', properties: { pad: 'x'.repeat(30_000) } })).join('\n');
  const split = batchesOf(big).batches;
  assert.ok(split.length > 1 && split.every((b) => Buffer.byteLength(JSON.stringify({ batch: b })) < 500 * 1024));
});

const harOf = (entries: unknown[]) => ({ log: { version: '1.2', creator: { name: 'devtools', version: '1' }, entries } });
const post = (url: string, body: unknown) => ({ request: { method: 'POST', url, postData: { mimeType: 'text/plain', text: JSON.stringify(body) } } });

test('messagesOfHar takes the Tracking API calls of a HAR file and names what it skips', () => {
  const { messages, skipped } = messagesOfHar(
    harOf([
      post('https://api.segment.io/v1/t', { event: 'Clicked', anonymousId: 'a', messageId: 'h1' }),
      post('https://api.segment.io/v1/batch', { batch: [{ type: 'identify', userId: 'u', messageId: 'h2' }, 'junk'] }),
      { request: { method: 'GET', url: 'https://cdn.segment.com/analytics.js/v1/k/analytics.min.js' } },
      post('https://api.segment.io/v1/p', 'not an object'),
    ]),
  );
  assert.deepEqual(messages, [
    { event: 'Clicked', anonymousId: 'a', messageId: 'h1', type: 'track' },
    { type: 'identify', userId: 'u', messageId: 'h2' },
  ]);
  assert.deepEqual(skipped.map((s) => s.reason), [
    'entry 2 is not a Tracking API call (GET https://cdn.segment.com/analytics.js/v1/k/analytics.min.js)',
    'entry 3 has no JSON object as its body',
  ]);
  assert.deepEqual(messagesOfHar({ nope: 1 }).skipped, [{ line: 0, reason: 'not a HAR file: no log.entries' }]);
});

test('csvLine quotes what needs quoting and neutralizes a formula', () => {
  const m = { id: 1, receivedAt: 't', type: 'track', event: 'Say "hi", then\nleave', userId: '=cmd()', anonymousId: null, source: 's', messageId: 'm', message: {}, violations: [], deliveries: [{ id: 1, destination: 'Hook', status: 'succeeded', httpStatus: 200 }] } as AssertedMessage;
  assert.equal(csvLine(m), `1,t,track,"Say ""hi"", then\nleave",'=cmd(),,s,m,0,Hook:succeeded:200\r\n`);
  assert.deepEqual(parseExportArgs(['--format', 'csv', '--event', 'E', '--limit', '5']).query, { format: 'csv', event: 'E', limit: '5' });
  assert.deepEqual(parseExportArgs(['--since', '2026-01-01', '--until', '2026-02-01']).query, { since: '2026-01-01', until: '2026-02-01' });
  assert.throws(() => parseExportArgs(['--format', 'xml']), /--format must be ndjson, csv or har/);
  assert.deepEqual(parseImportArgs(['f.ndjson', '--write-key', 'wk']), { file: 'f.ndjson', writeKey: 'wk' });
  assert.throws(() => parseImportArgs(['--write-key', 'wk']), /takes one NDJSON \(or \.har\) file/);
  assert.throws(() => parseImportArgs(['f.ndjson']), /--write-key needs a value/);
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/hookbench.mjs', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

test('an NDJSON export imported into a fresh data folder gives the same messages; CSV lists them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-export-'));
  const token = 'export-token-0123456789';
  writeFileSync(join(dir, 'hookbench.json'), JSON.stringify({ sources: [{ name: 'app', writeKey: 'wk_app' }], destinations: [] }));
  const servers: ServeProcess[] = [];
  try {
    for (const name of ['a', 'b']) {
      servers.push(await startServe(['--config', join(dir, 'hookbench.json'), '--data-dir', join(dir, name), '--port', '0'], { env: { HOOKBENCH_TOKEN: token } }));
    }
    const [a, b] = servers as [ServeProcess, ServeProcess];
    const sent = [
      { type: 'identify', userId: 'u-1', traits: { email: 'ada@example.com' }, timestamp: '2026-11-20T10:00:00.000Z' },
      { type: 'track', userId: 'u-1', event: 'Order Completed', properties: { total: 42.5, note: 'a "quoted", line\nbreak' }, timestamp: '2026-11-20T10:00:01.000Z' },
      { type: 'page', anonymousId: 'anon', name: 'Home', properties: { path: '/' }, timestamp: '2026-11-20T10:00:02.000Z' },
    ];
    const posted = await fetch(`${a.url}/v1/batch`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('wk_app:').toString('base64')}`, 'content-type': 'application/json' },
      // As SDKs send: a sentAt just after the events, so the log corrects every timestamp against its receipt.
      body: JSON.stringify({ batch: sent, sentAt: '2026-11-20T10:00:05.000Z' }),
    });
    assert.equal(posted.status, 200);

    const ndjson = join(dir, 'log.ndjson');
    const exported = await run(['export', '--out', ndjson, '--server', a.url], { HOOKBENCH_TOKEN: token });
    assert.equal(exported.code, 0, exported.stderr);
    const csv = await run(['export', '--format', 'csv', '--server', a.url], { HOOKBENCH_TOKEN: token });
    assert.equal(csv.code, 0, csv.stderr);
    const rows = csv.stdout.split('\r\n');
    assert.equal(rows[0], 'id,receivedAt,type,event,userId,anonymousId,source,messageId,violations,deliveries');
    assert.match(rows[2] ?? '', /^2,\S+,track,Order Completed,u-1,,app,[^,]+,0,$/);

    const imported = await run(['import', ndjson, '--write-key', 'wk_app', '--server', b.url], {});
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^imported .*log\.ndjson: 3 messages accepted, 0 dropped \(0 invalid, 0 duplicates\), 0 refused, 0 lines skipped$/m);
    assert.match(imported.stderr, /hookbench import: 3 of 3 sent/);
    // Sent again, the ingest keeps none of them: the summary says they were duplicates, not accepted.
    const again = await run(['import', ndjson, '--write-key', 'wk_app', '--server', b.url], {});
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /: 0 messages accepted, 3 dropped \(0 invalid, 3 duplicates\), 0 refused, 0 lines skipped$/m);
    assert.match(again.stdout, /^ {2}duplicates: 3 messageIds the source already had/m);

    const list = async (url: string): Promise<AssertedMessage[]> =>
      ((await (await fetch(`${url}/api/messages`, { headers: { authorization: `Bearer ${token}` } })).json()) as { messages: AssertedMessage[] }).messages;
    // The same messages: ids, fields and times as recorded (timestamp, originalTimestamp, sentAt);
    // only the server's own receipt differs, and no time is corrected a second time.
    const strip = (m: AssertedMessage) => {
      const { receivedAt: _r, context, ...rest } = m.message as Record<string, unknown> & { context: Record<string, unknown> };
      return { ...rest, context: { ...context, ip: undefined } };
    };
    const before = await list(a.url);
    const after = await list(b.url);
    assert.equal(after.length, 3);
    assert.deepEqual(after.map(strip), before.map(strip));
    assert.deepEqual(after.map((m) => m.messageId), before.map((m) => m.messageId));
    assert.equal(readFileSync(ndjson, 'utf8').trim().split('\n').length, 3);

    // The Tracking API calls of a HAR file (as a browser records them) go in the same way.
    const har = join(dir, 'browser.har');
    writeFileSync(har, JSON.stringify(harOf([post('https://api.segment.io/v1/t', { event: 'From HAR', anonymousId: 'a-9', messageId: 'har-1' })])));
    const fromHar = await run(['import', har, '--write-key', 'wk_app', '--server', b.url], {});
    assert.equal(fromHar.code, 0, fromHar.stderr);
    assert.match(fromHar.stdout, /1 messages accepted, 0 dropped \(0 invalid, 0 duplicates\), 0 refused, 0 lines skipped/);
    const last = (await list(b.url)).at(-1);
    assert.equal(last?.event, 'From HAR');
    assert.equal(last?.messageId, 'har-1');
  } finally {
    for (const s of servers) {
      s.child.kill('SIGTERM');
      await s.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
