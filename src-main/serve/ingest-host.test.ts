import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startHarness, configWith, WRITE_KEY } from '../engine/testing/harness';

/** node:http rather than fetch, because fetch will not let a test forge the Host header. */
function batch(base: string, host: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const url = new URL(base);
  const payload = JSON.stringify({ batch: [{ type: 'track', userId: 'u1', event: `From ${host}` }] });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/v1/batch',
        method: 'POST',
        headers: {
          host,
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

test('the Tracking API on loopback refuses a DNS-rebound Host with 403 naming it; loopback names work', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  try {
    const port = new URL(h.server.url).port;
    const refused = await batch(h.server.url, `evil.example:${port}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.success, false);
    assert.equal(refused.body.code, 'forbidden_host');
    assert.match(String(refused.body.message), /Host "evil\.example:\d+" is not this machine.*localhost, \*\.localhost, 127\.0\.0\.0\/8 or \[::1\]/);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `app.localhost:${port}`]) {
      const ok = await batch(h.server.url, host);
      assert.equal(ok.status, 200, `${host}: ${JSON.stringify(ok.body)}`);
    }
    // The refused call never reached the ingest: only the three accepted ones are in the log.
    const logged = h.inspect.get('SELECT COUNT(*) AS n FROM requests') as { n: number };
    assert.equal(logged.n, 3);
  } finally {
    await h.close();
  }
});
