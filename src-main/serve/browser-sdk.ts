/**
 * What a web page needs to use Hookbench as its Segment: CORS on the Tracking API, and the
 * analytics.js bundle with its chunks at the paths the classic snippet loads them from. The bundle
 * is the installed @segment/analytics-next's own, never fetched from the network.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A Tracking API path, the settings of a write key, the snippet's bundle, or one of its chunks. */
export type SdkRoute =
  | { kind: 'settings'; writeKey: string }
  | { kind: 'bundle'; writeKey: string }
  | { kind: 'chunk'; file: string };

const BUNDLE_PATH = /^\/analytics\.js\/v1\/([^/]+)\/analytics(?:\.min)?\.js$/;
// Webpack's chunk names: letters, digits, dots, dashes and underscores, ending in .js; never a path.
const CHUNK_PATH = /^\/analytics-next\/bundles\/([A-Za-z0-9_-][A-Za-z0-9._-]*\.js)$/;
const SETTINGS_PATH = /^\/v1\/projects\/([^/]+)\/settings\/?$/;

function decoded(part: string): string | null {
  try {
    const value = decodeURIComponent(part);
    return value === '' || /[\0/\\]/.test(value) ? null : value;
  } catch {
    return null;
  }
}

/** Which browser-SDK resource a URL asks for, or null. Pure, so each path is a table row. */
export function sdkRouteOf(url: string): SdkRoute | null {
  const path = (url.split('?')[0] ?? '').replace(/^\/+/, '/');
  const settings = SETTINGS_PATH.exec(path);
  if (settings) {
    const writeKey = decoded(settings[1] as string);
    return writeKey === null ? null : { kind: 'settings', writeKey };
  }
  const bundle = BUNDLE_PATH.exec(path);
  if (bundle) {
    const writeKey = decoded(bundle[1] as string);
    return writeKey === null ? null : { kind: 'bundle', writeKey };
  }
  const chunk = CHUNK_PATH.exec(path);
  if (chunk && !chunk[1]?.includes('..')) return { kind: 'chunk', file: chunk[1] as string };
  return null;
}

// An origin as browsers serialize it (`null` for file: pages and sandboxed frames); anything else is not echoed.
const ORIGIN = /^(null|[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+)$/i;
const HEADER_LIST = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+(\s*,\s*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*$/;
/** What analytics.js sends (Authorization makes its calls need a preflight) and what a gzipping client adds. */
const DEFAULT_ALLOWED_HEADERS = 'Authorization, Content-Type, Content-Encoding, X-Retry-Count';

/**
 * Headers that let the calling page read the answer. Any origin may: pages under development live
 * on any host and port, and what a page can do here it could do blindly without CORS (post a
 * text/plain body with a write key in it). No credentials are allowed, so cookies never come along.
 */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined || !ORIGIN.test(origin)) return {};
  return {
    'access-control-allow-origin': origin,
    // Retry-After is not a CORS-safelisted response header: analytics.js reads it on a 429 or 503.
    'access-control-expose-headers': 'Retry-After',
    vary: 'Origin',
  };
}

/** The answer to a preflight (OPTIONS): the methods of the route and the headers the page asked for. */
export function preflightHeaders(origin: string | undefined, requestedHeaders: string | undefined, methods: string): Record<string, string> {
  const allowed = requestedHeaders !== undefined && HEADER_LIST.test(requestedHeaders.trim()) ? requestedHeaders.trim() : DEFAULT_ALLOWED_HEADERS;
  return {
    ...corsHeaders(origin),
    'access-control-allow-methods': methods,
    'access-control-allow-headers': allowed,
    'access-control-max-age': '600',
    vary: 'Origin, Access-Control-Request-Headers',
  };
}

/** Answers a preflight with 204 and no body. */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, methods: string): void {
  const requested = req.headers['access-control-request-headers'];
  res.writeHead(204, preflightHeaders(req.headers.origin, typeof requested === 'string' ? requested : undefined, methods));
  res.end();
  req.resume();
}

/** The Host header when it is a plain `host[:port]` (the Host check has already judged it), else the fallback. */
export function apiHostOf(host: string | undefined, fallback: string): string {
  return host !== undefined && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? host : fallback;
}

/** The installed package's bundle folder; throws when the package is not installed. */
function installedBundles(): string {
  return join(dirname(createRequire(import.meta.url).resolve('@segment/analytics-next/package.json')), 'dist/umd');
}

/** Where the build copies the bundles: out/analytics-next/, beside out/main/ (and beside src-main/ in a checkout). */
export const COPIED_BUNDLES_DIR = new URL('../../out/analytics-next/', import.meta.url).pathname;

/**
 * The folder holding analytics-next's browser bundles: the installed package (a checkout), else the
 * copy the build puts next to out/main/ (the packaged app, which leaves dev dependencies out).
 * null when neither has the bundle.
 */
export function analyticsNextDir(installed: () => string = installedBundles, copied: string = COPIED_BUNDLES_DIR): string | null {
  try {
    const dir = installed();
    if (existsSync(join(dir, 'standalone.js'))) return dir;
  } catch {
    // Not installed: the packaged app.
  }
  return existsSync(join(copied, 'standalone.js')) ? copied : null;
}

/**
 * Set before the bundle runs: analytics.js finds its CDN from the script's URL only when it is
 * https, so on plain http it would fall back to Segment's. Telling it the origin the script came
 * from makes it fetch settings and chunks from Hookbench, as a page's own `analytics._cdn` would.
 */
const CDN_PREAMBLE =
  '(function(){try{var s=document.currentScript;if(!s||!s.src)return;' +
  "var k=s.getAttribute('data-global-segment-analytics-key')||'analytics';var a=window[k];" +
  'if(a&&!a._cdn)a._cdn=new URL(s.src).origin}catch(e){}})();\n';

/** A string literal safe inside a script: JSON, with `<` and the line separators escaped. */
function scriptString(value: string): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** The snippet's analytics.min.js for a write key: the standalone bundle with the key embedded, as the CDN serves it. */
export function bundleFor(standalone: string, writeKey: string): string {
  return CDN_PREAMBLE + standalone.replace('"__WRITE_KEY__"', scriptString(writeKey));
}

function sendText(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Serves the bundle or a chunk; 404 with the reason when the package's files are missing. */
export async function serveSdkFile(dir: string | null, route: Extract<SdkRoute, { kind: 'bundle' | 'chunk' }>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const cors = corsHeaders(req.headers.origin);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendText(res, 405, 'text/plain; charset=utf-8', `${req.method ?? 'this method'} is not allowed; use GET`, { ...cors, allow: 'GET, HEAD' });
    return;
  }
  const file = route.kind === 'bundle' ? 'standalone.js' : route.file;
  const path = dir === null ? null : join(dir, file);
  if (path === null || !existsSync(path) || file.endsWith('.map')) {
    const why =
      dir === null
        ? 'the analytics.js bundle is not available: @segment/analytics-next is not installed and the build did not copy it'
        : `${file} is not one of @segment/analytics-next's bundles`;
    sendText(res, 404, 'text/plain; charset=utf-8', why, cors);
    return;
  }
  const text = await readFile(path, 'utf8');
  const body = route.kind === 'bundle' ? bundleFor(text, route.writeKey) : text;
  // Chunk names carry their content hash; the bundle's name does not, so it is revalidated.
  const cache = route.kind === 'chunk' ? 'public, max-age=31536000, immutable' : 'no-cache';
  if (req.method === 'HEAD') {
    res.writeHead(200, { ...cors, 'content-type': 'text/javascript; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': cache });
    res.end();
    return;
  }
  sendText(res, 200, 'text/javascript; charset=utf-8', body, { ...cors, 'cache-control': cache });
}
