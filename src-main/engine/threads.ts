/**
 * Starting the engine's own threads (the read worker, the sending thread) from their entry files,
 * whether the engine runs from its TypeScript sources under tsx or from a bundle.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * The entry `entryName` beside the module at `moduleUrl` when that module runs from the TypeScript
 * sources (under tsx); null in a bundle, which names its built entry. (Not
 * `new URL('./x.ts', import.meta.url)`: a bundler would copy that file into the bundle as an asset.)
 */
export function sourceEntryBeside(moduleUrl: string, entryName: string): URL | null {
  if (!moduleUrl.startsWith('file:') || !moduleUrl.endsWith('.ts')) return null;
  const url = new URL(moduleUrl.replace(/[^/]+\.ts$/, entryName));
  return existsSync(fileURLToPath(url)) ? url : null;
}

/**
 * A worker on an entry file. For a .ts entry: Node's workers do not take the parent's module hooks
 * (under Node 20, `--import tsx` in a worker's execArgv still loads its entry before the hooks), so
 * a small script registers tsx in the thread first, then imports the entry.
 */
export function spawnThread(entry: string | URL, workerData: unknown): Worker {
  const href = entry instanceof URL ? entry.href : entry;
  if (!href.endsWith('.ts')) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(href)}); })`;
  return new Worker(boot, { eval: true, workerData, execArgv: [] });
}
