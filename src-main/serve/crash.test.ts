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
  // Killed in finally whatever happened, so a failing run leaves no server behind.
  const children: import('node:child_process').ChildProcess[] = [];
  try {
    const first = await startServe(['--port', '0', '--data-dir', dataDir, '--config', configPath]);
    children.push(first.child);
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
    children.push(second.child);
    // Parsed once per received request: re-parsing every body on each check starves the server under load.
    const delivered = new Set<string>();
    let parsed = 0;
    const missing = (): string[] => {
      for (; parsed < receiver.received.length; parsed++) {
        delivered.add((JSON.parse((receiver.received[parsed] as { body: Buffer }).body.toString()) as { messageId: string }).messageId);
      }
      return [...acked].filter((id) => !delivered.has(id));
    };
    try {
      await waitUntil(() => missing().length === 0, `all ${acked.size} acknowledged messages to arrive`, 90_000);
    } catch (err) {
      // Say where the missing ones are, so a failure tells a loss from a slow machine.
      const lost = missing();
      const look = LogInspector.of(dataDir, { readonly: true });
      const where = look.all(
        `SELECT d.status, COUNT(*) AS n FROM messages m LEFT JOIN deliveries d ON d.message_id = m.id
         WHERE m.message_id IN (SELECT value FROM json_each(?)) GROUP BY d.status`,
        JSON.stringify(lost),
      );
      look.close();
      const health = await fetch(`${second.url}/healthz`).then((r) => r.text(), (e: unknown) => String(e));
      throw new Error(`${(err as Error).message}: ${lost.length} missing; their deliveries: ${JSON.stringify(where)}; health: ${health}`);
    }

    const check = LogInspector.of(dataDir, { readonly: true });
    const interrupted = check.count('attempts', "state = 'interrupted'");
    check.close();
    assert.equal(interrupted, inFlight, 'every attempt in flight at the kill is marked interrupted');
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, 'SIGTERM stops cleanly');
  } finally {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
