/**
 * Export of the whole log from the Deliveries view, in Debian's Chromium against a real
 * `hookbench serve` on a seeded log (a measurement, not one of the `npm run bench` ratios): the
 * page's JavaScript heap as the export runs, every 10 s for SECONDS, against the messages it has
 * read, and the file written (the save picker answered with a file of the page's private file
 * system). A whole 10M log kept as text filled the tab's heap until it crashed at about 4M
 * messages; a Blob of a gigabyte or more is not downloaded by Chromium at all.
 *
 *   node --import tsx bench/ui-export.measure.ts <data folder of a seeded log (a copy)> [seconds, default 60]
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startServe, type ServeProcess } from '../src-main/serve/testing/process';
import { buildUi, CHROMIUM, CHROMIUM_ARGS } from '../e2e/support/build';
import { fmt } from './support/load';
import { scaleConfig } from './support/seed';

const dir = process.argv[2];
const SECONDS = Number(process.argv[3] ?? 60);
if (!dir) throw new Error('usage: ui-export.measure.ts <data folder (a copy)> [seconds]');
const TOKEN = 'bench-export-token-0123456789';
const root = mkdtempSync(join(tmpdir(), 'hookbench-bench-export-'));
let serve: ServeProcess | null = null;
let browser: Browser | null = null;
try {
  const uiDir = buildUi();
  const configPath = join(root, 'hookbench.json');
  // Nothing to send to: the measure reads, it does not deliver.
  writeFileSync(configPath, JSON.stringify(scaleConfig('http://127.0.0.1:9/hook')));
  serve = await startServe(['--port', '0', '--data-dir', dir, '--config', configPath], { env: { HOOKBENCH_TOKEN: TOKEN, HOOKBENCH_UI_DIR: uiDir } });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  const crashed: string[] = [];
  page.on('crash', () => crashed.push('the tab crashed'));
  await page.goto(`${serve.url}/?token=${TOKEN}#/deliveries`);
  await page.getByTestId('delivery-row').first().waitFor({ timeout: 120_000 });
  const cdp = await page.context().newCDPSession(page);
  const heap = async (): Promise<number> => ((await cdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize;
  /** The resident memory of the browser's renderer processes (the page's text lives there too, outside what the heap counts). */
  const rendererRss = (): number => {
    let kib = 0;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
        kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      } catch {
        // gone meanwhile
      }
    }
    return kib * 1024;
  };
  console.log(`export of the whole log as NDJSON from the Deliveries view, ${dir}`);
  console.log(`  before: heap ${fmt((await heap()) / 2 ** 20, 1)} MiB, renderer ${fmt(rendererRss() / 2 ** 20)} MiB resident`);
  await page.getByTestId('export-open').click();
  await page.getByTestId('export-all').check();
  // The save picker answers with a file of the page's private file system, as a user picking a
  // file would (the real File System Access API, its dialog left out).
  await page.evaluate(`window.showSaveFilePicker = async (o) => {
    window.__picked = o.suggestedName;
    return (await navigator.storage.getDirectory()).getFileHandle(o.suggestedName, { create: true });
  }`);
  await page.getByTestId('export-start').click();
  const began = performance.now();
  for (let s = 10; s <= SECONDS && crashed.length === 0; s += 10) {
    await new Promise((r) => setTimeout(r, began + s * 1000 - performance.now()));
    const done = Number(await page.getByTestId('export-run').getAttribute('data-done'));
    const used = await heap();
    console.log(`  after ${s} s: ${fmt(done)} messages read, heap ${fmt(used / 2 ** 20, 1)} MiB, renderer ${fmt(rendererRss() / 2 ** 20)} MiB resident`);
  }
  if (crashed.length > 0) console.log(`  ${crashed.join('; ')}`);
  else if ((await page.getByTestId('export-run').getAttribute('data-state')) === 'running') await page.getByTestId('export-cancel').click();
  else {
    const saved = (await page.evaluate(`(async () => {
      const f = await (await (await navigator.storage.getDirectory()).getFileHandle(window.__picked)).getFile();
      return { name: f.name, bytes: f.size };
    })()`)) as { name: string; bytes: number };
    console.log(`  done within ${fmt((performance.now() - began) / 1000, 1)} s; saved ${saved.name}, ${fmt(saved.bytes / 2 ** 20, 1)} MiB, heap ${fmt((await heap()) / 2 ** 20, 1)} MiB`);
  }
} finally {
  await browser?.close();
  if (serve) {
    serve.child.kill('SIGINT');
    await serve.exited;
  }
  rmSync(root, { recursive: true, force: true });
}
