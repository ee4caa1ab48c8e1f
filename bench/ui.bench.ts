/**
 * The Deliveries view under load, in Debian's Chromium against a real
 * `hookbench serve` whose log holds 100,000 deliveries (seeded through the store's own write paths).
 *
 *   open    time from navigation to the first rows painted; baselines: the same app on an empty
 *           log (its empty state painted), and a static HTML table of the same first 100 rows.
 *   scroll  50 wheel steps of 800 px down the list (older pages load on the way): rAF intervals
 *           and long tasks; baseline: the same wheel steps over a static HTML table of the same rows.
 *   live    500 new deliveries/s for 10 s through /v1/batch to a local receiver, the list at the
 *           top following the live tail: rAF intervals and long tasks; baseline: the same page,
 *           idle, for the same 10 s just before.
 *
 * Targets: opens in under 1 s with 100,000 deliveries; the main thread stays responsive at 500/s
 * (no long task, frames near 16.7 ms). Chromium, serve, the load generator and the receiver share
 * this machine's cores, so the figures include their contention.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DeliverySummary, PageResult } from '../src-shared/api';
import { createEngine } from '../src-main/engine';
import { parseConfig } from '../src-main/engine/config';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';
import { buildUi, CHROMIUM, CHROMIUM_ARGS } from '../e2e/support/build';
import { fmt, percentile, RECEIVER_WORKER, runWorker } from './support/load';
import { seedDeliveries } from './support/seed';

const SEEDED = Number(process.env.BENCH_DELIVERIES ?? 100_000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const OPENS = 5;
const WHEEL_STEPS = 50;
const WHEEL_PX = 800;
const TOKEN = 'bench-ui-token-0123456789';
const WRITE_KEY = 'wk_bench_ui';

/** Installed before any page script: long tasks, rAF timestamps, and the first paint of the list. */
const INSTRUMENT = `(() => {
  const perf = { longTasks: [], frames: [], recording: false, readyAt: null };
  window.__perf = perf;
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) perf.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch {}
  const loop = (t) => {
    if (perf.recording) perf.frames.push(t);
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  const READY = '[data-testid="delivery-row"], [data-testid="empty-state"], [data-testid="static-row"]';
  const check = () => {
    if (perf.readyAt !== null || !document.querySelector(READY)) return false;
    perf.readyAt = -1;
    // The frame after the commit: the rows are on screen.
    requestAnimationFrame(() => requestAnimationFrame((t) => (perf.readyAt = t)));
    return true;
  };
  document.addEventListener('DOMContentLoaded', () => {
    if (check()) return;
    const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
    mo.observe(document.body, { childList: true, subtree: true });
  });
})();`;

interface Window {
  frames: number[];
  longTasks: [number, number][];
}

async function readyAt(page: Page): Promise<number> {
  await page.waitForFunction(() => {
    const at = (window as unknown as { __perf: { readyAt: number | null } }).__perf.readyAt;
    return at !== null && at > 0;
  }, undefined, { timeout: 30_000 });
  return page.evaluate(() => (window as unknown as { __perf: { readyAt: number } }).__perf.readyAt);
}

/** Records frames and long tasks while `during` runs. */
async function measure(page: Page, during: () => Promise<void>): Promise<Window> {
  const start = await page.evaluate(() => {
    const perf = (window as unknown as { __perf: { frames: number[]; recording: boolean } }).__perf;
    perf.frames = [];
    perf.recording = true;
    return performance.now();
  });
  await during();
  return page.evaluate((from) => {
    const perf = (window as unknown as { __perf: { frames: number[]; recording: boolean; longTasks: [number, number][] } }).__perf;
    perf.recording = false;
    return { frames: perf.frames, longTasks: perf.longTasks.filter(([t]) => t >= from) };
  }, start);
}

function frameStats(w: Window): { median: number; p95: number; max: number; longTasks: number; longMs: number; longMax: number; frames: number } {
  const gaps = w.frames.slice(1).map((t, i) => t - (w.frames[i] as number)).sort((a, b) => a - b);
  return {
    median: percentile(gaps, 50),
    p95: percentile(gaps, 95),
    max: gaps.at(-1) ?? NaN,
    frames: w.frames.length,
    longTasks: w.longTasks.length,
    longMs: w.longTasks.reduce((n, [, d]) => n + d, 0),
    longMax: w.longTasks.reduce((n, [, d]) => Math.max(n, d), 0),
  };
}

const line = (label: string, s: ReturnType<typeof frameStats>): string =>
  `${label}: frame gap median ${fmt(s.median, 1)} ms, p95 ${fmt(s.p95, 1)} ms, max ${fmt(s.max, 1)} ms; long tasks ${s.longTasks} (total ${fmt(s.longMs)} ms, longest ${fmt(s.longMax)} ms)`;

/** A plain table of the same rows: what a browser does with no app at all. */
function staticHtml(rows: DeliverySummary[]): string {
  const cell = (v: unknown): string => `<td>${String(v ?? '—').replace(/[<&]/g, (c) => (c === '<' ? '&lt;' : '&amp;'))}</td>`;
  const body = rows
    .map((r) => `<tr data-testid="static-row">${[r.status, r.type, r.userId ?? r.anonymousId, r.event, r.entries, r.rounds, r.lastHttpStatus, r.latencyMs, r.createdAt].map(cell).join('')}</tr>`)
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><style>
    html,body{margin:0;height:100%;font:13px system-ui} #s{height:100vh;overflow:auto} table{border-collapse:collapse;width:100%}
    td{padding:0 8px;height:33px;border-bottom:1px solid #ddd;white-space:nowrap}</style></head>
    <body><div id="s"><table><tbody>${body}</tbody></table></div></body></html>`;
}

async function wheel(page: Page): Promise<void> {
  await page.mouse.move(400, 500);
  for (let i = 0; i < WHEEL_STEPS; i++) {
    await page.mouse.wheel(0, WHEEL_PX);
    // One frame per step, as a hand on a wheel gives the page time to paint between notches.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
}

async function startServeOn(dataDir: string, config: string, uiDir: string): Promise<ServeProcess> {
  return startServe(['--port', '0', '--data-dir', dataDir, '--config', config], { env: { HOOKBENCH_TOKEN: TOKEN, HOOKBENCH_UI_DIR: uiDir } });
}

async function stopServe(s: ServeProcess | null): Promise<void> {
  if (!s) return;
  s.child.kill('SIGINT');
  await s.exited;
}

/** Posts RATE messages per second (batches every 100 ms) for SECONDS, then reports how many were acknowledged. */
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, rate, seconds, auth } = workerData;
const perTick = Math.round(rate / 10);
const ticks = seconds * 10;
let acked = 0, failures = 0, inflight = 0, seq = 0, tick = 0;
const start = performance.now();
function fire() {
  const batch = [];
  for (let k = 0; k < perTick; k++) batch.push({ type: 'track', userId: 'live-' + (seq % 100), event: 'Live Event', messageId: 'ui-live-' + seq++ });
  inflight++;
  fetch(url + '/v1/batch', { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) })
    .then(async (res) => { await res.text(); if (res.status === 200) acked += batch.length; else failures++; })
    .catch(() => failures++)
    .finally(() => inflight--);
}
function loop() {
  if (tick >= ticks) {
    const wait = () => (inflight > 0 ? setTimeout(wait, 5) : parentPort.postMessage({ acked, failures }));
    return wait();
  }
  tick++;
  fire();
  setTimeout(loop, Math.max(0, start + tick * 100 - performance.now()));
}
loop();
`;

const root = mkdtempSync(join(tmpdir(), 'hookbench-bench-ui-'));
const receiver = runWorker<{ port: number }>(RECEIVER_WORKER, { record: false });
let serve: ServeProcess | null = null;
let emptyServe: ServeProcess | null = null;
let browser: Browser | null = null;
try {
  const uiDir = buildUi();
  const { port } = await receiver.result;
  const hook = `http://127.0.0.1:${port}/hook`;
  const config = { sources: [{ name: 'bench', writeKey: WRITE_KEY }], destinations: [{ name: 'Receiver', enabled: true, sources: ['bench'], sharedSecret: 's3cret', webhooks: [{ url: hook }] }] };
  const configPath = join(root, 'hookbench.json');
  writeFileSync(configPath, JSON.stringify(config));

  const seedStart = performance.now();
  const engine = createEngine({ dataDir: join(root, 'data') });
  engine.applyConfig(parseConfig(config));
  const source = engine.stores.config.listSources()[0]!;
  const destination = engine.stores.config.listDestinations()[0]!;
  seedDeliveries(engine.stores.log, SEEDED, { sourceId: source.id, destinationId: destination.id, url: hook, now: Date.now() - 60_000, batch: 2000 });
  await engine.stop();
  const seedMs = performance.now() - seedStart;

  serve = await startServeOn(join(root, 'data'), configPath, uiDir);
  emptyServe = await startServeOn(join(root, 'empty'), configPath, uiDir);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await context.addInitScript(INSTRUMENT);

  // The same rows for the static baselines, read through the same API the page uses.
  const firstRows: DeliverySummary[] = [];
  for (let beforeId: number | null = null; firstRows.length < 1_500; ) {
    const res: Response = await fetch(`${serve.url}/api/call`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'listDeliveries', params: { limit: 500, ...(beforeId ? { beforeId } : {}) } }),
    });
    const answer = (await res.json()) as { result: PageResult<DeliverySummary> };
    firstRows.push(...answer.result.items);
    if (answer.result.nextBeforeId === null) break;
    beforeId = answer.result.nextBeforeId;
  }
  writeFileSync(join(root, 'static-100.html'), staticHtml(firstRows.slice(0, 100)));
  writeFileSync(join(root, 'static-rows.html'), staticHtml(firstRows));

  // open
  const open = async (url: string): Promise<number> => {
    const page = await context.newPage();
    await page.goto(url);
    const at = await readyAt(page);
    await page.close();
    return at;
  };
  const median = async (url: string): Promise<number[]> => {
    await open(url); // warm: the first load compiles the bundle; the user's second visit is the typical one
    const times: number[] = [];
    for (let i = 0; i < OPENS; i++) times.push(await open(url));
    return times.sort((a, b) => a - b);
  };
  const full = await median(`${serve.url}/?token=${TOKEN}`);
  const empty = await median(`${emptyServe.url}/?token=${TOKEN}`);
  const raw = await median(`file://${join(root, 'static-100.html')}`);

  // scroll
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${serve.url}/?token=${TOKEN}`);
  await readyAt(page);
  await page.locator('[data-testid="connection-state"][data-state="connected"]').waitFor();
  const scroll = frameStats(await measure(page, () => wheel(page)));
  const afterScroll = await page.evaluate(() => ({
    inDom: document.querySelectorAll('[data-testid="delivery-row"]').length,
    loaded: Number(document.querySelector('[role="grid"]')?.getAttribute('aria-rowcount') ?? 0),
  }));
  const staticPage = await context.newPage();
  await staticPage.goto(`file://${join(root, 'static-rows.html')}`);
  await readyAt(staticPage);
  const scrollRaw = frameStats(await measure(staticPage, () => wheel(staticPage)));
  await staticPage.close();

  // live: back to the top, following the tail
  await page.evaluate(() => {
    const grid = document.querySelector('[role="grid"]');
    if (grid) grid.scrollTop = 0;
  });
  const idle = frameStats(await measure(page, () => new Promise((r) => setTimeout(r, SECONDS * 1000))));
  const before = Number(await page.getByTestId('deliveries-count').getAttribute('data-total'));
  const auth = `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}`;
  let sent = { acked: 0, failures: 0 };
  const live = frameStats(
    await measure(page, async () => {
      sent = await runWorker<{ acked: number; failures: number }>(LOAD, { url: serve!.url, rate: RATE, seconds: SECONDS, auth }).result;
    }),
  );
  // The list caught up: the last message is on screen and the count includes every one.
  const expected = before + sent.acked;
  const caughtUpFrom = Date.now();
  await page.locator(`[data-testid="deliveries-count"][data-total="${expected}"]`).waitFor({ timeout: 30_000 });
  const caughtUpMs = Date.now() - caughtUpFrom;
  const liveDom = await page.evaluate(() => ({
    inDom: document.querySelectorAll('[data-testid="delivery-row"]').length,
    loaded: Number(document.querySelector('[role="grid"]')?.getAttribute('aria-rowcount') ?? 0),
    top: document.querySelector('[data-testid="delivery-row"] [data-testid="delivery-user"]')?.textContent ?? '',
  }));
  await page.close();

  const p50 = (xs: number[]): number => percentile(xs, 50);
  console.log(`ui  Deliveries view in Chromium, ${fmt(SEEDED)} deliveries seeded in ${fmt(seedMs / 1000, 1)} s`);
  console.log(`  open (navigation → first rows painted), median of ${OPENS} after one warm-up:`);
  console.log(`    ${fmt(SEEDED)} deliveries        : ${fmt(p50(full))} ms  (runs ${full.map((t) => fmt(t)).join(', ')} ms)   goal < 1,000 ms`);
  console.log(`    empty log, same app (baseline): ${fmt(p50(empty))} ms   → ratio ${fmt(p50(full) / p50(empty), 2)}×`);
  console.log(`    static HTML, same 100 rows    : ${fmt(p50(raw))} ms   → ratio ${fmt(p50(full) / p50(raw), 2)}×`);
  console.log(`  scroll (${WHEEL_STEPS} wheel steps of ${WHEEL_PX} px; ${fmt(afterScroll.loaded)} rows loaded by then, ${afterScroll.inDom} in the DOM):`);
  console.log(`    ${line('Hookbench list                ', scroll)}`);
  console.log(`    ${line(`static table of ${fmt(firstRows.length)} rows    `, scrollRaw)}`);
  console.log(`    ratio of p95 frame gaps        : ${fmt(scroll.p95 / scrollRaw.p95, 2)}×`);
  console.log(`  live (${fmt(RATE)} deliveries/s for ${SECONDS} s: ${fmt(sent.acked)} acknowledged, ${sent.failures} failed requests; list caught up ${fmt(caughtUpMs)} ms after the last batch):`);
  console.log(`    ${line('during the load               ', live)}`);
  console.log(`    ${line('same page idle (baseline)     ', idle)}`);
  console.log(`    ratio of p95 frame gaps        : ${fmt(live.p95 / idle.p95, 2)}×; rows loaded ${fmt(liveDom.loaded)}, in the DOM ${liveDom.inDom}, top row ${liveDom.top}`);
  if (problems.length > 0) console.log(`  page errors: ${problems.join('; ')}`);
} catch (err) {
  console.error(`ui bench failed: ${(err as Error).stack}\nserve said: ${serve?.stderr() ?? ''}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  await stopServe(serve);
  await stopServe(emptyServe);
  await receiver.worker.terminate();
  rmSync(root, { recursive: true, force: true });
}
