import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Receiver } from '../engine/testing/receiver';
import { waitUntil } from '../engine/testing/wait';
import { startServe } from './testing/process';
import { LogInspector } from '../engine/store/inspect';

const TOKEN = 'tok_stop_test_0123456789';
const auth = `Basic ${Buffer.from('wk_stop:').toString('base64')}`;

/** A live stream held open as a browser's EventSource holds it: a plain GET that reads what arrives. */
function openLiveStream(base: string): Promise<{ text: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/api/live?token=${TOKEN}`, (res) => {
      assert.equal(res.statusCode, 200);
      let text = '';
      const closed = new Promise<void>((done) => res.on('close', () => done()));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (text.includes(': connected')) resolve({ text: () => text, closed });
      });
    });
    req.on('error', reject);
  });
}

test('SIGTERM with a live stream, an idle keep-alive socket and a round in flight: exit 0 within 2 s, the stream told', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-stop-'));
  const receiver = await new Receiver().start();
  // The receiver never answers: the round waits on its 5 s timeout when the stop comes.
  receiver.respond(() => {});
  const configPath = join(dataDir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ name: 'stop', writeKey: 'wk_stop' }],
      destinations: [{ name: 'r', enabled: true, sources: ['stop'], webhooks: [{ url: receiver.url }] }],
    }),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const serve = await startServe(['--port', '0', '--data-dir', dataDir, '--config', configPath], { env: { HOOKBENCH_TOKEN: TOKEN } });
    const live = await openLiveStream(serve.url);
    // An idle keep-alive socket, as a browser keeps one after loading the page.
    const idle = await new Promise<number>((resolve, reject) => {
      http.get(`${serve.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });
    assert.equal(idle, 200);
    assert.equal(Object.values(agent.freeSockets).flat().length, 1, 'the keep-alive socket is idle and open');
    const ingest = await fetch(`${serve.url}/v1/track`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'u1', event: 'Stopped Mid Round' }),
    });
    assert.equal(ingest.status, 200);
    await receiver.waitFor(1);

    const started = performance.now();
    serve.child.kill('SIGTERM');
    const exit = await serve.exited;
    const took = performance.now() - started;
    assert.deepEqual(exit, { code: 0, signal: null }, serve.stderr());
    t.diagnostic(`stopped in ${Math.round(took)} ms`);
    assert.ok(took < 2_000, `stopped in ${Math.round(took)} ms`);
    await live.closed;
    assert.match(live.text(), /data: \{"type":"stopped"\}\n\n/, 'the stream ends with the stopped event');
    assert.doesNotMatch(serve.stderr(), /took too long/, 'stopped by its own steps, not the backstop');

    // The attempt cut short is recovered as interrupted and sent again.
    receiver.respond((_req, res) => res.end('ok'));
    const again = await startServe(['--port', '0', '--data-dir', dataDir]);
    await receiver.waitFor(2);
    again.child.kill('SIGTERM');
    assert.equal((await again.exited).code, 0);
    const db = LogInspector.of(dataDir, { readonly: true });
    const states = db.all<{ state: string }>('SELECT state FROM attempts ORDER BY id');
    db.close();
    assert.deepEqual(
      states.map((s) => s.state),
      ['interrupted', 'done'],
    );
  } finally {
    agent.destroy();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGINT stops an idle server at once', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-stop-'));
  try {
    const serve = await startServe(['--port', '0', '--data-dir', dataDir]);
    const started = performance.now();
    serve.child.kill('SIGINT');
    assert.deepEqual(await serve.exited, { code: 0, signal: null });
    assert.ok(performance.now() - started < 2_000);
    await waitUntil(() => serve.stderr().includes('SIGINT, stopping'), 'the stop line');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
