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
