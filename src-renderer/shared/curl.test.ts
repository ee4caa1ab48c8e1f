import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { Receiver } from '../../src-main/engine/testing/receiver';
import { curlCommand, shellQuote } from './curl';
import { configWith, startHarness } from '../../src-main/engine/testing/harness';
import { waitUntil } from '../../src-main/engine/testing/wait';
import { createEngineApi } from '../../src-main/engine/api';

test('shellQuote keeps quotes, newlines and unicode intact through a real shell', () => {
  const tricky = `it's "quoted" \\ $HOME \`x\`\nline2 ☕`;
  const out = spawnSync('bash', ['-c', `printf %s ${shellQuote(tricky)}`], { encoding: 'utf8' });
  assert.equal(out.stdout, tricky);
});

test('the copied cURL command reproduces the delivery byte for byte, headers included', async () => {
  const receiver = await new Receiver().start('/hook?x=1');
  try {
    const body = `{"version":1,"type":"track","event":"Café 'quoted'","properties":{"note":"a\\nb"}}`;
    const headers = { 'Content-Type': 'application/json', 'User-Agent': 'Segment.io/1.0', 'X-Signature': 'abc123', 'X-Env': "it's dev" };
    const cmd = curlCommand({ url: receiver.url, headers, body });
    // Asynchronous on purpose: a synchronous spawn would block the receiver in this same process.
    await promisify(execFile)('bash', ['-c', `${cmd} --silent --show-error --max-time 10`]);
    await receiver.waitFor(1);
    const got = receiver.received[0]!;
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/hook?x=1');
    assert.equal(got.body.toString('utf8'), body);
    assert.equal(got.headers['x-signature'], 'abc123');
    assert.equal(got.headers['user-agent'], 'Segment.io/1.0');
    assert.equal(got.headers['x-env'], "it's dev");
    assert.equal(got.headers.accept, undefined, 'curl\'s own Accept header is removed, as the engine sends none');
  } finally {
    await receiver.close();
  }
});

test('an attempt’s wire headers as cURL: the receiver gets the same header lines and body bytes as from the engine', async () => {
  const receiver = await new Receiver().start('/hook');
  const config = configWith(receiver.url);
  config.destinations[0]!.webhooks = [{ url: receiver.url, headers: { 'X-Team': "it's alpha", Authorization: 'Bearer t0k' } }];
  const h = await startHarness(config);
  try {
    // Past 1,024 bytes, where older curl versions would add Expect: 100-continue.
    const note = 'x'.repeat(3000);
    await h.post('/v1/track', { userId: 'u', event: 'Café ☕', messageId: 'curl-1', properties: { note } });
    await receiver.waitFor(1);
    const id = h.engine.stores.log.listDeliveries({ limit: 1 })[0]!.id;
    await waitUntil(() => h.engine.stores.log.getDelivery(id)?.status === 'succeeded', 'the delivery');
    const detail = (await createEngineApi(h.engine).getDelivery(id))!;
    const attempt = detail.attempts[0]!;
    assert.ok(attempt.sentHeaders, 'the attempt kept its wire headers');
    const cmd = curlCommand({ url: attempt.url, headers: attempt.sentHeaders, body: detail.body! });
    await promisify(execFile)('bash', ['-c', `${cmd} --silent --show-error --max-time 10`]);
    await receiver.waitFor(2);
    const [fromEngine, fromCurl] = receiver.received;
    assert.deepEqual(fromCurl!.body, fromEngine!.body, 'the same body bytes');
    assert.deepEqual(fromCurl!.headers, fromEngine!.headers, 'the same headers, no more, no fewer');
  } finally {
    await h.close();
    await receiver.close();
  }
});
