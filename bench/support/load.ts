import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Runs a function body in a worker thread so a load generator or receiver does not share the
 * engine's event loop (on 2 cores, the second core is the other side of the wire).
 */
export function runWorker<T>(source: string, workerData: unknown): { result: Promise<T>; worker: Worker } {
  const worker = new Worker(source, { eval: true, workerData });
  const result = new Promise<T>((resolve, reject) => {
    worker.once('message', (m: T) => resolve(m));
    worker.once('error', reject);
  });
  return { result, worker };
}

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** A receiver in a worker: answers 200 to every POST, reports arrival times when asked; over TLS when given `tls: { key, cert }`. */
export const RECEIVER_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const arrivals = [];
const tls = workerData && workerData.tls;
const server = (tls ? (h) => https.createServer(tls, h) : (h) => http.createServer(h))((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (workerData && workerData.record) arrivals.push([Date.now(), body.length > 0 ? JSON.parse(body).messageId : '']);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (m) => { if (m === 'arrivals') parentPort.postMessage({ arrivals }); });
`;

/**
 * A client in a worker: posts each of `bodies` to /v1/batch over a pool of `connections`, `lanes`
 * requests in flight, and reports how long it took and how many calls were not answered 200
 * `{"success":true}`.
 */
const BATCH_POSTER_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { Pool } = require(workerData.undici);
const { url, bodies, connections, lanes, auth } = workerData;
const pool = new Pool(url, { connections, pipelining: 1 });
let next = 0, failures = 0;
async function lane() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const res = await pool.request({ path: '/v1/batch', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body });
    const text = await res.body.text();
    if (res.statusCode !== 200 || text !== '{"success":true}') failures++;
  }
}
const t0 = performance.now();
Promise.all(Array.from({ length: lanes }, lane)).then(async () => {
  const ms = performance.now() - t0;
  await pool.close();
  parentPort.postMessage({ ms, failures });
});
`;

/** Posts `bodies` (batch JSON) to the engine at `url` with a write key, from a worker; the ms it took and the failed calls. */
export function postBatches(url: string, bodies: string[], o: { writeKey: string; connections: number; lanes?: number }): Promise<{ ms: number; failures: number }> {
  return runWorker<{ ms: number; failures: number }>(BATCH_POSTER_WORKER, {
    url,
    bodies,
    connections: o.connections,
    lanes: o.lanes ?? o.connections,
    auth: `Basic ${Buffer.from(`${o.writeKey}:`).toString('base64')}`,
    undici: createRequire(import.meta.url).resolve('undici'),
  }).result;
}
