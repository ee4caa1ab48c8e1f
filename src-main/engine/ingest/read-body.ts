import type { IncomingMessage } from 'node:http';
import { gunzip } from 'node:zlib';
import { IngestError } from './errors';

/**
 * Reads a request body up to maxBytes (after gzip inflation, which analytics-python uses), and
 * refuses anything larger without reading it all, so an oversized or endless body cannot hang us.
 */
export function readBody(req: IncomingMessage, maxBytes: number, limitName: string): Promise<Buffer> {
  const tooLarge = (size: string): IngestError =>
    new IngestError(400, 'request_too_large', `request body is ${size}; the limit for ${limitName} is ${maxBytes} bytes`);
  const declared = Number(req.headers['content-length']);
  const gzipped = /\bgzip\b/i.test(String(req.headers['content-encoding'] ?? ''));
  if (!gzipped && Number.isFinite(declared) && declared > maxBytes) {
    req.resume();
    return Promise.reject(tooLarge(`${declared} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > maxBytes) {
        failed = true;
        req.resume();
        reject(tooLarge(`over ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => {
      if (!failed) reject(new IngestError(400, 'request_aborted', `the request body could not be read: ${err.message}`));
      failed = true;
    });
    req.on('end', () => {
      if (failed) return;
      const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
      if (!gzipped) return resolve(body);
      gunzip(body, { maxOutputLength: maxBytes }, (err, inflated) => {
        if (!err) return resolve(inflated);
        if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') reject(tooLarge(`over ${maxBytes} bytes once inflated`));
        else reject(new IngestError(400, 'invalid_gzip', `Content-Encoding is gzip but the body could not be inflated: ${err.message}`));
      });
    });
  });
}
