/**
 * Where the desktop app finds its parts, without electron (main.ts passes app's facts in).
 * scripts/rebuild-electron-sqlite.mjs writes the binding; electron-builder.yml ships it as an extra
 * resource. Those three name the same place.
 */
import { join } from 'node:path';

export const ELECTRON_SQLITE_DIR = 'electron-sqlite';
export const ELECTRON_SQLITE_FILE = 'better_sqlite3.node';
export const DEFAULT_INGEST_PORT = 4545;

export interface AppFacts {
  isPackaged: boolean;
  /** process.resourcesPath: the folder beside app.asar in an installed app. */
  resourcesPath: string;
  /** app.getAppPath(): the project root when run with `electron .`. */
  appPath: string;
  env: Record<string, string | undefined>;
}

/**
 * better_sqlite3.node built for Electron's ABI. The Node build in node_modules stays untouched for
 * the tests and headless mode; HOOKBENCH_SQLITE_BINDING overrides both places.
 */
export function electronSqliteBinding(facts: AppFacts): string {
  const override = facts.env.HOOKBENCH_SQLITE_BINDING;
  if (override) return override;
  return facts.isPackaged
    ? join(facts.resourcesPath, ELECTRON_SQLITE_DIR, ELECTRON_SQLITE_FILE)
    : join(facts.appPath, 'build', ELECTRON_SQLITE_DIR, ELECTRON_SQLITE_FILE);
}

/** The port the Tracking API asks for first (HOOKBENCH_INGEST_PORT, else 4545; 0 means any free port). */
export function preferredIngestPort(env: Record<string, string | undefined>): number {
  const raw = env.HOOKBENCH_INGEST_PORT;
  if (raw === undefined || raw === '') return DEFAULT_INGEST_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`HOOKBENCH_INGEST_PORT must be a port number from 0 to 65535, not "${raw}"`);
  }
  return port;
}
