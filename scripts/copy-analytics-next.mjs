// Copies @segment/analytics-next's browser bundles (the snippet's analytics.min.js and the chunks it
// loads) next to the built main process, into <out>/analytics-next/: the packaged app leaves dev
// dependencies out, and the server reads them from there (src-main/serve/browser-sdk.ts).
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Copies the .js bundles (no source maps, no .gz) into target, replacing what was there; returns their names. */
export function copyAnalyticsNext(target) {
  const pkg = createRequire(import.meta.url).resolve('@segment/analytics-next/package.json');
  const from = join(dirname(pkg), 'dist/umd');
  const files = readdirSync(from).filter((f) => f.endsWith('.js'));
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const f of files) copyFileSync(join(from, f), join(target, f));
  return files;
}
