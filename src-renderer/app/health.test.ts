import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineHealth } from '../../src-shared/api';
import { scriptedTransport } from '../testing/transport';
import { createHealthStore } from './health-store';
import { bannerWords } from './health-words';

const full: EngineHealth = {
  status: 'degraded',
  problem: {
    code: 'disk_full',
    message: 'the disk holding /data is full (SQLITE_FULL)',
    advice: 'free disk space on the disk that holds /data',
    retryable: true,
    dataDir: '/data',
    since: '2026-11-22T12:00:00.000Z',
  },
};
const ok: EngineHealth = { status: 'ok', problem: null };

test('banner words: the cause, the engine advice, the data folder; none when ok', () => {
  assert.equal(bannerWords(ok), null);
  assert.equal(bannerWords(null), null);
  assert.deepEqual(bannerWords(full), {
    title: 'Hookbench cannot store new calls: the disk is full.',
    advice: 'Free disk space on the disk that holds /data.',
    meanwhile: 'Meanwhile SDKs get 503 and send again later; nothing already accepted is lost. Hookbench carries on by itself once this is fixed.',
    dataDir: '/data',
  });
  const damaged = bannerWords({ status: 'degraded', problem: { ...full.problem!, code: 'database_corrupt', retryable: false, advice: "stop Hookbench and move the damaged file aside: mv '/data/hookbench.sqlite' '/data/hookbench.sqlite.damaged'" } });
  assert.match(damaged?.title ?? '', /the log file is damaged/);
  assert.match(damaged?.advice ?? '', /^Stop Hookbench .* mv '/);
  assert.match(damaged?.meanwhile ?? '', /restart/);
});

test('health store: read at start, kept by health events, read again after a reconnect', async () => {
  let answer: EngineHealth = ok;
  const s = scriptedTransport((method) => (method === 'getHealth' ? answer : null));
  const h = createHealthStore(s.transport);
  h.start();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.take(), ['getHealth']);
  assert.deepEqual(h.store.getState().health, ok);

  s.emit({ type: 'health', health: full });
  assert.equal(h.store.getState().health?.problem?.code, 'disk_full');
  s.emit({ type: 'deliveries', ids: [1] });
  assert.equal(h.store.getState().health?.status, 'degraded', 'other events change nothing');

  // Recovered while the stream was down: the reconnect reads the current state.
  s.state('reconnecting');
  answer = ok;
  s.state('connected');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(s.take(), ['getHealth']);
  assert.deepEqual(h.store.getState().health, ok);
});
