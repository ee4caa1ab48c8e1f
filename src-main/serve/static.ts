/**
 * The built renderer (out/renderer/, made by `npm run build`) served from headless mode: GET/HEAD of
 * `/` and `/assets/*` only, never outside the root, 404 for everything else.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

export const DEFAULT_UI_DIR = new URL('../../out/renderer/', import.meta.url).pathname;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hookbench</title></head>
<body><h1>Hookbench</h1><p>The UI is not built yet. Run <code>npm run build</code>, then reload this page.</p>
<p>The Tracking API (<code>/v1/*</code>) and the control API (<code>/api/*</code>) work without it.</p></body></html>`;

/** True when this request is for the UI (so the server should answer it here). */
export function isUiPath(url: string): boolean {
  const path = url.split('?')[0] ?? '/';
  return path === '/' || path === '/index.html' || path.startsWith('/assets/');
}

/**
 * Maps a URL path to a file under root, or null when it is not a UI file or would leave root
 * (`..`, encoded slashes or backslashes, NUL). Pure, so each refusal is a table row.
 */
export function resolveUiFile(root: string, url: string): string | null {
  const raw = url.split('?')[0] ?? '/';
  if (raw === '/' || raw === '/index.html') return join(resolve(root), 'index.html');
  if (!raw.startsWith('/assets/')) return null;
  let path: string;
  try {
    path = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.includes('\\')) return null;
  const segments = path.split('/').slice(1);
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return null;
  const base = resolve(root);
  const file = resolve(base, ...segments);
  if (!file.startsWith(base + sep + 'assets' + sep)) return null;
  return file;
}

function notFound(res: ServerResponse, url: string): void {
  const text = `${url} is not a Hookbench UI file`;
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function serveUi(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    res.end('use GET');
    return;
  }
  const file = resolveUiFile(root, url);
  if (!file) return notFound(res, url);
  const isIndex = file === join(resolve(root), 'index.html');
  let body: Buffer;
  try {
    const info = await stat(file);
    if (!info.isFile()) return notFound(res, url);
    body = await readFile(file);
  } catch {
    if (!isIndex) return notFound(res, url);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(NOT_BUILT) });
    res.end(req.method === 'HEAD' ? undefined : NOT_BUILT);
    return;
  }
  res.writeHead(200, {
    'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': body.length,
    'x-content-type-options': 'nosniff',
    // Hashed asset names may be cached; the page itself must not be.
    'cache-control': isIndex ? 'no-store' : 'public, max-age=31536000, immutable',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
