import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { copyAnalyticsNext } from './scripts/copy-analytics-next.mjs';

/** The browser SDK's bundles go next to out/main/ (out/analytics-next/): the packaged app has no dev dependencies. */
function analyticsNextBundles(): Plugin {
  let outDir = '';
  return {
    name: 'hookbench-analytics-next-bundles',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      copyAnalyticsNext(resolve(outDir, '..', 'analytics-next'));
    },
  };
}

// Main and preload are bundled for Node/Electron; better-sqlite3 stays external (a native addon,
// loaded with a build for Electron's ABI through the engine's nativeBinding option).
export default defineConfig({
  main: {
    plugins: [analyticsNextBundles()],
    build: {
      // The read worker is a thread of its own (engine/reads/worker.ts): its own entry, out/main/read-worker.js.
      lib: { entry: { main: resolve(__dirname, 'src-main/electron/main.ts'), 'read-worker': resolve(__dirname, 'src-main/engine/reads/worker.ts') } },
      rollupOptions: { external: ['better-sqlite3', 'electron'] },
    },
  },
  preload: {
    build: {
      lib: { entry: resolve(__dirname, 'src-main/electron/preload.ts') },
      // A sandboxed preload cannot be an ES module.
      rollupOptions: { external: ['electron'], output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    // electron-vite leaves bundles unminified; the renderer is also served to browsers, and a
    // quarter of the bytes to parse is a faster first paint of a 100,000-row log.
    build: { minify: true, rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') } },
  },
});
