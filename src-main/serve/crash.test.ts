import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Receiver } from '../engine/testing/receiver';
import { waitUntil } from '../engine/testing/wait';
import { startServe } from './testing/process';
import { LogInspector } from '../engine/store/inspect';

const auth = `Basic ${Buffer.from('wk_crash:').toString('base64')}`;

test('kill -9 under load: every acknowledged message is delivered after restart, interrupted attempts resumed', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookbench-crash-'));
  const receiver = await new Receiver().start();
  // Slow answers keep attempts in flight when the kill lands.
  receiver.respond((_req, res) => setTimeout(() => res.end('ok'), 150));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ name: 'crash', writeKey: 'wk_crash' }],
      destinations: [{ name: 'r', enabled: true, sources: ['crash'], webhooks: [{ url: receiver.url }] }],
      delivery: { preset: 'short' },
    }),
  );
  const acked = new Set<string>();
  try {
    const first = await startServe(['--port', '0', '--data-dir', dataDir, '--config', configPath]);
    let seq = 0;
    let stop = false;
    const pump = async (): Promise<void> => {
      while (!stop) {
        const batch = Array.from({ length: 20 }, () => ({ type: 'track', userId: 'u', event: 'E', messageId: `c-${seq++}` }));
        try {
          const res = await fetch(`${first.url}/v1/batch`, { method: 'POST', headers: { authorization: auth }, body: JSON.stringify({ batch }) });
          if (res.status === 200 && (await res.text()) === '{"success":true}') for (const m of batch) acked.add(m.messageId);
        } catch {
          return; // the process is gone
        }
      }
    };
    const pumps = [pump(), pump(), pump()];
    await waitUntil(() => acked.size >= 600 && receiver.received.length >= 50, 'load to be flowing');
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(pumps);
    assert.equal((await first.exited).signal, 'SIGKILL');

    const db = LogInspector.of(dataDir, { readonly: true });
    const inFlight = db.count('attempts', "state = 'in_flight'");
    db.close();
    assert.ok(inFlight > 0, 'the kill caught attempts in flight');

    receiver.respond((_req, res) => res.end('ok'));
    const second = await startServe(['--port', '0', '--data-dir', dataDir]);
    const deliveredIds = (): Set<string> =>
      new Set(receiver.received.map((r) => (JSON.parse(r.body.toString()) as { messageId: string }).messageId));
    await waitUntil(() => [...acked].every((id) => deliveredIds().has(id)), `all ${acked.size} acknowledged messages to arrive`, 60_000);

    const check = LogInspector.of(dataDir, { readonly: true });
    const interrupted = check.count('attempts', "state = 'interrupted'");
    check.close();
    assert.equal(interrupted, inFlight, 'every attempt in flight at the kill is marked interrupted');
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, 'SIGTERM stops cleanly');
  } finally {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
