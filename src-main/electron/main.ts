// The only place that imports electron (ARCHITECTURE.md: rooms), and only its edges: every decision it makes
// (who may call, the window's switches, the CSP, where the binding lives, how secrets are sealed)
// lives in a plain module beside it that Node tests cover.
import { app, BrowserWindow, dialog, ipcMain, safeStorage, session, shell, type WebContents } from 'electron';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine, type Engine } from '../engine';
import { createEngineApi } from '../engine/api';
import { listen, type RunningServer } from '../serve/server';
import type { LiveEvent } from '../../src-shared/api';
import { CALL_CHANNEL, LIVE_CHANNEL } from './channels';
import { listenPreferring } from './ingest-port';
import { guardedCalls, isOwnRenderer, type RendererLocation } from './ipc-guard';
import { electronSqliteBinding, preferredIngestPort } from './paths';
import { secretStorageFrom } from './secret-sealer';
import { CONTENT_SECURITY_POLICY, devContentSecurityPolicy, externalUrl, permissionGranted, windowOptions, withContentSecurityPolicy } from './security';

const here = import.meta.dirname;
const indexFile = join(here, '../renderer/index.html');

// One folder whatever the launch (`electron .` names the app after package.json, an installed app
// after productName), so data survives moving from a checkout to the installed app.
// HOOKBENCH_USER_DATA gives tests a folder (and so a single-instance lock) of their own.
app.setPath('userData', process.env.HOOKBENCH_USER_DATA || join(app.getPath('appData'), 'Hookbench'));

function rendererLocation(): RendererLocation {
  const dev = process.env.ELECTRON_RENDERER_URL;
  return !app.isPackaged && dev ? { kind: 'dev', url: dev } : { kind: 'file', indexUrl: pathToFileURL(indexFile).href };
}

interface Running {
  engine: Engine;
  server: RunningServer;
}

let running: Running | null = null;
let window: BrowserWindow | null = null;

function send(event: LiveEvent): void {
  if (window && !window.isDestroyed()) window.webContents.send(LIVE_CHANNEL, event);
}

async function startEngine(renderer: RendererLocation): Promise<{ running: Running; fellBack: string | null }> {
  const nativeBinding = electronSqliteBinding({
    isPackaged: app.isPackaged,
    resourcesPath: process.resourcesPath,
    appPath: app.getAppPath(),
    env: process.env,
  });
  if (!existsSync(nativeBinding)) {
    throw new Error(
      `better-sqlite3 built for Electron is missing (${nativeBinding}). Run \`npm run rebuild:electron-sqlite\` once (it downloads Electron's headers), then start again.`,
    );
  }
  // After whenReady: before it, safeStorage cannot tell which Linux keychain backend it uses.
  const secrets = secretStorageFrom(safeStorage);
  const engine = createEngine({
    dataDir: app.getPath('userData'),
    nativeBinding,
    secrets: secrets.sealer,
    secretsAtRest: secrets.atRest,
    // Built beside this file from engine/reads/worker.ts (electron.vite.config.ts).
    readWorkerEntry: join(here, 'read-worker.js'),
    readWorkerAtStart: true,
    warmUpAtStart: true,
  });
  try {
    engine.start();
    const bound = await listenPreferring((port) => listen(engine, '127.0.0.1', port, { receiversTlsPort: 0 }), preferredIngestPort(process.env));
    const server = bound.value;
    const api = createEngineApi(engine, { onConfig: (what) => send({ type: 'config', what }), ingestUrl: () => server.url });
    engine.onLive(send);
    const call = guardedCalls(api, renderer);
    ipcMain.handle(CALL_CHANNEL, (event, request: unknown) => call(event.senderFrame?.url, request));
    return { running: { engine, server }, fellBack: bound.fellBack };
  } catch (err) {
    await engine.stop();
    throw err;
  }
}

/** No navigation away, no new windows, no webviews; http(s) links go to the system browser. */
function lockDown(contents: WebContents, renderer: RendererLocation): void {
  const openOutside = (url: string): void => {
    const safe = externalUrl(url);
    if (safe) void shell.openExternal(safe);
  };
  contents.setWindowOpenHandler(({ url }) => {
    openOutside(url);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    if (isOwnRenderer(event.url, renderer)) return;
    event.preventDefault();
    openOutside(event.url);
  });
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && !isOwnRenderer(event.url, renderer)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isOwnRenderer(event.url, renderer)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

function lockDownSession(renderer: RendererLocation): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((contents, permission, callback, details) =>
    callback(permissionGranted(permission, details.requestingUrl ?? contents.getURL(), renderer)),
  );
  ses.setPermissionCheckHandler((contents, permission, _origin, details) =>
    permissionGranted(permission, details.requestingUrl ?? contents?.getURL(), renderer),
  );
  ses.setDevicePermissionHandler(() => false);
  // The built renderer carries the policy in a meta tag; pages from the dev server get it as a header too.
  const policy = renderer.kind === 'dev' ? devContentSecurityPolicy(renderer.url) : CONTENT_SECURITY_POLICY;
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders, policy) });
  });
}

async function openWindow(renderer: RendererLocation, title: string): Promise<void> {
  const win = new BrowserWindow({ ...windowOptions(join(here, '../preload/preload.cjs')), title });
  window = win;
  lockDown(win.webContents, renderer);
  // The title says where the Tracking API listens, so it stays in sight whatever page is shown.
  win.on('page-title-updated', (event) => event.preventDefault());
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (window === win) window = null;
  });
  if (renderer.kind === 'dev') await win.loadURL(renderer.url);
  else await win.loadFile(indexFile);
}

function focusWindow(): void {
  if (!window || window.isDestroyed()) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

let stopping: Promise<void> | null = null;
function stopAll(): Promise<void> {
  stopping ??= (async () => {
    ipcMain.removeHandler(CALL_CHANNEL);
    const current = running;
    running = null;
    if (!current) return;
    send({ type: 'stopped' });
    // Server first, so no new request reaches an engine that is closing its database. A round
    // still waiting on a webhook after a second is resumed as interrupted at the next start.
    await current.server.close();
    await current.engine.stop({ roundsWaitMs: 1_000 });
  })();
  return stopping;
}

async function main(): Promise<void> {
  await app.whenReady();
  const renderer = rendererLocation();
  lockDownSession(renderer);
  try {
    const started = await startEngine(renderer);
    running = started.running;
    const where = started.running.server.url;
    const note = started.fellBack ? ` (${started.fellBack})` : '';
    console.log(`hookbench: Tracking API on ${where}${note}; data in ${app.getPath('userData')}`);
    await openWindow(renderer, `Hookbench — Tracking API on ${where}${note}`);
  } catch (err) {
    dialog.showErrorBox('Hookbench could not start', err instanceof Error ? err.message : String(err));
    await stopAll();
    app.exit(1);
  }
}

if (!app.requestSingleInstanceLock()) {
  // Another Hookbench owns the data folder; it is told (second-instance) and shows its window.
  app.quit();
} else {
  app.on('second-instance', focusWindow);
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (event) => {
    if (running === null && stopping !== null) return;
    event.preventDefault();
    void stopAll().finally(() => app.quit());
  });
  void main();
}
