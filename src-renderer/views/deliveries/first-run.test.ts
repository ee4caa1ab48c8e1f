import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Destination, Source } from '../../../src-shared/settings';
import { firstCurl, firstRun } from './first-run';

const source: Source = { id: 1, name: 'backend', writeKey: 'wk_backend', createdAt: '2026-01-01T00:00:00.000Z' };
const dest = (over: Partial<Destination> = {}): Destination => ({
  id: 1,
  name: 'Receiver',
  enabled: true,
  sources: ['backend'],
  sharedSecret: null,
  signing: 'x-signature',
  warp: 1,
  webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {}, enabled: true }],
  createdAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

test('first run: no source, then a source without a destination, then one that counts; switched-off ones are named', () => {
  assert.deepEqual(firstRun([], [dest()]), { source: null, destination: null, destinationMissing: null });
  assert.match(firstRun([source], []).destinationMissing ?? '', /No destination is attached to “backend”/);
  assert.match(firstRun([source], [dest({ sources: ['other'] })]).destinationMissing ?? '', /No destination is attached/);
  assert.match(firstRun([source], [dest({ enabled: false })]).destinationMissing ?? '', /are switched off/);
  assert.match(
    firstRun([source], [dest({ webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {}, enabled: false }] })]).destinationMissing ?? '',
    /Every webhook URL/,
  );
  const ready = firstRun([source], [dest({ enabled: false, name: 'Off' }), dest({ id: 2, name: 'On' })]);
  assert.equal(ready.destination?.name, 'On');
  assert.equal(ready.destinationMissing, null);
});

test('the first curl carries the address and the write key', () => {
  const curl = firstCurl('http://127.0.0.1:4545', 'wk_backend');
  assert.ok(curl.startsWith("curl http://127.0.0.1:4545/v1/track \\\n  -u 'wk_backend:'"), curl);
});
