/**
 * The Inbound view with thousands of calls paged in, under live traffic, in Debian's Chromium
 * against a real `hookbench serve` (a measurement, not one of the `npm run bench` ratios). A log
 * of CALLS one-message calls is seeded through the store; then, while about 10 calls a second (20
 * messages each) arrive, the view's *Load older calls* is clicked PAGED / 100 times, each click
 * timed until its rows are on screen; then the page's frames and long tasks are recorded for 10 s
 * with the list as it is then, and five characters typed into the Path filter
 * are timed until the list shows the filtered rows.
 *
 *   node --import tsx bench/ui-inbound.measure.ts [calls, default 8000] [calls paged back, default 6000]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createEngine } from '../src-main/engine';
import { parseConfig } from '../src-main/engine/config';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';
import { buildUi, CHROMIUM, CHROMIUM_ARGS } from '../e2e/support/build';
import { fmt, percentile, RECEIVER_WORKER, runWorker } from './support/load';
import { seedDeliveries } from './support/seed';

const CALLS = Number(process.argv[2] ?? 8_000);
const PAGED = Number(process.argv[3] ?? 6_000);
const TOKEN = 'bench-inbound-token-0123456789';
const WRITE_KEY = 'wk_bench_inbound';

const root = mkdtempSync(join(tmpdir(), 'hookbench-bench-inbound-'));
const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: false });
let serve: ServeProcess | null = null;
let browser: Browser | null = null;
let traffic: ReturnType<typeof setInterval> | null = null;
try {
  const uiDir = buildUi();
  const { port } = await receiver.result;
  const hook = `http://127.0.0.1:${port}/hook`;
  const config = { sources: [{ name: 'bench', writeKey: WRITE_KEY }], destinations: [{ name: 'Receiver', enabled: true, sources: ['bench'], sharedSecret: 's', webhooks: [{ url: hook }] }] };
  const configPath = join(root, 'hookbench.json');
  writeFileSync(configPath, JSON.stringify(config));
  const engine = createEngine({ dataDir: join(root, 'data') });
  engine.applyConfig(parseConfig(config));
  const source = engine.stores.config.listSources()[0]!;
  const destination = engine.stores.config.listDestinations()[0]!;
  // One message a call: every call is a row of Inbound.
  seedDeliveries(engine.stores.log, CALLS, { sourceId: source.id, destinationId: destination.id, url: hook, now: Date.now() - 60_000, batch: 1 });
  await engine.stop();
  serve = await startServe(['--port', '0', '--data-dir', join(root, 'data'), '--config', configPath], { env: { HOOKBENCH_TOKEN: TOKEN, HOOKBENCH_UI_DIR: uiDir } });
  const ingest = `${serve.url}/v1/batch`;
  const auth = `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`;
  let n = 0;
  traffic = setInterval(() => {
    const batch = Array.from({ length: 20 }, () => ({ type: 'track', event: 'Live', userId: `live-${n % 300}`, messageId: `live-${n++}` }));
    void fetch(ingest, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) }).catch(() => {});
  }, 100);

  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${serve.url}/?token=${TOKEN}#/inbound`);
  await page.getByTestId('inbound-row').first().waitFor();
  const rows = (): Promise<number> => page.getByTestId('inbound-row').count();
  const oldestShown = (): Promise<number> => page.getByTestId('inbound-row').last().evaluate((el) => Number(el.getAttribute('data-id')));
  const clicks: number[] = [];
  // Paged back by PAGED calls: a click each 100, each timed until its older rows are on screen.
  for (let k = 0; k < PAGED / 100; k++) {
    const before = await oldestShown();
    const t = performance.now();
    await page.getByTestId('inbound-load-more').click();
    await page.waitForFunction(
      (b) => {
        const all = document.querySelectorAll('[data-testid="inbound-row"]');
        return Number(all[all.length - 1]?.getAttribute('data-id')) < b;
      },
      before,
      { timeout: 60_000 },
    );
    clicks.push(performance.now() - t);
  }
  const shown = await rows();

  // Frames and long tasks for 10 s with those rows on screen and calls arriving.
  // A string, not a function: tsx would wrap a function's inner functions in a helper the page lacks.
  const { frames, longTasks } = (await page.evaluate(`new Promise((resolve) => {
    const frames = [];
    const longTasks = [];
    const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
    observer.observe({ type: 'longtask' });
    let last = performance.now();
    const end = last + 10000;
    const loop = (t) => {
      frames.push(t - last);
      last = t;
      if (t < end) requestAnimationFrame(loop);
      else { observer.disconnect(); resolve({ frames, longTasks }); }
    };
    requestAnimationFrame(loop);
  })`)) as { frames: number[]; longTasks: number[] };

  // Typing into the Path filter: five keys, then until the list is the filtered one.
  const t = performance.now();
  await page.getByPlaceholder(/path/i).first().pressSequentially('/nope', { delay: 50 });
  await page.getByTestId('inbound-no-match').waitFor({ timeout: 60_000 });
  const typed = performance.now() - t;

  const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
  const c = sorted(clicks);
  const f = sorted(frames);
  console.log(`Inbound paged back ${fmt(PAGED)} calls (${fmt(shown)} rows on screen) (log of ${fmt(CALLS)} one-message calls, about 10 calls/s arriving), Chromium against hookbench serve`);
  console.log(`  Load older calls, ${clicks.length} clicks : first ${fmt(clicks[0] ?? 0)} ms, median ${fmt(percentile(c, 50))} ms, last ${fmt(clicks.at(-1) ?? 0)} ms, max ${fmt(c.at(-1) ?? 0)} ms`);
  console.log(`  frames over 10 s shown           : ${fmt(f.length)} frames, p50 ${percentile(f, 50).toFixed(1)} ms, p99 ${percentile(f, 99).toFixed(1)} ms, max ${(f.at(-1) ?? 0).toFixed(1)} ms; long tasks ${longTasks.length}, ${fmt(longTasks.reduce((a, b) => a + b, 0))} ms in all`);
  console.log(`  typing "/nope" into Path          : ${fmt(typed)} ms until the filtered list (5 keys 50 ms apart, then the debounce)`);
  if (problems.length > 0) console.log(`  page errors: ${problems.join('; ')}`);
} finally {
  if (traffic) clearInterval(traffic);
  await browser?.close();
  if (serve) {
    serve.child.kill('SIGINT');
    await serve.exited;
  }
  await receiver.worker.terminate();
  rmSync(root, { recursive: true, force: true });
}
