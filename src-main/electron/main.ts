// The only place that imports electron (DESIGN.md). Until the UI issue lands, the window shows the
// renderer shell while the engine serves the Tracking API exactly as headless mode does.
import { app, BrowserWindow } from 'electron';
import { join } from 'node:path';
import { createEngine } from '../engine';
import { listen } from '../serve/server';

const engine = createEngine({ dataDir: app.getPath('userData') });

async function open(): Promise<void> {
  engine.start();
  const server = await listen(engine, '127.0.0.1', 4545);
  const window = new BrowserWindow({
    width: 1280,
    height: 800,
    webPreferences: {
      preload: join(import.meta.dirname, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
    },
  });
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  await window.loadFile(join(import.meta.dirname, '../renderer/index.html'), { query: { ingest: server.url } });
}

if (!app.requestSingleInstanceLock()) app.quit();
else {
  void app.whenReady().then(open);
  app.on('window-all-closed', () => {
    void engine.stop().then(() => app.quit());
  });
}
