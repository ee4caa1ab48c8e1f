/**
 * The sending thread: every behaviour of the sender (sender.test.ts) again, through the thread, then
 * what only the thread has: attempts before it started, a thread that cannot start, and one that
 * stops with an attempt out. Real servers on 127.0.0.1, a ManualClock for deadlines.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../clock';
import { createThreadSender, type ThreadSender } from './sender-thread';

(globalThis as { hookbenchSenderOnThread?: boolean }).hookbenchSenderOnThread = true;
await import('./sender.test');

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

/** A receiver answering 200, or holding every request open when `hang`; `seen` counts requests. */
async function receiver(hang = false): Promise<{ url: string; seen: () => number }> {
  let seen = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen++;
      if (!hang) res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return { url: `http://127.0.0.1:${address.port}/hook`, seen: () => seen };
}

function newThreadSender(options: { entry?: string | null } = {}): { sender: ThreadSender; clock: ManualClock; logged: string[] } {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const logged: string[] = [];
  const sender = createThreadSender({ clock, log: (line) => logged.push(line), ...(options.entry !== undefined ? { entry: options.entry } : {}) });
  cleanups.push(() => sender.close({ abort: true }));
  return { sender, clock, logged };
}

const attempt = (url: string) => ({ url, headers: { 'Content-Type': 'application/json' }, body: Buffer.from('{"type":"track"}'), timeoutMs: 5_000 });

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('waited 5 s in vain');
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('an attempt made before the thread started is sent from the engine thread; later ones go through the thread', async () => {
  const { url } = await receiver();
  const { sender } = newThreadSender();
  const first = await sender.send(attempt(url));
  assert.equal(first.status, 200);
  assert.deepEqual(sender.stats(), { onThread: 0, here: 1 });
  assert.equal(await sender.ready(), true);
  const second = await sender.send(attempt(url));
  assert.equal(second.status, 200);
  assert.ok(Buffer.isBuffer(second.responseBody), 'the body comes back as a Buffer');
  assert.equal(second.responseBody.toString(), 'ok');
  assert.deepEqual(sender.stats(), { onThread: 1, here: 1 });
});

test('a thread that cannot start: attempts are sent from the engine thread, and the log says why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-sender-thread-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const entry = join(dir, 'broken.mjs');
  writeFileSync(entry, "throw new Error('this entry cannot load');\n");
  const { url } = await receiver();
  const { sender, logged } = newThreadSender({ entry });
  assert.equal(await sender.ready(), false);
  assert.equal((await sender.send(attempt(url))).status, 200);
  assert.deepEqual(sender.stats(), { onThread: 0, here: 1 });
  assert.ok(logged.some((l) => l.includes('could not start') && l.includes('this entry cannot load')), logged.join('\n'));
});

test('no thread asked for (entry null): every attempt is sent from the engine thread', async () => {
  const { url } = await receiver();
  const { sender } = newThreadSender({ entry: null });
  assert.equal(await sender.ready(), false);
  assert.equal((await sender.send(attempt(url))).status, 200);
  assert.deepEqual(sender.stats(), { onThread: 0, here: 1 });
});

test('a thread that stops with an attempt out: that attempt ends as unknown, not sent again; the next goes from the engine thread', async () => {
  const hanging = await receiver(true);
  const fine = await receiver();
  const { sender, logged } = newThreadSender();
  assert.equal(await sender.ready(), true);
  const pending = sender.send(attempt(hanging.url));
  await until(() => hanging.seen() === 1);
  await sender.thread()?.terminate();
  const result = await pending;
  assert.equal(result.errorKind, 'other');
  assert.match(result.errorText ?? '', /sending thread stopped .*whether the request reached the receiver is unknown/);
  assert.equal(hanging.seen(), 1, 'not sent again');
  assert.equal((await sender.send(attempt(fine.url))).status, 200);
  assert.deepEqual(sender.stats(), { onThread: 1, here: 1 });
  assert.ok(logged.some((l) => l.includes('the sending thread stopped')), logged.join('\n'));
});

test('close with abort ends an attempt the thread holds, at once, and reports it', async () => {
  const hanging = await receiver(true);
  const { sender } = newThreadSender();
  assert.equal(await sender.ready(), true);
  const pending = sender.send(attempt(hanging.url));
  await until(() => hanging.seen() === 1);
  await sender.close({ abort: true });
  const result = await pending;
  assert.equal(result.status, null);
  assert.notEqual(result.errorKind, null);
  assert.equal(sender.thread(), null);
});
