/**
 * The delivery path run once at start, against receivers of the engine's own on loopback, so that
 * the first second of real traffic does not pay for it. A new engine's first attempts compiled the
 * HTTP client, the TLS client, the mapping and the signing as they went (V8 compiles a function at
 * its first call), and while the engine's thread did that its answers came slowly, so each round
 * opened a connection of its own: over https the first second's end to end p99 was about 200 ms
 * against 20 ms posting directly (docs/latency.md, "The first second").
 *
 * Nothing here touches the log or a configured receiver: the servers are the warm-up's own, on
 * 127.0.0.1, gone when it ends, and the https one's certificate is made for the run.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../clock';
import { serializePayload, toWebhookPayload } from './payloads';
import { buildRequestHeaders } from './request';
import { signatureHeaders, signerFor } from './signers';
import { DEFAULT_SIGNING, SIGNING_SCHEMES, type SigningScheme } from '../../../src-shared/settings';
import { sampleMessage } from './samples';
import { createSender } from './sender';

/** Attempts sent at once to each warm-up receiver, twice: connections opened, then reused. */
const AT_ONCE = 4;
const SCHEMES = Object.keys(SIGNING_SCHEMES) as SigningScheme[];

export interface WarmUpResult {
  ms: number;
  /** Attempts the warm-up receivers answered with 200; the rest failed (said, not thrown). */
  answered: number;
  sent: number;
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => res.end('ok'));
}

function listening(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closed(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Sends a few signed attempts of a realistic payload over http and https to loopback receivers of
 * its own, through a sender made as the engine's is. Never throws: a warm-up that cannot run
 * (no loopback, say) only leaves the first second as it was.
 */
export async function warmUpDelivery(clock: Clock): Promise<WarmUpResult> {
  const t0 = performance.now();
  const servers: Server[] = [];
  let sent = 0;
  let answered = 0;
  try {
    // Loaded here: only an engine that warms up pays for the certificate library.
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    const plain = createHttpServer(answer);
    const secure = createHttpsServer({ key: pems.private, cert: pems.cert }, answer);
    servers.push(plain, secure);
    const urls = [`http://127.0.0.1:${await listening(plain)}/warm-up`, `https://127.0.0.1:${await listening(secure)}/warm-up`];
    const sender = createSender({ clock, ca: pems.cert });
    try {
      for (let round = 0; round < 2; round++) {
        const results = await Promise.all(
          urls.flatMap((url) =>
            Array.from({ length: AT_ONCE }, (_, i) => {
              const now = clock.now();
              const message = sampleMessage({ type: 'track', now, newId: () => `warm-up-${round}-${i}`, pick: () => 0 });
              const body = serializePayload(toWebhookPayload(message));
              const signer = signerFor({ signing: SCHEMES[i % SCHEMES.length] ?? DEFAULT_SIGNING });
              const signature = signatureHeaders(signer, 'warm-up', { body, deliveryId: i, at: now });
              const headers = buildRequestHeaders({ url, headers: {} }, signature);
              return sender.send({ url, headers, body, timeoutMs: 5_000 });
            }),
          ),
        );
        sent += results.length;
        answered += results.filter((r) => r.status === 200).length;
      }
    } finally {
      await sender.close({ abort: true });
    }
  } catch {
    // Said by the counts: a warm-up is an optimisation, never a reason for start to fail.
  } finally {
    await Promise.all(servers.map((s) => (s.listening ? closed(s) : Promise.resolve())));
  }
  return { ms: performance.now() - t0, answered, sent };
}
