/**
 * The test receivers over HTTPS, on a port of their own, with a self-signed certificate made at the
 * first start and kept in the data folder (so a receiver's address and certificate stay the same
 * across restarts). Its use is to watch a sender refuse a certificate nobody vouches for.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { Engine } from '../engine';
import { PRIVATE_FILE_MODE } from '../engine/store/private-files';

export const TLS_KEY_FILE = 'receivers-tls.key';
export const TLS_CERT_FILE = 'receivers-tls.crt';
const VALID_DAYS = 3650;
/** A certificate this close to its end is made anew at start. */
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;

export interface TlsMaterial {
  key: string;
  cert: string;
}

function readMaterial(dataDir: string, now: number): TlsMaterial | null {
  try {
    const key = readFileSync(join(dataDir, TLS_KEY_FILE), 'utf8');
    const cert = readFileSync(join(dataDir, TLS_CERT_FILE), 'utf8');
    const x509 = new X509Certificate(cert);
    if (Date.parse(x509.validTo) - RENEW_BEFORE_MS < now || !x509.checkPrivateKey(createPrivateKey(key))) return null;
    return { key, cert };
  } catch {
    return null;
  }
}

/** The key and certificate kept in the data folder (0600), made when missing, damaged or expiring. */
export async function receiversTlsMaterial(dataDir: string, now = Date.now()): Promise<TlsMaterial> {
  const kept = readMaterial(dataDir, now);
  if (kept) return kept;
  const notBeforeDate = new Date(now - 60_000);
  const pems = await generate([{ name: 'commonName', value: 'Hookbench test receivers' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate: new Date(now + VALID_DAYS * 24 * 60 * 60 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  for (const [file, text] of [
    [TLS_KEY_FILE, pems.private],
    [TLS_CERT_FILE, pems.cert],
  ] as const) {
    const path = join(dataDir, file);
    writeFileSync(path, text, { mode: PRIVATE_FILE_MODE });
    chmodSync(path, PRIVATE_FILE_MODE);
  }
  return { key: pems.private, cert: pems.cert };
}

export interface ReceiversTlsServer {
  server: Server;
  /** https://host:port */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves /receivers/* over HTTPS on host:port (0 picks a free one); anything else is 404. */
export async function listenReceiversTls(engine: Engine, host: string, port: number): Promise<ReceiversTlsServer> {
  const material = await receiversTlsMaterial(engine.dataDir);
  const server = createServer({ key: material.key, cert: material.cert }, (req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/receivers/')) return engine.receivers.handle(req, res, { tls: true });
    const text = JSON.stringify({ success: false, code: 'not_found', message: `${req.method} ${url}: this port serves only the test receivers, /receivers/{name}` });
    res.writeHead(404, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const shownHost = wildcard ? '127.0.0.1' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `https://${shownHost}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
