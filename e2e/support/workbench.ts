/**
 * One e2e test file's workbench: a freshly built UI served by a real `hookbench serve` child on
 * loopback, in a data dir of its own, and a real headless Chromium to open pages on it. Every e2e
 * file starts one in before() and closes it in after(), so the setup and teardown live here once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import type { ApiMethod, ApiParams, ApiResponse, ApiResult } from '../../src-shared/api';
import type { DestinationInput } from '../../src-shared/settings';
import type { HookbenchConfig } from '../../src-main/engine/config';
import { startServe, type ServeProcess } from '../../src-main/serve/testing/process';
import { buildUi, CHROMIUM, CHROMIUM_ARGS } from './build';

const root = new URL('../../', import.meta.url).pathname;

/** A `--config` file as a person writes it: a webhook's headers may be left out. */
export interface ConfigFile {
  sources: HookbenchConfig['sources'];
  destinations: (Omit<DestinationInput, 'webhooks'> & { webhooks: { url: string; headers?: Record<string, string> }[] })[];
  delivery?: HookbenchConfig['delivery'];
  receivers?: HookbenchConfig['receivers'];
}

/** The usual config: one source "backend" and one enabled, signed destination "Local receiver" sending to url. */
export function oneReceiverConfig(url: string, o: { writeKey: string; sharedSecret: string }): ConfigFile {
  return {
    sources: [{ name: 'backend', writeKey: o.writeKey }],
    destinations: [{ name: 'Local receiver', enabled: true, sources: ['backend'], sharedSecret: o.sharedSecret, webhooks: [{ url }] }],
  };
}

export interface WorkbenchOptions {
  /** Names the temp data dir, so a leftover one says which file made it. */
  name: string;
  /** Written to a file and given to serve as --config; without it the engine starts empty. */
  config?: ConfigFile;
}

export interface OpenPageOptions {
  /** The view in the URL's hash (`#/compose`); without it the app opens on its default view. */
  view?: string;
  viewport: { width: number; height: number };
  /** Granted to the page's context, e.g. clipboard-read for a copy button. */
  permissions?: BrowserContextOptions['permissions'];
  /** Console errors count as problems unless false (page errors always do). */
  consoleErrors?: boolean;
  /** Console errors that are the test's point, not a problem (e.g. a refused call's 400). */
  expectedConsole?: RegExp;
  /** Wait for the live connection before returning (default); false returns right after loading. */
  waitConnected?: boolean;
}

export interface OpenedPage {
  page: Page;
  /** Page errors (and console errors, unless turned off) seen so far; a test asserts it empty at its end. */
  problems: string[];
}

/** An ingest route, called with a write key as the Segment libraries do. */
export type IngestPath = '/v1/track' | '/v1/batch';

export interface Workbench {
  serve: ServeProcess;
  browser: Browser;
  /** serve's base URL, e.g. http://127.0.0.1:40123. */
  url: string;
  token: string;
  dir: string;
  /** The built UI this workbench serves, for a test that starts a serve of its own. */
  uiDir: string;
  /** The engine's own answer over the control API the page uses, to check the page against; asserts it is ok. */
  call<M extends ApiMethod>(method: M, params?: ApiParams<M>): Promise<ApiResult<M>>;
  /** The raw control API answer, for calls the engine is meant to refuse. */
  callRaw(method: string, params?: unknown): Promise<Response>;
  /** POSTs a JSON body to an ingest route with the write key as Basic auth. */
  ingest(path: IngestPath, writeKey: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  openPage(options: OpenPageOptions): Promise<OpenedPage>;
  /** Closes the browser, stops serve (and waits for it to exit) and removes the data dir. */
  close(): Promise<void>;
}

/** Waits until the page's live connection to the engine is up. */
export async function waitConnected(page: Page): Promise<void> {
  await page.locator('[data-testid="connection-state"][data-state="connected"]').waitFor();
}

/** Where a screenshot of this name goes (e2e/screenshots/NAME.png); the folder is made on demand. */
export function screenshotPath(name: string): string {
  const folder = join(root, 'e2e/screenshots');
  mkdirSync(folder, { recursive: true });
  return join(folder, `${name}.png`);
}

export async function startWorkbench(options: WorkbenchOptions): Promise<Workbench> {
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM}: install it (apt-get install chromium) or set HOOKBENCH_CHROMIUM`);
  // Always build: a stale out/renderer/ would test old code.
  const uiDir = buildUi();
  const token = randomBytes(24).toString('base64url');
  const dir = mkdtempSync(join(tmpdir(), `hookbench-e2e-${options.name}-`));
  let serve: ServeProcess | null = null;
  let browser: Browser | null = null;
  const stop = async (): Promise<void> => {
    await browser?.close();
    if (serve) {
      serve.child.kill('SIGINT');
      await serve.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const args = ['--port', '0', '--data-dir', join(dir, 'data')];
    if (options.config) {
      const file = join(dir, 'hookbench.json');
      writeFileSync(file, JSON.stringify(options.config));
      args.push('--config', file);
    }
    serve = await startServe(args, { env: { HOOKBENCH_TOKEN: token, HOOKBENCH_UI_DIR: uiDir } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  } catch (err) {
    await stop();
    throw err;
  }
  const started = { serve, browser };
  const url = serve.url;

  const callRaw = (method: string, params?: unknown): Promise<Response> =>
    fetch(`${url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method, params }),
    });

  return {
    ...started,
    url,
    token,
    dir,
    uiDir,
    callRaw,
    async call<M extends ApiMethod>(method: M, params?: ApiParams<M>): Promise<ApiResult<M>> {
      const answer = (await (await callRaw(method, params)).json()) as ApiResponse<ApiResult<M>>;
      assert.ok(answer.ok, JSON.stringify(answer));
      return answer.result;
    },
    ingest(path, writeKey, body, headers = {}) {
      return fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    },
    async openPage(o) {
      const page = await started.browser.newPage({ viewport: o.viewport, ...(o.permissions ? { permissions: o.permissions } : {}) });
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
      if (o.consoleErrors !== false) {
        page.on('console', (msg) => {
          if (msg.type() === 'error' && !o.expectedConsole?.test(msg.text())) problems.push(`console: ${msg.text()}`);
        });
      }
      await page.goto(`${url}/?token=${token}${o.view ? `#/${o.view}` : ''}`);
      if (o.waitConnected !== false) await waitConnected(page);
      return { page, problems };
    },
    close: stop,
  };
}
