/**
 * Signing in a real Chromium against a real `hookbench serve` and real receivers: choosing
 * Standard Webhooks in the destination editor (checked by the reference library at the receiver,
 * and by the detail's check of both schemes), and the signature doctor finding a body that a
 * Python receiver parsed and wrote out again.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { Receiver } from '../src-main/engine/testing/receiver';
import { standardWebhooksSecret } from '../src-shared/signing';
import { oneReceiverConfig, screenshotPath, startWorkbench, type Workbench } from './support/workbench';

const SECRET = 'e2e-signing-secret';
const WRITE_KEY = 'wk_signing';

let receiver: Receiver | null = null;
let wb: Workbench | null = null;
/** What the reference library said about each request, in order. */
const verdicts: string[] = [];

before(async () => {
  receiver = await new Receiver().start();
  // A Standard Webhooks receiver: it answers 200 only when the reference library verifies the request.
  receiver.respond((req, res) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    try {
      new Webhook(standardWebhooksSecret(SECRET)).verify(req.body.toString('utf8'), headers);
      verdicts.push('verified');
      res.writeHead(200).end('ok');
    } catch (err) {
      verdicts.push(err instanceof Error ? err.message : String(err));
      res.writeHead(401).end('bad signature');
    }
  });
  wb = await startWorkbench({ name: 'signing', config: oneReceiverConfig(receiver.url, { writeKey: WRITE_KEY, sharedSecret: SECRET }) });
});

after(async () => {
  await wb?.close();
  await receiver?.close();
});

test('Standard Webhooks chosen in the editor: the whsec_ secret shown, the reference library accepts the delivery, the detail checks both', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ view: 'configure', viewport: { width: 1280, height: 1000 }, permissions: ['clipboard-read', 'clipboard-write'] });
  await page.getByTestId('configure-ready').waitFor();
  await page.locator('[data-testid="destination-row"][data-name="Local receiver"]').getByTestId('destination-edit').click();
  assert.equal(await page.getByTestId('destination-signing').inputValue(), 'x-signature');
  assert.equal(await page.getByTestId('destination-whsec-block').count(), 0);
  await page.getByTestId('destination-signing').selectOption('x-signature+standard-webhooks');
  const whsec = page.getByTestId('destination-whsec');
  assert.match((await whsec.textContent()) ?? '', /^whsec_•+$/, 'masked until the secret is revealed');
  await page.getByTestId('destination-secret-reveal').click();
  assert.equal(await whsec.textContent(), standardWebhooksSecret(SECRET));
  await page.getByTestId('destination-whsec-copy').click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), standardWebhooksSecret(SECRET));
  await page.getByTestId('destination-signing-group').screenshot({ path: screenshotPath('signing-editor') });
  await page.getByTestId('destination-save').click();
  await page.getByTestId('destination-saved').waitFor();
  assert.equal((await wb.call('listDestinations'))[0]?.signing, 'x-signature+standard-webhooks');

  assert.equal((await wb.ingest('/v1/track', WRITE_KEY, { userId: 'u-sw', event: 'Signed Twice', properties: { plan: 'pro' } })).status, 200);
  await page.getByTestId('nav-deliveries').click();
  const row = page.getByTestId('delivery-row').filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) });
  await row.waitFor({ timeout: 15_000 });
  assert.deepEqual(verdicts, ['verified'], 'the reference library verified the real delivery');
  const got = receiver.received[0]!;
  assert.equal(got.headers['x-signature'], createHmac('sha1', SECRET).update(got.body).digest('hex'), 'X-Signature still goes beside it');

  await row.click();
  const detail = page.getByTestId('delivery-detail');
  await detail.getByTestId('signature-parts').waitFor();
  assert.equal(await detail.getByTestId('signature-check').getAttribute('data-state'), 'valid');
  assert.equal(await detail.getByTestId('signature-part-x-signature').getAttribute('data-state'), 'valid');
  assert.equal(await detail.getByTestId('signature-part-standard-webhooks').getAttribute('data-state'), 'valid');
  assert.equal(await detail.getByTestId('header-webhook-id').locator('td').textContent(), got.headers['webhook-id']);
  assert.equal(await detail.getByTestId('header-webhook-signature').locator('td').textContent(), got.headers['webhook-signature']);
  await detail.getByTestId('signature-check').screenshot({ path: screenshotPath('signing-detail-check') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('the doctor finds a body a Python receiver re-serialised, and names a base64 signature; the snippets fill in the secret only on request', async () => {
  assert.ok(wb && receiver);
  const { page, problems } = await wb.openPage({ view: 'deliveries', viewport: { width: 1280, height: 1300 } });
  assert.equal((await wb.ingest('/v1/track', WRITE_KEY, { userId: 'u-doc', event: 'Café Ordered', properties: { item: 'crème brûlée', url: 'https://shop.test/a' } })).status, 200);
  const row = page.getByTestId('delivery-row').filter({ hasText: 'Café Ordered' }).filter({ has: page.getByTestId('delivery-status').filter({ hasText: 'succeeded' }) });
  await row.waitFor({ timeout: 15_000 });
  const sent = receiver.received[receiver.received.length - 1]!.body;
  // What a Python receiver signs when it calls json.dumps(request.json): run by Python itself.
  const pythonBody = execFileSync('python3', ['-c', 'import json,sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.buffer.read())))'], { input: sent }).toString('utf8');
  assert.notEqual(pythonBody, sent.toString('utf8'));

  await row.click();
  const doctor = page.getByTestId('delivery-detail').getByTestId('doctor');
  await doctor.getByTestId('doctor-input').fill(pythonBody);
  await doctor.getByTestId('doctor-run').click();
  const report = doctor.getByTestId('doctor-report');
  await report.waitFor();
  assert.equal(await report.getAttribute('data-verdict'), 'differs');
  assert.equal(await report.getAttribute('data-read'), 'body');
  assert.match((await doctor.getByTestId('doctor-summary').textContent()) ?? '', /re-serialised body/);
  await doctor.getByTestId('doctor-finding-whitespace').waitFor();
  await doctor.getByTestId('doctor-finding-unicode_escapes').waitFor();
  assert.match((await doctor.getByTestId('doctor-finding-unicode_escapes').textContent()) ?? '', /\$\.properties\.item.*"crème brûlée".*"cr\\u00e8me br\\u00fbl\\u00e9e"/);
  await doctor.screenshot({ path: screenshotPath('doctor-light') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await doctor.screenshot({ path: screenshotPath('doctor-dark') });
  await page.emulateMedia({ colorScheme: 'light' });

  await doctor.getByTestId('doctor-input').fill(createHmac('sha1', SECRET).update(sent).digest('base64'));
  await doctor.getByTestId('doctor-run').click();
  await doctor.getByTestId('doctor-finding-encoding').waitFor();
  assert.equal(await doctor.getByTestId('doctor-report').getAttribute('data-read'), 'signature');

  // Edit & replay sends the edited text as typed (pretty-printed here): the JSON.stringify(req.body) of
  // Segment's documented check is then other bytes, and the doctor says so.
  const before = receiver.received.length;
  await page.getByTestId('replay-edit').click();
  await page.getByTestId('replay-edited-send').click();
  await receiver.waitFor(before + 1);
  // The receiver can have the replay before its answer reaches the page; the panel then moves to the
  // replay and starts a fresh doctor, so what is pasted goes in only once it has.
  await page.getByTestId('delivery-detail').getByTestId('replay-of').waitFor();
  const replayed = receiver.received[receiver.received.length - 1]!.body.toString('utf8');
  assert.match(replayed, /\n {2}"version": 1/, 'the edited body went out pretty-printed, as typed');
  await doctor.getByTestId('doctor-input').fill(JSON.stringify(JSON.parse(replayed)));
  await doctor.getByTestId('doctor-run').click();
  await doctor.getByTestId('doctor-finding-json_stringify').waitFor();
  assert.match((await doctor.getByTestId('doctor-finding-json_stringify').textContent()) ?? '', /Segment's documented example/);
  await doctor.screenshot({ path: screenshotPath('doctor-segment-example') });

  const snippets = page.getByTestId('delivery-detail').getByTestId('verify-snippets');
  assert.match((await snippets.getByTestId('snippet-code').textContent()) ?? '', /process\.env\.WEBHOOK_SECRET/);
  assert.ok(!((await snippets.getByTestId('snippet-code').textContent()) ?? '').includes(SECRET), 'no secret until asked');
  await snippets.getByTestId('snippet-tab-python').click();
  await snippets.getByTestId('snippet-reveal').click();
  await snippets.getByTestId('snippet-code').filter({ hasText: `SECRET = '${SECRET}'` }).waitFor();
  await snippets.screenshot({ path: screenshotPath('doctor-snippets') });
  assert.deepEqual(problems, []);
  await page.close();
});
