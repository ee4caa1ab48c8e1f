import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Analytics } from '@segment/analytics-node';
import { startServe } from './testing/process';

/**
 * A real SDK against the real `hookbench serve` process, and a receiver written as a customer
 * would write it: it verifies X-Signature over the raw bytes and answers 401 when it does not match.
 */
test('@segment/analytics-node → hookbench serve → a receiver that verifies every signature', async () => {
  const secret = 'whsec-' + Math.random().toString(36).slice(2);
  const verified: Record<string, unknown>[] = [];
  let rejected = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(createHmac('sha1', secret).update(raw).digest('hex'));
      const given = Buffer.from(String(req.headers['x-signature'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        rejected++;
        res.writeHead(401).end('bad signature');
        return;
      }
      verified.push(JSON.parse(raw.toString('utf8')) as Record<string, unknown>);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-sdk-'));
  const configPath = join(dir, 'hookbench.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ name: 'node-app', writeKey: 'wk_node' }],
      destinations: [
        {
          name: 'Receiver',
          enabled: true,
          sources: ['node-app'],
          sharedSecret: secret,
          webhooks: [{ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/segment` }],
        },
      ],
    }),
  );
  const serve = await startServe(['--config', configPath, '--data-dir', dir, '--port', '0']);
  try {
    const analytics = new Analytics({ writeKey: 'wk_node', host: serve.url, flushAt: 10, flushInterval: 200 });
    const errors: unknown[] = [];
    analytics.on('error', (e) => errors.push(e));
    analytics.identify({ userId: 'u-1', traits: { email: 'ada@example.com', plan: 'pro' } });
    analytics.track({ userId: 'u-1', event: 'Order Completed', properties: { total: 42.5, currency: 'EUR' } });
    analytics.page({ anonymousId: 'anon-9', name: 'Pricing', category: 'Docs', properties: { url: 'https://ex.com/pricing', path: '/pricing' } });
    analytics.screen({ userId: 'u-1', name: 'Home', context: { device: { model: 'Pixel 9', type: 'android' } } });
    analytics.group({ userId: 'u-1', groupId: 'g-7', traits: { name: 'Acme' } });
    analytics.alias({ userId: 'u-1', previousId: 'anon-9' });
    await analytics.closeAndFlush({ timeout: 10_000 });
    assert.deepEqual(errors, []);

    const deadline = Date.now() + 10_000;
    while (verified.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(rejected, 0, 'every signature verified');
    const byType = Object.fromEntries(verified.map((p) => [p.type as string, p]));
    assert.deepEqual(Object.keys(byType).sort(), ['alias', 'group', 'identify', 'page', 'screen', 'track']);
    for (const p of verified) {
      assert.match(String(p.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(typeof p.messageId, 'string');
      assert.equal(p.version, 1);
    }
    assert.deepEqual(byType.identify?.traits, { email: 'ada@example.com', plan: 'pro' });
    assert.equal(byType.track?.event, 'Order Completed');
    assert.deepEqual(byType.track?.properties, { total: 42.5, currency: 'EUR' });
    assert.equal(byType.page?.userId, null);
    assert.equal(byType.page?.anonymousId, 'anon-9');
    assert.equal((byType.page?.properties as Record<string, unknown>).path, '/pricing');
    assert.equal(byType.screen?.name, 'Home');
    assert.deepEqual((byType.screen?.context as Record<string, unknown>).device, { model: 'Pixel 9', type: 'android' });
    assert.equal(byType.group?.groupId, 'g-7');
    assert.equal(byType.alias?.['Previous ID'], 'anon-9');
    assert.equal(byType.alias?.['User ID'], 'u-1');
    assert.equal('userId' in (byType.alias ?? {}), false);
    assert.equal(((byType.track?.context as Record<string, unknown>).library as Record<string, unknown>).name, '@segment/analytics-node');
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
});
