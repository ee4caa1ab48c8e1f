/**
 * The sender against real local servers on 127.0.0.1: no mocks, no real sleeps for deadlines
 * (a ManualClock is advanced once the server has seen the request).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import selfsigned from 'selfsigned';
import { ManualClock } from '../clock';
import { buildRequestHeaders } from './request';
import { classifyError, createSender, parseRetryAfter, RESPONSE_READ_LIMIT } from './sender';
import { failureText } from '../../../src-shared/delivery-outcomes';
import { verifySignature, xSignature } from './signature';
import { createThreadSender } from './sender-thread';
import { RESPONSE_BODY_CAP, type AttemptRequest, type AttemptResult } from './types';

// Every server and sender a test opens is closed here, even when an assertion failed halfway.
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const fn of cleanups.reverse()) await fn();
});

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  headers: IncomingMessage['headers'];
  body: Buffer;
}

async function listen(server: HttpServer | HttpsServer | NetServer): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address && typeof address === 'object');
  return address.port;
}

/** An http(s) server whose requests are captured whole before `respond` answers them. */
async function receiver(
  respond: (req: Received, res: ServerResponse) => void,
  tls?: { key: string; cert: string },
): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', rawHeaders: req.rawHeaders, headers: req.headers, body: Buffer.concat(chunks) };
      received.push(r);
      respond(r, res);
    });
  };
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  const port = await listen(server);
  cleanups.push(() => closeServer(server));
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, received };
}

async function closeServer(server: HttpServer | HttpsServer): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A raw TCP server; its sockets are destroyed on cleanup. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onSocket(socket);
  });
  const port = await listen(server);
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return port;
}

/**
 * sender-thread.test.ts runs every test of this file again with attempts sent through the sending
 * thread (it sets this before importing the file): the same behaviours must hold there.
 */
const onThread = (globalThis as { hookbenchSenderOnThread?: boolean }).hookbenchSenderOnThread === true;

function newSender(options: { ca?: string } = {}): { clock: ManualClock; send: (req: Partial<AttemptRequest> & { url: string }) => Promise<AttemptResult> } {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12));
  const withDefaults = (req: Partial<AttemptRequest> & { url: string }): AttemptRequest => ({ headers: { 'Content-Type': 'application/json' }, body: Buffer.from('{"type":"track"}'), timeoutMs: 5_000, ...req });
  if (onThread) {
    const sender = createThreadSender({ clock, ...options });
    cleanups.push(() => sender.close());
    return {
      clock,
      send: async (req) => {
        assert.equal(await sender.ready(), true, 'the sending thread started');
        return sender.send(withDefaults(req));
      },
    };
  }
  const sender = createSender({ clock, ...options });
  cleanups.push(() => sender.close());
  return { clock, send: (req) => sender.send(withDefaults(req)) };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('200: exact bytes, headers and path reach the receiver, which verifies X-Signature', async () => {
  const { url, received } = await receiver((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Receiver': 'ok' });
    res.end('{"ok":true}');
  });
  const { clock, send } = newSender();
  const body = Buffer.from('{"version":1,"type":"track","event":"Café ☕ 🎉","properties":{"n":"1.50"}}', 'utf8');
  const target = `${url}/hooks/in?x=1&y=%20z`;
  const headers = buildRequestHeaders({ url: target, headers: { Authorization: 'Bearer abc', 'X-Team': 'blue' } }, xSignature.sign({ body, secret: 'shh', deliveryId: 1, at: 0 }));

  const result = await send({ url: target, headers, body });

  assert.equal(received.length, 1);
  const got = received[0];
  assert.ok(got);
  assert.equal(got.method, 'POST');
  assert.equal(got.url, '/hooks/in?x=1&y=%20z');
  assert.deepEqual(got.body, body, 'byte-for-byte body');
  assert.equal(got.headers['content-length'], String(body.length));
  assert.equal(got.headers['content-type'], 'application/json');
  assert.equal(got.headers['user-agent'], 'Segment.io/1.0');
  assert.equal(got.headers.authorization, 'Bearer abc');
  assert.equal(got.headers['x-team'], 'blue');
  const signature = got.headers['x-signature'];
  assert.equal(typeof signature, 'string');
  assert.equal(verifySignature(got.body, 'shh', signature as string), true, 'signature recomputed from the received bytes');
  assert.equal(got.rawHeaders.filter((h) => h.toLowerCase() === 'content-type').length, 1);

  assert.equal(result.url, target);
  assert.equal(result.status, 200);
  assert.equal(result.errorKind, null);
  assert.equal(result.errorText, null);
  assert.equal(result.startedAt, clock.now());
  assert.equal(Buffer.from(result.responseBody).toString(), '{"ok":true}');
  assert.equal(result.responseBytes, 11);
  assert.equal(result.responseTruncated, false);
  assert.equal(result.responseHeaders['x-receiver'], 'ok');
  assert.equal(result.retryAfterMs, null);
  assert.equal(typeof result.timings.firstByteMs, 'number');
  assert.ok(result.timings.totalMs >= (result.timings.firstByteMs ?? 0));
  assert.equal(typeof result.timings.connectMs, 'number', 'a new socket was opened');
  assert.equal(result.timings.tlsMs, undefined, 'plain http has no TLS phase');
  assert.equal(result.timings.dnsMs, undefined, 'an IP literal needs no lookup');
});

test('keep-alive: the second attempt reuses the socket and reports no connect phase', async () => {
  const { url } = await receiver((_req, res) => res.end('ok'));
  const { send } = newSender();
  const first = await send({ url });
  // undici returns the socket to its pool one turn of the event loop after the response ended.
  await new Promise((resolve) => setImmediate(resolve));
  const second = await send({ url });
  assert.equal(first.status, 200);
  assert.equal(second.status, 200);
  assert.equal(typeof first.timings.connectMs, 'number');
  assert.equal(second.timings.connectMs, undefined);
});

test('500: errorKind http, body kept', async () => {
  const { url } = await receiver((_req, res) => {
    res.writeHead(500, { 'Content-Type': 'text/plain' });
    res.end('database down');
  });
  const { send } = newSender();
  const result = await send({ url });
  assert.equal(result.status, 500);
  assert.equal(result.errorKind, 'http');
  assert.equal(result.errorText, 'HTTP 500 Internal Server Error');
  assert.equal(Buffer.from(result.responseBody).toString(), 'database down');
  assert.equal(result.retryAfterMs, null);
});

test('429 with Retry-After: 7 gives 7000 ms; 503 with an HTTP date counts from the clock', async () => {
  const { url } = await receiver((req, res) => {
    if (req.url === '/busy') {
      res.writeHead(429, { 'Retry-After': '7' });
    } else {
      res.writeHead(503, { 'Retry-After': new Date(Date.UTC(2026, 0, 1, 12, 2)).toUTCString() });
    }
    res.end();
  });
  const { send } = newSender();
  const busy = await send({ url: `${url}/busy` });
  assert.equal(busy.status, 429);
  assert.equal(busy.errorKind, 'http');
  assert.equal(busy.retryAfterMs, 7_000);
  const down = await send({ url: `${url}/down` });
  assert.equal(down.status, 503);
  assert.equal(down.retryAfterMs, 120_000);
});

test('Retry-After is read only on 429 and 503', async () => {
  const { url } = await receiver((_req, res) => {
    res.writeHead(500, { 'Retry-After': '7' });
    res.end();
  });
  const { send } = newSender();
  assert.equal((await send({ url })).retryAfterMs, null);
});

test('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12);
  assert.equal(parseRetryAfter('7', now), 7_000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 12:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 11:00:00 GMT', now), 0, 'a past date means now');
  assert.equal(parseRetryAfter('1.5', now), null);
  assert.equal(parseRetryAfter('-3', now), null);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter('', now), null);
});

test('302 is recorded and not followed: the receiver sees exactly one request', async () => {
  const { url, received } = await receiver((_req, res) => {
    res.writeHead(302, { Location: '/elsewhere' });
    res.end();
  });
  const { send } = newSender();
  const result = await send({ url: `${url}/hook` });
  assert.equal(result.status, 302);
  assert.equal(result.errorKind, 'redirect');
  assert.match(result.errorText ?? '', /302 Found.*\/elsewhere.*not followed/);
  assert.deepEqual(
    received.map((r) => r.url),
    ['/hook'],
  );
});

test('connection refused: errorKind connect', async () => {
  const server = createNetServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const { send } = newSender();
  const result = await send({ url: `http://127.0.0.1:${port}/` });
  assert.equal(result.status, null);
  assert.equal(result.errorKind, 'connect');
  assert.match(result.errorText ?? '', /connection refused by 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  assert.equal(result.responseBody.length, 0);
});

test('a receiver that resets the connection on data: errorKind reset', async () => {
  const port = await tcpServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  const { send } = newSender();
  const result = await send({ url: `http://127.0.0.1:${port}/` });
  assert.equal(result.status, null);
  assert.equal(result.errorKind, 'reset', result.errorText ?? '');
});

test('a receiver that just closes: errorKind reset', async () => {
  const port = await tcpServer((socket) => socket.once('data', () => socket.end()));
  const { send } = newSender();
  const result = await send({ url: `http://127.0.0.1:${port}/` });
  assert.equal(result.errorKind, 'reset', result.errorText ?? '');
});

test('a receiver that answers garbage: errorKind protocol', async () => {
  const port = await tcpServer((socket) => socket.once('data', () => socket.end('HELLO THERE\r\n\r\n')));
  const { send } = newSender();
  const result = await send({ url: `http://127.0.0.1:${port}/` });
  assert.equal(result.errorKind, 'protocol', result.errorText ?? '');
  assert.match(result.errorText ?? '', /not valid HTTP/);
});

test('a hanging receiver times out on the injected clock, with no real wait', async () => {
  const seen = deferred();
  const { url } = await receiver(() => seen.resolve());
  const { clock, send } = newSender();
  const pending = send({ url, timeoutMs: 5_000 });
  await seen.promise;
  clock.advance(4_999);
  let settled = false;
  void pending.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'still waiting 1 ms before the deadline');
  clock.advance(1);
  const result = await pending;
  assert.equal(result.errorKind, 'timeout');
  assert.equal(result.errorText, 'no complete response within 5000 ms');
  assert.equal(result.status, null);
  assert.ok(result.timings.totalMs < 4_000, `${result.timings.totalMs} ms of real time`);
});

test('a receiver trickling its body byte by byte times out on the injected clock', async () => {
  const trickling = deferred();
  let timer: NodeJS.Timeout | undefined;
  cleanups.push(() => clearInterval(timer));
  const { url } = await receiver((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '100000' });
    res.flushHeaders();
    let sent = 0;
    timer = setInterval(() => {
      res.write('x');
      if (++sent === 5) trickling.resolve();
    }, 10);
    res.on('close', () => clearInterval(timer));
  });
  const { clock, send } = newSender();
  const pending = send({ url, timeoutMs: 5_000 });
  await trickling.promise;
  clock.advance(5_000);
  const result = await pending;
  assert.equal(result.errorKind, 'timeout');
  assert.match(result.errorText ?? '', /^no complete response within 5000 ms/);
  assert.equal(result.status, 200);
  assert.ok(result.responseBytes >= 1 && result.responseBytes < 100_000);
  assert.equal(Buffer.from(result.responseBody).toString(), 'x'.repeat(result.responseBytes));
});

test('a 5 MiB response: 64 KiB kept, reading stops at the hard bound, quickly', async () => {
  const { url } = await receiver((_req, res) => {
    res.on('error', () => undefined);
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    res.end(Buffer.alloc(5 * 1024 * 1024, 0x61));
  });
  const { send } = newSender();
  const result = await send({ url });
  assert.equal(result.status, 200);
  assert.equal(result.errorKind, null);
  assert.equal(result.responseBody.length, RESPONSE_BODY_CAP);
  assert.equal(result.responseTruncated, true);
  assert.ok(result.responseBytes >= RESPONSE_READ_LIMIT && result.responseBytes < 5 * 1024 * 1024, `${result.responseBytes} bytes read`);
  assert.ok(result.timings.totalMs < 3_000, `${result.timings.totalMs} ms`);
});

test('a response just over the cap is read whole but kept to 64 KiB', async () => {
  const { url } = await receiver((_req, res) => res.end(Buffer.alloc(RESPONSE_BODY_CAP + 10, 0x62)));
  const { send } = newSender();
  const result = await send({ url });
  assert.equal(result.responseBytes, RESPONSE_BODY_CAP + 10);
  assert.equal(result.responseBody.length, RESPONSE_BODY_CAP);
  assert.equal(result.responseTruncated, true);
});

// Certificates are made once: key generation is the slow part.
const certs = (async () => {
  const leafExtensions = [
    { name: 'basicConstraints' as const, cA: false },
    { name: 'keyUsage' as const, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage' as const, serverAuth: true },
    { name: 'subjectAltName' as const, altNames: [{ type: 2 as const, value: 'localhost' }, { type: 7 as const, ip: '127.0.0.1' }] },
  ];
  const self = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', algorithm: 'sha256', extensions: leafExtensions });
  const ca = await selfsigned.generate([{ name: 'commonName', value: 'Hookbench Test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const leaf = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: leafExtensions,
  });
  return { self, ca, leaf };
})();

test('https with a self-signed certificate: refused before any request is sent', async () => {
  const { self } = await certs;
  const { url, received } = await receiver((_req, res) => res.end('should never be reached'), { key: self.private, cert: self.cert });
  const { send } = newSender();
  const result = await send({ url: `${url}/hook` });
  assert.equal(result.status, null);
  assert.equal(result.errorKind, 'tls');
  assert.match(result.errorText ?? '', /self-signed certificate refused; request not sent/);
  assert.equal(received.length, 0, 'the request handler was never called');
});

test('https with a certificate from an unknown CA is refused too', async () => {
  const { leaf } = await certs;
  const { url, received } = await receiver((_req, res) => res.end(), { key: leaf.private, cert: leaf.cert });
  const { send } = newSender();
  const result = await send({ url });
  assert.equal(result.errorKind, 'tls');
  assert.match(result.errorText ?? '', /not trusted.*request not sent/);
  assert.equal(received.length, 0);
});

test('https with a certificate signed by a CA passed as `ca`: 200, with connect and TLS phases timed', async () => {
  const { ca, leaf } = await certs;
  const { url, received } = await receiver(
    (_req, res) => {
      res.writeHead(200);
      res.end('secure ok');
    },
    { key: leaf.private, cert: leaf.cert },
  );
  const { send } = newSender({ ca: ca.cert });
  const body = Buffer.from('{"type":"identify"}');
  const result = await send({ url: `${url}/secure`, body });
  assert.equal(result.errorKind, null, result.errorText ?? '');
  assert.equal(result.status, 200);
  assert.equal(Buffer.from(result.responseBody).toString(), 'secure ok');
  assert.deepEqual(received[0]?.body, body);
  assert.equal(typeof result.timings.connectMs, 'number');
  assert.equal(typeof result.timings.tlsMs, 'number');
});

test('a URL that is not http(s) or not a URL at all: errorKind other, nothing thrown', async () => {
  const { send } = newSender();
  const bad = await send({ url: 'not a url' });
  assert.equal(bad.errorKind, 'other');
  assert.match(bad.errorText ?? '', /not a valid URL/);
  const ftp = await send({ url: 'ftp://127.0.0.1/' });
  assert.equal(ftp.errorKind, 'other');
  assert.match(ftp.errorText ?? '', /only http and https/);
});

test('classifyError maps Node and undici error codes to error kinds', () => {
  const err = (code: string, message = code): Error => Object.assign(new Error(message), { code });
  const table: [unknown, string][] = [
    [err('ECONNREFUSED'), 'connect'],
    [err('EHOSTUNREACH'), 'connect'],
    [err('ENETUNREACH'), 'connect'],
    [err('UND_ERR_CONNECT_TIMEOUT'), 'connect'],
    [err('ENOTFOUND'), 'dns'],
    [err('EAI_AGAIN'), 'dns'],
    [err('ECONNRESET'), 'reset'],
    [err('EPIPE'), 'reset'],
    [err('UND_ERR_SOCKET', 'other side closed'), 'reset'],
    [new Error('other side closed'), 'reset'],
    [err('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls'],
    [err('SELF_SIGNED_CERT_IN_CHAIN'), 'tls'],
    [err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls'],
    [err('CERT_HAS_EXPIRED'), 'tls'],
    [err('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls'],
    [err('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls'],
    [err('HPE_INVALID_CONSTANT'), 'protocol'],
    [err('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), 'protocol'],
    [Object.assign(new Error('Response does not match the HTTP/1.1 protocol'), { name: 'HTTPParserError' }), 'protocol'],
    [Object.assign(new AggregateError([err('ECONNREFUSED'), err('ECONNREFUSED')], 'all failed'), { code: undefined }), 'connect'],
    [Object.assign(new Error('fetch failed'), { cause: err('ENOTFOUND') }), 'dns'],
    [new Error('something odd'), 'other'],
    ['a string', 'other'],
  ];
  for (const [e, kind] of table) assert.equal(classifyError(e, 'https://hooks.example.com/in').kind, kind, String(e));
  assert.equal(failureText(classifyError(err('ENOTFOUND'), 'https://hooks.example.com/in')), 'host name of hooks.example.com could not be resolved (ENOTFOUND)');
  assert.equal(failureText(classifyError(err('CERT_HAS_EXPIRED'), 'https://x/')), 'certificate has expired; request not sent (CERT_HAS_EXPIRED)');
});
