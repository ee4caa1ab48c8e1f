/**
 * The storage banner in a real Chromium against a real `hookbench serve`: while another program
 * holds a lock on the log, every view shows why calls are refused and what to do; once the lock
 * is released the banner goes away by itself and the call sent again is delivered.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Receiver } from '../src-main/engine/testing/receiver';
import { LogInspector } from '../src-main/engine/store/inspect';
import { oneReceiverConfig, screenshotPath, startWorkbench, type Workbench } from './support/workbench';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;

before(async () => {
  receiver = await new Receiver().start();
  wb = await startWorkbench({ name: 'storage', config: oneReceiverConfig(receiver.url, { writeKey: 'wk_storage_e2e', sharedSecret: 's' }) });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

test('a lock held by another program: a banner in every view names the data folder and what to do, and goes away by itself', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ view: 'deliveries', viewport: { width: 1280, height: 800 } });
  const banner = page.getByTestId('storage-banner');
  assert.equal(await banner.count(), 0);

  const dataDir = join(wb.dir, 'data');
  const other = LogInspector.of(dataDir);
  const track = { userId: 'u1', event: 'Locked Out', messageId: 'e2e-locked' };
  try {
    other.exec('BEGIN EXCLUSIVE');
    other.run("INSERT INTO settings (key, value) VALUES ('other.program', 'x')");
    const refused = await wb.ingest('/v1/track', 'wk_storage_e2e', track);
    assert.equal(refused.status, 503);

    await banner.waitFor();
    assert.equal(await banner.getAttribute('data-code'), 'database_locked');
    const text = (await banner.textContent()) ?? '';
    assert.match(text, /another program holds a lock on the log/);
    assert.match(text, /Close the other program using hookbench\.sqlite/);
    assert.ok(text.includes(dataDir), text);
    await page.screenshot({ path: screenshotPath('storage-banner') });

    for (const view of ['inbound', 'compose', 'audiences', 'deletions', 'configure']) {
      await page.getByTestId(`nav-${view}`).click();
      await banner.waitFor();
    }
  } finally {
    other.exec('COMMIT');
    other.close();
  }
  await banner.waitFor({ state: 'detached' });
  assert.equal((await wb.ingest('/v1/track', 'wk_storage_e2e', track)).status, 200);
  await receiver.waitFor(1);
  assert.deepEqual(problems, []);
});
