import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { createEngine, type Engine } from '../index';
import type { Clock } from '../clock';

/**
 * An engine that is not started, on a fresh data folder with source `b` (id 1) and destination `d`
 * (id 1, to a closed port): for tests that drive the stores directly. Stopped and removed after the test.
 */
export function stoppedEngine(t: Pick<TestContext, 'after'>, clock: Clock, folderPrefix: string): { engine: Engine; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), folderPrefix));
  const engine = createEngine({ dataDir: dir, clock });
  t.after(async () => {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  engine.applyConfig({
    sources: [{ name: 'b', writeKey: 'wk_b' }],
    destinations: [{ name: 'd', enabled: true, sources: ['b'], sharedSecret: null, webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }] }],
  });
  return { engine, dir };
}
