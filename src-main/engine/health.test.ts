import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EngineHealth } from '../../src-shared/api';
import { ManualClock } from './clock';
import { createHealthMonitor } from './health';

const fault = (code: string): Error => Object.assign(new Error(code), { code });

function monitor(probe: () => void) {
  const clock = new ManualClock(Date.parse('2026-11-22T12:00:00.000Z'));
  const changes: EngineHealth[] = [];
  let recovered = 0;
  const m = createHealthMonitor({
    clock,
    dbPath: '/data/hookbench.sqlite',
    dataDir: '/data',
    probe,
    onChange: (h) => changes.push(h),
    onRecovered: () => void recovered++,
    log: () => {},
  });
  return { m, clock, changes, recovered: () => recovered };
}

test('a storage fault degrades once per cause; the probe on the clock recovers it and the put-off work runs', () => {
  let cause: string | null = 'SQLITE_FULL';
  const w = monitor(() => {
    if (cause) throw fault(cause);
  });
  assert.equal(w.m.fault(new TypeError('a bug')), null);
  assert.equal(w.m.current().status, 'ok');

  assert.equal(w.m.fault(fault('SQLITE_FULL'))?.code, 'disk_full');
  assert.equal(w.m.fault(fault('SQLITE_FULL'))?.code, 'disk_full');
  assert.equal(w.changes.length, 1, 'the same cause again is no change');
  assert.equal(w.m.writable(), false);
  assert.equal(w.m.current().problem?.since, '2026-11-22T12:00:00.000Z');
  assert.deepEqual(w.clock.pendingTimers(), [1000]);

  w.clock.advance(1000);
  cause = 'SQLITE_BUSY';
  w.clock.advance(1000);
  assert.deepEqual(w.changes.map((c) => c.problem?.code), ['disk_full', 'database_locked'], 'a new cause is reported');
  cause = null;
  w.clock.advance(1000);
  assert.deepEqual(w.m.current(), { status: 'ok', problem: null });
  assert.equal(w.recovered(), 1);
  assert.deepEqual(w.clock.pendingTimers(), [], 'no probe while ok');
});

test('a damaged file is not probed and stays degraded through successful writes; writers are not held back', () => {
  const w = monitor(() => {});
  assert.equal(w.m.fault(fault('SQLITE_CORRUPT'))?.retryable, false);
  assert.deepEqual(w.clock.pendingTimers(), []);
  assert.equal(w.m.writable(), true);
  w.m.succeeded();
  assert.equal(w.m.current().problem?.code, 'database_corrupt');
  assert.match(w.m.current().problem?.advice ?? '', /mv '\/data\/hookbench\.sqlite' '\/data\/hookbench\.sqlite\.damaged-2026-11-22T12-00-00-000Z'/);
});

test('a successful write clears a retryable fault at once; stop cancels the probe', () => {
  const w = monitor(() => {
    throw fault('SQLITE_BUSY');
  });
  w.m.fault(fault('SQLITE_BUSY'));
  w.m.succeeded();
  assert.equal(w.m.current().status, 'ok');
  assert.equal(w.recovered(), 1);
  w.m.fault(fault('SQLITE_IOERR_WRITE'));
  w.m.stop();
  assert.deepEqual(w.clock.pendingTimers(), []);
});
