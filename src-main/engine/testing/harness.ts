import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ManualClock, type Clock } from '../clock';
import { createEngine, type Engine, type EngineOptions } from '../index';
import type { HookbenchConfig } from '../config';
import { listen, type ListenOptions, type RunningServer } from '../../serve/server';
import { LogInspector } from '../store/inspect';

export interface Harness {
  engine: Engine;
  server: RunningServer;
  dataDir: string;
  clock: Clock;
  /** A second connection on the engine's log (opened on first use), for reading what it committed. */
  readonly inspect: LogInspector;
  /** POSTs JSON to the ingest and returns status and parsed body. */
  post(path: string, body: unknown, init?: PostInit): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export interface PostInit {
  writeKey?: string | null;
  /** Basic auth value without the colon (some clients omit it). */
  noColon?: boolean;
  gzip?: boolean;
  contentType?: string;
  raw?: Buffer | string;
}

export const WRITE_KEY = 'wk_test';

export function configWith(url: string | string[], extra: Partial<HookbenchConfig['destinations'][number]> = {}): HookbenchConfig {
  const urls = Array.isArray(url) ? url : [url];
  return {
    sources: [{ name: 'backend', writeKey: WRITE_KEY }],
    destinations: [
      {
        name: 'Local receiver',
        enabled: true,
        sources: ['backend'],
        sharedSecret: 's3cret',
        webhooks: urls.map((u) => ({ url: u, headers: {} })),
        ...extra,
      },
    ],
  };
}

/** A real engine on a temp data dir behind a real HTTP server on 127.0.0.1. */
export async function startHarness(
  config: HookbenchConfig,
  options: Partial<EngineOptions> & { clock?: Clock; dataDir?: string; listen?: ListenOptions } = {},
): Promise<Harness> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hookbench-test-'));
  const clock = options.clock ?? new ManualClock(Date.UTC(2026, 10, 22, 12));
  const { listen: listenOptions, ...engineOptions } = options;
  const engine = createEngine({ random: () => 0.5, ...engineOptions, dataDir, clock });
  engine.applyConfig(config);
  engine.start();
  const server = await listen(engine, '127.0.0.1', 0, listenOptions);
  let inspector: LogInspector | null = null;
  return {
    engine,
    server,
    dataDir,
    clock,
    get inspect() {
      inspector ??= LogInspector.of(dataDir);
      return inspector;
    },
    async post(path, body, init = {}) {
      const headers: Record<string, string> = { 'content-type': init.contentType ?? 'application/json' };
      const key = init.writeKey === undefined ? WRITE_KEY : init.writeKey;
      if (key !== null) headers.authorization = `Basic ${Buffer.from(init.noColon ? key : `${key}:`).toString('base64')}`;
      let payload: Buffer = init.raw !== undefined ? Buffer.from(init.raw) : Buffer.from(JSON.stringify(body));
      if (init.gzip) {
        payload = gzipSync(payload);
        headers['content-encoding'] = 'gzip';
      }
      const res = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: new Uint8Array(payload) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    async close() {
      inspector?.close();
      await server.close();
      await engine.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
