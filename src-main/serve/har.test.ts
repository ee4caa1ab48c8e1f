import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startHarness, configWith } from '../engine/testing/harness';
import { Receiver } from '../engine/testing/receiver';
import { waitUntil } from '../engine/testing/wait';
import { harTimings, type HarEntry } from '../engine/export/har';

const require = createRequire(import.meta.url);
/** Resolves with the document when it is valid HAR 1.2; rejects with the schema's errors otherwise. */
const harValidator = require('har-validator') as { har(data: unknown): Promise<unknown> };

test('harTimings: measured phases in HAR terms, connect including TLS, -1 when not measured', () => {
  assert.deepEqual(harTimings({ dnsMs: 1, connectMs: 2, tlsMs: 3, firstByteMs: 10, totalMs: 12 }), { blocked: -1, dns: 1, connect: 5, ssl: 3, send: 0, wait: 4, receive: 2 });
  assert.deepEqual(harTimings({ totalMs: 7 }), { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 7, receive: 0 });
  // Waiting for a free connection is HAR's `blocked`; the wait for the answer comes after it and the connection's phases.
  assert.deepEqual(harTimings({ queuedMs: 20, connectMs: 2, firstByteMs: 10, totalMs: 11 }), { blocked: 20, dns: -1, connect: 2, ssl: -1, send: 0, wait: 8, receive: 1 });
  assert.deepEqual(harTimings(null), { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: 0 });
});

test('the HAR export has one entry per attempt, with request, response and timings, and validates against HAR 1.2', async () => {
  const receiver = await new Receiver().start();
  receiver.respond((req, res) => {
    const failing = req.body.toString('utf8').includes('"Fails"');
    res.writeHead(failing ? 500 : 200, { 'content-type': 'text/plain' }).end(failing ? 'boom' : 'ok');
  });
  // Two URLs: the second refuses connections, so its attempts have no response at all.
  const h = await startHarness(configWith([receiver.url, 'http://127.0.0.1:9/closed']));
  try {
    await h.post('/v1/batch', { batch: [{ type: 'track', event: 'Works', userId: 'u' }, { type: 'track', event: 'Fails', userId: 'u' }] });
    await waitUntil(() => {
      const c = h.engine.stores.log.countDeliveriesByStatus();
      return c.pending === undefined && c.in_flight === undefined;
    }, 'both deliveries to finish their first round');
    const res = await fetch(`${h.server.url}/api/export?format=har`, { headers: { authorization: `Bearer ${h.server.token}` } });
    assert.equal(res.status, 200);
    const har = (await res.json()) as { log: { version: string; entries: HarEntry[] } };
    await assert.doesNotReject(harValidator.har(har));
    // The validator does check entries: one without its timings is refused.
    await assert.rejects(harValidator.har({ log: { ...har.log, entries: [{ ...har.log.entries[0], timings: undefined }] } }));
    assert.equal(har.log.version, '1.2');
    assert.equal(har.log.entries.length, 4);
    const [works, worksClosed, fails] = har.log.entries;
    assert.equal(works?.request.url, receiver.url);
    assert.equal(works?.request.method, 'POST');
    assert.ok(works?.request.headers.some((x) => x.name.toLowerCase() === 'x-signature'));
    assert.equal((JSON.parse(works?.request.postData.text ?? '{}') as { event: string }).event, 'Works');
    assert.equal(works?.response.status, 200);
    assert.equal(works?.response.content.text, 'ok');
    assert.ok((works?.time ?? 0) > 0);
    assert.equal(worksClosed?.response.status, 0, 'no answer: status 0');
    assert.match(worksClosed?.comment ?? '', /ECONNREFUSED|refused/i);
    assert.equal(fails?.response.status, 500);
    assert.equal(fails?.response.content.text, 'boom');

    const filtered = (await (await fetch(`${h.server.url}/api/export?format=har&event=Fails`, { headers: { authorization: `Bearer ${h.server.token}` } })).json()) as {
      log: { entries: HarEntry[] };
    };
    assert.equal(filtered.log.entries.length, 2);
  } finally {
    await h.close();
    await receiver.close();
  }
});
