/**
 * The verification snippets shown in the delivery detail, run as written: each language's own
 * HTTP server receives a real Hookbench delivery and answers 200 only when the signature verifies
 * over the raw bytes; the same request with a tampered body is refused. Both forms are run: the
 * secret read from WEBHOOK_SECRET, and the secret written into the code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SNIPPET_LANGUAGES, verifySnippet, type SnippetLanguage } from '../../src-shared/verify-snippets';
import { startHarness, type Harness, WRITE_KEY } from './testing/harness';
import { waitUntil } from './testing/wait';
import { createEngineApi } from './api';

// Quotes, a backslash, a dollar, a hash and a non-ASCII letter: every language's literal must keep them.
const SECRET = `s3"cr'et\\$#{x}é`;

interface Running {
  language: SnippetLanguage;
  form: 'env' | 'literal';
  url: string;
  child: ChildProcess;
  output: string[];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function start(language: SnippetLanguage, form: 'env' | 'literal', dir: string): Promise<Running> {
  const snippet = verifySnippet(language, form === 'literal' ? SECRET : null);
  const folder = mkdtempSync(join(dir, `${language}-${form}-`));
  const file = join(folder, snippet.file);
  writeFileSync(file, snippet.code);
  // php -S takes its port on the command line; the others print the port they were given (0: any).
  const phpPort = language === 'php' ? await freePort() : 0;
  const command: Record<SnippetLanguage, [string, string[]]> = {
    node: ['node', [file]],
    python: ['python3', [file]],
    go: ['go', ['run', file]],
    ruby: ['ruby', [file]],
    php: ['php', ['-S', `127.0.0.1:${phpPort}`, file]],
  };
  const [cmd, args] = command[language];
  const env = { ...process.env, PORT: '0', WEBHOOK_SECRET: form === 'env' ? SECRET : 'not-the-secret', GOFLAGS: '-mod=mod', GO111MODULE: 'auto' };
  const child = spawn(cmd, args, { cwd: folder, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  const running: Running = { language, form, url: '', child, output };
  if (language === 'php') {
    await waitUntil(() => output.join('').includes('Development Server'), `php -S to start (${output.join('')})`, 30_000);
    running.url = `http://127.0.0.1:${phpPort}/`;
  } else {
    const port = await waitUntil(() => /listening on (\d+)/.exec(output.join(''))?.[1], `${language} (${form}) to listen: ${output.join('')}`, language === 'go' ? 150_000 : 30_000);
    running.url = `http://127.0.0.1:${port}/hook`;
  }
  return running;
}

function stop(r: Running): void {
  // Each snippet runs in its own process group (go run starts the program as its child).
  if (r.child.pid !== undefined && r.child.exitCode === null) {
    try {
      process.kill(-r.child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

test('every snippet verifies a real delivery over the raw bytes and refuses a tampered body', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-snippets-'));
  const running: Running[] = [];
  let h: Harness | null = null;
  try {
    for (const language of SNIPPET_LANGUAGES) for (const form of ['env', 'literal'] as const) running.push(await start(language, form, dir));
    const destination = (form: 'env' | 'literal') => ({
      name: `snippets-${form}`,
      enabled: true,
      sources: ['backend'],
      sharedSecret: SECRET,
      webhooks: running.filter((r) => r.form === form).map((r) => ({ url: r.url, headers: {} })),
    });
    h = await startHarness({ sources: [{ name: 'backend', writeKey: WRITE_KEY }], destinations: [destination('env'), destination('literal')] });
    const res = await h.post('/v1/batch', {
      batch: [{ type: 'track', userId: 'u1', event: 'Order Completed', messageId: 'snip-1', properties: { price: 1.5, name: 'café ☕', url: 'https://shop.test/a/b' } }],
    });
    assert.equal(res.status, 200);
    const harness = h;
    await waitUntil(() => harness.inspect.value<number>("SELECT COUNT(*) FROM attempts WHERE state != 'in_flight'") === running.length, 'every snippet to answer', 30_000);
    const api = createEngineApi(h.engine);
    const ids = harness.inspect.all<{ id: number }>('SELECT id FROM deliveries ORDER BY id').map((r) => r.id);
    for (const id of ids) {
      const detail = await api.getDelivery(id);
      assert.ok(detail && detail.body !== null);
      for (const attempt of detail.attempts) {
        const who = running.find((r) => r.url === attempt.url);
        assert.equal(attempt.httpStatus, 200, `${who?.language} (${who?.form}) accepts the delivery: ${who?.output.join('')}`);
        const headers = { ...attempt.requestHeaders };
        const tampered: Response = await fetch(attempt.url, { method: 'POST', headers, body: detail.body.replace('café', 'cafe') });
        assert.equal(tampered.status, 401, `${who?.language} (${who?.form}) refuses a tampered body`);
        const same: Response = await fetch(attempt.url, { method: 'POST', headers, body: detail.body });
        assert.equal(same.status, 200, `${who?.language} (${who?.form}) accepts the same bytes again`);
      }
    }
  } finally {
    for (const r of running) stop(r);
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
