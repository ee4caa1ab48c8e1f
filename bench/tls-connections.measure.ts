/**
 * What new TLS connections cost the sender when the engine trusts an extra CA (`ca`, a local CA
 * such as mkcert's): 1,000 attempts to an https receiver on 127.0.0.1, CONCURRENCY at a time (128,
 * the scheduler's, by default: as many new connections), through the sending thread and from this
 * thread. Prints the time each took and how many connections the receiver saw.
 *
 *   node --import tsx bench/tls-connections.measure.ts        CONCURRENCY=10 node --import tsx bench/tls-connections.measure.ts
 */
import { createServer } from 'node:https';
import { systemClock } from '../src-main/engine/clock';
import { createThreadSender } from '../src-main/engine/delivery/sender-thread';
import { localCertificate } from './support/tls';

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 128);
const ATTEMPTS = 1_000;

const tls = await localCertificate();

for (const where of ['the sending thread', 'this thread'] as const) {
  let connections = 0;
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
  const sender = createThreadSender({ clock: systemClock, ca: tls.ca, ...(where === 'this thread' ? { entry: null } : {}) });
  if (where === 'the sending thread' && !(await sender.ready())) throw new Error('the sending thread did not start');
  let failed = 0;
  const t = performance.now();
  for (let sent = 0; sent < ATTEMPTS; sent += CONCURRENCY) {
    const results = await Promise.all(
      Array.from({ length: Math.min(CONCURRENCY, ATTEMPTS - sent) }, () =>
        sender.send({ url, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(700, 97), timeoutMs: 5_000 }),
      ),
    );
    failed += results.filter((r) => r.status !== 200).length;
  }
  const ms = performance.now() - t;
  console.log(`${ATTEMPTS} attempts, ${CONCURRENCY} at a time, from ${where}: ${ms.toFixed(0)} ms, ${connections} connections, ${failed} failed`);
  await sender.close();
  server.closeAllConnections();
  server.close();
}
