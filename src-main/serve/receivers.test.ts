/**
 * Test receivers through real HTTP: a real `hookbench serve` with receivers from its config file,
 * on its own port and over HTTPS with the certificate it keeps in the data folder; and Hookbench's
 * own delivery refusing that self-signed certificate.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiResponse } from '../../src-shared/api';
import type { ReceiverRequestDetail, ReceiverView } from '../../src-shared/receivers';
import type { PageResult } from '../../src-shared/api';
import type { ReceiverRequestSummary } from '../../src-shared/receivers';
import { configWith, startHarness } from '../engine/testing/harness';
import { waitUntil, waitUntilAsync } from '../engine/testing/wait';
import { runServeToExit, startServe, type ServeProcess } from './testing/process';
import { TLS_CERT_FILE, TLS_KEY_FILE } from './receivers-tls';

const TOKEN = 'receivers-test-token-0123456789';

async function call<T>(base: string, token: string, method: string, params?: unknown): Promise<{ status: number; body: ApiResponse<T> }> {
  const res = await fetch(`${base}/api/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method, params }),
  });
  return { status: res.status, body: (await res.json()) as ApiResponse<T> };
}
async function ok<T>(base: string, token: string, method: string, params?: unknown): Promise<T> {
  const { body } = await call<T>(base, token, method, params);
  assert.ok(body.ok, JSON.stringify(body));
  return body.result;
}

/** POSTs over HTTPS trusting only `ca`: the answer's status and body. */
function postTls(url: string, ca: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca, headers: { 'content-type': 'text/plain' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const tlsLine = (serve: ServeProcess): RegExpExecArray | null => /test receivers at (http:\/\/\S+)\/receivers\/\{name\} and (https:\/\/\S+)\/receivers\/\{name\}/.exec(serve.stderr());

test('hookbench serve: receivers from the config file answer their script over HTTP and HTTPS, keep their certificate across restarts, and are listed over the control API', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-receivers-'));
  const dataDir = join(dir, 'data');
  const configPath = join(dir, 'hookbench.json');
  writeFileSync(configPath, JSON.stringify({ receivers: [{ name: 'flaky', responses: [{ status: 500 }, { status: 500 }, { status: 200, body: 'ok' }] }] }));
  const fingerprints: string[] = [];
  const tlsPorts: number[] = [];
  try {
    for (const run of [0, 1]) {
      // The second run asks for the port the first one was given.
      const args = ['--config', configPath, '--data-dir', dataDir, '--port', '0', ...(run === 1 ? ['--receivers-tls-port', String(tlsPorts[0])] : [])];
      const serve = await startServe(args, { env: { HOOKBENCH_TOKEN: TOKEN } });
      try {
        const line = await waitUntil(() => tlsLine(serve), 'the start-up line naming the receivers');
        assert.equal(line[1], serve.url);
        const httpsBase = line[2] as string;
        tlsPorts.push(Number(new URL(httpsBase).port));
        const cert = readFileSync(join(dataDir, TLS_CERT_FILE), 'utf8');
        fingerprints.push(new X509Certificate(cert).fingerprint256);
        for (const file of [TLS_KEY_FILE, TLS_CERT_FILE]) assert.equal((statSync(join(dataDir, file)).mode & 0o777).toString(8), '600', file);

        const [listed] = await ok<ReceiverView[]>(serve.url, TOKEN, 'listReceivers');
        assert.equal(listed?.httpUrl, `${serve.url}/receivers/flaky`);
        assert.equal(listed?.httpsUrl, `${httpsBase}/receivers/flaky`);
        if (run === 0) {
          assert.equal((await fetch(`${serve.url}/receivers/flaky`, { method: 'POST', body: 'one' })).status, 500);
          assert.deepEqual(await postTls(`${httpsBase}/receivers/flaky/sub?q=1`, cert, 'two'), { status: 500, body: '' });
          const third = await fetch(`${serve.url}/receivers/flaky`, { method: 'POST', body: 'three' });
          assert.deepEqual([third.status, await third.text()], [200, 'ok']);
          const page = await ok<PageResult<ReceiverRequestSummary>>(serve.url, TOKEN, 'listReceiverRequests', { receiver: 'flaky' });
          assert.deepEqual(
            page.items.map((r) => [r.step, r.status, r.tls, r.path]),
            [
              [2, 200, false, '/receivers/flaky'],
              [1, 500, true, '/receivers/flaky/sub?q=1'],
              [0, 500, false, '/receivers/flaky'],
            ],
          );
          const detail = await ok<ReceiverRequestDetail>(serve.url, TOKEN, 'getReceiverRequest', page.items[1]?.id);
          assert.equal(detail.bodyText, 'two');
          assert.equal(Buffer.from(detail.bodyBase64, 'base64').toString(), 'two');
        } else {
          // The script's place survives the restart; Reset starts it over.
          assert.equal((await fetch(`${serve.url}/receivers/flaky`, { method: 'POST' })).status, 200);
          const reset = await ok<ReceiverView>(serve.url, TOKEN, 'resetReceiver', 'flaky');
          assert.equal(reset.nextStep, 0);
          assert.equal((await fetch(`${serve.url}/receivers/flaky`, { method: 'POST' })).status, 500);
        }
        const refused = await call(serve.url, TOKEN, 'saveReceiver', { name: 'bad name', responses: [{ status: 99 }] });
        assert.equal(refused.status, 400);
        assert.ok(!refused.body.ok);
        assert.deepEqual(
          refused.body.ok ? [] : refused.body.error.fields?.map((f) => `${f.field}: ${f.message}`),
          [
            'receiver.name: must be 1 to 64 letters, digits, _ . - (starting with a letter or digit), as it becomes part of a URL',
            'receiver.responses[0].status: must be an HTTP status from 100 to 599',
          ],
        );
      } finally {
        serve.child.kill('SIGINT');
        assert.equal((await serve.exited).code, 0);
      }
    }
    assert.equal(fingerprints[0], fingerprints[1], 'the same certificate after a restart');
    assert.equal(tlsPorts[1], tlsPorts[0], '--receivers-tls-port is honoured');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("Hookbench's own delivery refuses the receivers' self-signed certificate with a TLS error, and succeeds once that certificate is trusted", async () => {
  for (const trusted of [false, true]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-receivers-tls-'));
    // The certificate is made at the first start; the trusting engine gets it from a first run.
    let ca: string | undefined;
    if (trusted) {
      const first = await startHarness({ sources: [], destinations: [] }, { dataDir, listen: { receiversTlsPort: 0 } });
      await first.close();
      ca = readFileSync(join(dataDir, TLS_CERT_FILE), 'utf8');
    }
    const h = await startHarness(
      { sources: [], destinations: [], receivers: [{ name: 'secure', responses: [{ status: 200 }] }] },
      { dataDir, listen: { receiversTlsPort: 0 }, ...(ca ? { ca } : {}) },
    );
    try {
      const url = `${h.server.receiversTlsUrl}/receivers/secure`;
      assert.match(url, /^https:\/\/127\.0\.0\.1:\d+\/receivers\/secure$/);
      h.engine.applyConfig(configWith(url));
      assert.equal((await h.post('/v1/track', { userId: 'u', event: 'E', messageId: `tls-${trusted}` })).status, 200);
      const attempt = await waitUntil(
        () => h.inspect.get<{ error_kind: string | null; error_text: string | null; http_status: number | null }>("SELECT * FROM attempts WHERE state = 'done'"),
        'the first attempt',
      );
      if (!trusted) {
        assert.equal(attempt.error_kind, 'tls');
        assert.match(attempt.error_text ?? '', /self-signed/i);
        assert.equal(h.inspect.count('receiver_requests'), 0, 'the refusal comes before any request is sent');
      } else {
        assert.equal(attempt.http_status, 200);
        const row = await waitUntil(() => h.inspect.get<{ tls: number; signatures: string }>('SELECT * FROM receiver_requests'), 'the request at the receiver');
        assert.equal(row.tls, 1);
        assert.deepEqual((JSON.parse(row.signatures) as { check: { state: string } }[]).map((v) => v.check.state), ['valid']);
      }
    } finally {
      await h.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
});

test('hookbench serve --port 0: a config whose destination points at {hookbench}/receivers/{name} delivers to its own receiver, signed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-receivers-bases-'));
  const configPath = join(dir, 'hookbench.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ name: 'app', writeKey: 'wk_bases' }],
      destinations: [{ name: 'own', sources: ['app'], sharedSecret: 'bases-secret', webhooks: [{ url: '{hookbench}/receivers/flaky', headers: {} }] }],
      delivery: { preset: 'short' },
      receivers: [{ name: 'flaky', responses: [{ status: 500 }, { status: 200 }] }],
    }),
  );
  const serve = await startServe(['--config', configPath, '--data-dir', join(dir, 'data'), '--port', '0'], { env: { HOOKBENCH_TOKEN: TOKEN } });
  try {
    const [destination] = await ok<{ webhooks: { url: string }[] }[]>(serve.url, TOKEN, 'listDestinations');
    assert.equal(destination?.webhooks[0]?.url, `${serve.url}/receivers/flaky`, 'the placeholder is the address it listens on');
    const sent = await fetch(`${serve.url}/v1/track`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('wk_bases:').toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'u1', event: 'Bases Checked' }),
    });
    assert.equal(sent.status, 200);
    const page = await waitUntilAsync(async () => {
      const p = await ok<PageResult<ReceiverRequestSummary>>(serve.url, TOKEN, 'listReceiverRequests', { receiver: 'flaky' });
      return p.items.length >= 2 ? p : null;
    }, 'the failed attempt and its retry at the receiver', 30_000);
    assert.deepEqual(page.items.map((r) => r.status), [200, 500]);
    const detail = await ok<ReceiverRequestDetail>(serve.url, TOKEN, 'getReceiverRequest', page.items[0]?.id);
    assert.match(detail.bodyText ?? '', /"event":"Bases Checked"/);
    assert.deepEqual(detail.signatures.map((v) => v.check.state), ['valid']);
  } finally {
    serve.child.kill('SIGINT');
    assert.equal((await serve.exited).code, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hookbench serve: a mistake in a config that names {hookbench} is said by field before anything starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-receivers-bases-bad-'));
  const configPath = join(dir, 'hookbench.json');
  writeFileSync(configPath, JSON.stringify({ sources: [], destinations: [{ name: 'own', sources: ['nope'], webhooks: [{ url: '{hookbench}/receivers/a', headers: {} }] }] }));
  try {
    const run = await runServeToExit(['--config', configPath, '--data-dir', join(dir, 'data'), '--port', '0']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '', 'it never said it was listening');
    assert.match(run.stderr, /destinations\[0\]\.sources\[0\]: no source named "nope"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
