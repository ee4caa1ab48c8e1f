import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { ApiResponse, InboundMessageView, InboundRequest, PageResult } from '../../src-shared/api';
import { waitUntil } from '../engine/testing/wait';
import { startServe, type ServeProcess } from './testing/process';
import { CHROMIUM, CHROMIUM_ARGS } from '../../e2e/support/build';
import { classicSnippet } from '../../src-renderer/views/configure/client-snippets';

/**
 * Segment's browser SDK, unchanged, in a real Chromium, against a real `hookbench serve`: once as
 * an app built from npm would load it (the package's own browser build, `AnalyticsBrowser.load`
 * with `cdnURL`), once through Segment's classic snippet with only its host changed. The pages
 * come from a server on another origin (localhost:B, Hookbench is 127.0.0.1:A), so every call is
 * cross-origin and, carrying an Authorization header, preflighted: CORS is really exercised. A
 * receiver verifies each webhook's X-Signature with node:crypto.
 */

const WRITE_KEY = 'wk_web_browser';
const SECRET = 'whsec-browser-' + Math.random().toString(36).slice(2);
const TOKEN = 'browser-sdk-test-token-0123456789';
const pkgDir = dirname(createRequire(import.meta.url).resolve('@segment/analytics-next/package.json'));

// Segment's documented snippet (5.2.0), with only the CDN host changed (HOOKBENCH is replaced by the test).
const SNIPPET = `!function(){var i="analytics",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error("Segment snippet included twice.");else{analytics.invoked=!0;analytics.methods=["trackSubmit","trackClick","trackLink","trackForm","pageview","identify","reset","group","track","ready","alias","debug","page","screen","once","off","on","addSourceMiddleware","addIntegrationMiddleware","setAnonymousId","addDestinationMiddleware","register"];analytics.factory=function(e){return function(){if(window[i].initialized)return window[i][e].apply(window[i],arguments);var n=Array.prototype.slice.call(arguments);if(["track","screen","alias","group","page","identify"].indexOf(e)>-1){var c=document.querySelector("link[rel='canonical']");n.push({__t:"bpc",c:c&&c.getAttribute("href")||void 0,p:location.pathname,u:location.href,s:location.search,t:document.title,r:document.referrer})}n.unshift(e);analytics.push(n);return analytics}};for(var n=0;n<analytics.methods.length;n++){var key=analytics.methods[n];analytics[key]=analytics.factory(key)}analytics.load=function(key,n){var t=document.createElement("script");t.type="text/javascript";t.async=!0;t.setAttribute("data-global-segment-analytics-key",i);t.src="HOOKBENCH/analytics.js/v1/" + key + "/analytics.min.js";var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r);analytics._loadOptions=n};analytics._writeKey="WRITE_KEY";;analytics.SNIPPET_VERSION="5.2.0";
analytics.load("WRITE_KEY");
analytics.page();
}}();`;

interface Verified {
  body: Record<string, unknown>;
}

let serve: ServeProcess;
let browser: Browser;
let receiver: Server;
let pages: Server;
let pagesOrigin: string;
let dir: string;
const verified: Verified[] = [];
let rejected = 0;

function listen(server: Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

function page(title: string, head: string, script: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">${head}</head><body><h1>${title}</h1><a id="buy" href="#buy">Buy</a><script>${script}</script></body></html>`;
}

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}`);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(createHmac('sha1', SECRET).update(raw).digest('hex'));
      const given = Buffer.from(String(req.headers['x-signature'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        rejected++;
        res.writeHead(401).end('bad signature');
        return;
      }
      verified.push({ body: JSON.parse(raw.toString('utf8')) as Record<string, unknown> });
      res.end('ok');
    });
  });
  const receiverPort = await listen(receiver);
  dir = mkdtempSync(join(tmpdir(), 'hookbench-browser-sdk-'));
  const config = join(dir, 'hookbench.json');
  writeFileSync(
    config,
    JSON.stringify({
      sources: [{ name: 'web', writeKey: WRITE_KEY }],
      destinations: [
        { name: 'Receiver', enabled: true, sources: ['web'], sharedSecret: SECRET, webhooks: [{ url: `http://127.0.0.1:${receiverPort}/segment` }] },
      ],
    }),
  );
  serve = await startServe(['--config', config, '--data-dir', join(dir, 'data'), '--port', '0'], { env: { HOOKBENCH_TOKEN: TOKEN } });

  const umd = join(pkgDir, 'dist/umd/index.js');
  pages = createServer((req, res) => {
    const hookbench = serve.url;
    const html: Record<string, string> = {
      '/npm.html': page(
        'Pricing from npm',
        '<script src="/analytics-next.js"></script>',
        `window.result = AnalyticsNext.AnalyticsBrowser.load({ writeKey: ${JSON.stringify(WRITE_KEY)}, cdnURL: ${JSON.stringify(hookbench)} })
          .then(async ([analytics]) => {
            await analytics.page('Docs', 'Pricing', { plan: 'pro' });
            await analytics.identify('npm-user', { email: 'ada@example.com' });
            await analytics.track('Order Completed', { total: 42 });
            return 'sent';
          })
          .catch((e) => 'failed: ' + e.message);`,
      ),
      '/npm-batching.html': page(
        'Pricing, batched',
        '<script src="/analytics-next.js"></script>',
        `window.result = AnalyticsNext.AnalyticsBrowser.load(
            { writeKey: ${JSON.stringify(WRITE_KEY)}, cdnURL: ${JSON.stringify(hookbench)} },
            { integrations: { 'Segment.io': { deliveryStrategy: { strategy: 'batching', config: { size: 3, timeout: 500 } } } } },
          )
          .then(async ([analytics]) => {
            await Promise.all([analytics.page(), analytics.identify('batch-user'), analytics.track('Order Completed', { total: 3 })]);
            return 'sent';
          })
          .catch((e) => 'failed: ' + e.message);`,
      ),
      '/npm-unknown.html': page(
        'Unknown key from npm',
        '<script src="/analytics-next.js"></script>',
        `window.result = AnalyticsNext.AnalyticsBrowser.load({ writeKey: 'wk_nobody', cdnURL: ${JSON.stringify(hookbench)} })
          .then(() => 'loaded').catch((e) => 'failed: ' + e.message);`,
      ),
      '/snippet.html': page(
        'Pricing with the snippet',
        '',
        SNIPPET.replace('HOOKBENCH', hookbench).replaceAll('WRITE_KEY', WRITE_KEY) +
          `\nanalytics.identify('snippet-user', { email: 'grace@example.com' });\nanalytics.track('Order Completed', { total: 7 });` +
          // trackLink lives in a chunk analytics.js loads on first use: from Hookbench too.
          `\nanalytics.trackLink(document.getElementById('buy'), 'Clicked Buy');`,
      ),
    };
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/analytics-next.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(umd));
      return;
    }
    const body = html[path];
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  // Another origin than Hookbench's: another name and another port.
  pagesOrigin = `http://localhost:${await listen(pages)}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

after(async () => {
  await browser?.close();
  if (serve) {
    serve.child.kill('SIGINT');
    await serve.exited;
  }
  for (const server of [receiver, pages]) {
    if (!server) continue;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function control<T>(method: string, params?: unknown): Promise<T> {
  const res = await fetch(`${serve.url}/api/call`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ method, params }),
  });
  const answer = (await res.json()) as ApiResponse<T>;
  assert.ok(answer.ok, JSON.stringify(answer));
  return answer.result;
}

/** Opens a page in a fresh context (its own cookies and storage), recording every URL it requests. */
async function open(path: string): Promise<{ page: Page; requested: string[]; console: string[]; userAgent: string; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const p = await context.newPage();
  const requested: string[] = [];
  const consoleLines: string[] = [];
  p.on('request', (r) => requested.push(r.url()));
  p.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  p.on('pageerror', (e) => consoleLines.push(`pageerror: ${e.message}`));
  const userAgent = await p.evaluate(() => navigator.userAgent);
  await p.goto(`${pagesOrigin}${path}`);
  return { page: p, requested, console: consoleLines, userAgent, close: () => context.close() };
}

/** The page, identify and track a browser sent as userId, as the receiver verified them. */
async function receivedFor(userId: string): Promise<Record<string, Record<string, unknown>>> {
  await waitUntil(
    () => {
      const bodies = verified.map((v) => v.body);
      const identify = bodies.find((b) => b.type === 'identify' && b.userId === userId);
      const track = bodies.find((b) => b.type === 'track' && b.userId === userId);
      return identify !== undefined && track !== undefined;
    },
    `identify and track of ${userId} at the receiver`,
    20_000,
  );
  const bodies = verified.map((v) => v.body);
  const identify = bodies.find((b) => b.type === 'identify' && b.userId === userId) as Record<string, unknown>;
  const anonymousId = identify.anonymousId;
  const pageCall = bodies.find((b) => b.type === 'page' && b.anonymousId === anonymousId);
  assert.ok(pageCall, `the page call of ${userId}'s browser (anonymousId ${String(anonymousId)}) reached the receiver`);
  return { page: pageCall, identify, track: bodies.find((b) => b.type === 'track' && b.userId === userId) as Record<string, unknown> };
}

/** Each call as the Inbound view lists it: the request (path, status, user agent) and its stored message. */
async function inboundOf(anonymousId: string): Promise<{ request: InboundRequest; message: Record<string, unknown> }[]> {
  const requests = await control<PageResult<InboundRequest>>('listRequests', { limit: 200 });
  const found: { request: InboundRequest; message: Record<string, unknown> }[] = [];
  for (const request of requests.items) {
    if (request.httpStatus !== 200 || request.errorCode !== null) continue;
    const messages = await control<InboundMessageView[]>('messagesOf', request.id);
    for (const m of messages) {
      const message = JSON.parse(m.json) as Record<string, unknown>;
      if (message.anonymousId === anonymousId) found.push({ request, message });
    }
  }
  return found;
}

function assertOnlyLocal(requested: string[]): void {
  const foreign = requested.filter((u) => !u.startsWith(pagesOrigin) && !u.startsWith(serve.url));
  assert.deepEqual(foreign, [], 'the page fetched nothing from Segment or anywhere but the page server and Hookbench');
}

async function checkBrowserCalls(userId: string, pagePath: string, userAgent: string, expectedPaths: string[]): Promise<void> {
  const calls = await receivedFor(userId);
  assert.equal(rejected, 0, 'every webhook signature verified');
  const pageCall = calls.page as Record<string, unknown>;
  const context = pageCall.context as Record<string, unknown>;
  assert.equal((context.page as Record<string, unknown>).url, `${pagesOrigin}${pagePath}`);
  assert.equal((context.page as Record<string, unknown>).path, pagePath);
  assert.equal(context.userAgent, userAgent);
  assert.equal((calls.track as Record<string, unknown>).event, 'Order Completed');

  const anonymousId = String(pageCall.anonymousId);
  const rows = await inboundOf(anonymousId);
  assert.deepEqual(rows.map((r) => r.message.type).sort(), ['identify', 'page', 'track']);
  assert.deepEqual(rows.map((r) => r.request.path).sort(), expectedPaths);
  for (const { request, message } of rows) {
    assert.equal(request.userAgent, userAgent, 'Inbound shows the browser as the caller');
    const page = (message.context as Record<string, unknown>).page as Record<string, unknown>;
    assert.equal(page.url, `${pagesOrigin}${pagePath}`, 'Inbound shows the page each call came from');
  }
}

test('@segment/analytics-next from npm, on another origin: settings from Hookbench, page, identify and track delivered signed', async () => {
  const opened = await open('/npm.html');
  try {
    const result = await opened.page.waitForFunction(() => (window as unknown as { result?: Promise<string> }).result);
    assert.equal(await result.jsonValue(), 'sent', opened.console.join('\n'));
    await checkBrowserCalls('npm-user', '/npm.html', opened.userAgent, ['/v1/i', '/v1/p', '/v1/t']);
    assert.ok(opened.requested.includes(`${serve.url}/v1/projects/${WRITE_KEY}/settings`), 'settings came from Hookbench');
    assertOnlyLocal(opened.requested);
  } finally {
    await opened.close();
  }
});

test("Segment's classic snippet with only its host changed: bundle, chunks and settings from Hookbench, calls delivered signed", async () => {
  // The snippet Configure shows is this very text.
  assert.equal(classicSnippet(serve.url, WRITE_KEY) + '\n', SNIPPET.replace('HOOKBENCH', serve.url).replaceAll('WRITE_KEY', WRITE_KEY) + '\n');
  const opened = await open('/snippet.html');
  try {
    await checkBrowserCalls('snippet-user', '/snippet.html', opened.userAgent, ['/v1/i', '/v1/p', '/v1/t']);
    assert.ok(opened.requested.includes(`${serve.url}/analytics.js/v1/${WRITE_KEY}/analytics.min.js`), 'the bundle came from Hookbench');
    await waitUntil(() => opened.requested.some((u) => u.startsWith(`${serve.url}/analytics-next/bundles/auto-track.`)), 'the auto-track chunk loaded from Hookbench');
    await opened.page.waitForFunction(() => (window as unknown as { analytics: { initialized?: boolean } }).analytics.initialized === true);
    assert.ok(opened.requested.includes(`${serve.url}/v1/projects/${WRITE_KEY}/settings`), 'settings came from Hookbench');
    assertOnlyLocal(opened.requested);
    assert.deepEqual(opened.console.filter((l) => l.startsWith('error') || l.startsWith('pageerror')), []);
  } finally {
    await opened.close();
  }
});

test('analytics-next with its batching delivery strategy: one request to /v1/b with the three calls', async () => {
  const opened = await open('/npm-batching.html');
  try {
    const result = await opened.page.waitForFunction(() => (window as unknown as { result?: Promise<string> }).result);
    assert.equal(await result.jsonValue(), 'sent', opened.console.join('\n'));
    const calls = await receivedFor('batch-user');
    const rows = await inboundOf(String(calls.identify?.anonymousId));
    assert.deepEqual(rows.map((r) => r.message.type).sort(), ['identify', 'page', 'track']);
    assert.deepEqual([...new Set(rows.map((r) => `${r.request.path} ${r.request.accepted}`))], ['/v1/b 3'], 'one batch request');
    assertOnlyLocal(opened.requested);
  } finally {
    await opened.close();
  }
});

test('an unknown write key: load() fails as with Segment (404 settings) and Inbound shows the refused settings request', async () => {
  const opened = await open('/npm-unknown.html');
  try {
    const result = await opened.page.waitForFunction(() => (window as unknown as { result?: Promise<string> }).result);
    assert.match(String(await result.jsonValue()), /^failed: .*wk_nobody.*belongs to no source/);
    const requests = await control<PageResult<InboundRequest>>('listRequests', { limit: 200 });
    const refused = requests.items.find((r) => r.path === '/v1/projects/wk_nobody/settings');
    assert.ok(refused, 'the settings request is listed in Inbound');
    assert.equal(refused.httpStatus, 404);
    assert.equal(refused.errorCode, 'unknown_write_key');
    assert.equal(refused.userAgent, opened.userAgent);
  } finally {
    await opened.close();
  }
});
