import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LiveEvent } from '../../src-shared/api';
import type { ConnectionState, Transport } from '../transport';
import { batcher, followLive } from './live-store';

test('batcher: kicks before a frame share one flush, and flushes never overlap', async () => {
  const frames: (() => void)[] = [];
  let running = 0;
  let most = 0;
  let runs = 0;
  let release: () => void = () => {};
  const b = batcher(
    (flush) => frames.push(flush),
    async () => {
      runs++;
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => (release = resolve));
      running--;
    },
  );
  b.kick();
  b.kick();
  b.kick();
  assert.equal(frames.length, 1, 'one frame asked for three kicks');
  frames.shift()?.();
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1);
  // A kick while the first flush runs waits for it.
  b.kick();
  frames.shift()?.();
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1, 'the second flush waits for the first');
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 2);
  release();
  await new Promise((r) => setImmediate(r));
  assert.equal(most, 1);
});

test('followLive: the catch-up runs on a reconnect, not on the first connect', () => {
  let onState: (state: ConnectionState) => void = () => {};
  let stopped = false;
  const transport: Transport = {
    call: () => Promise.reject(new Error('no calls here')),
    subscribe(_onEvent: (event: LiveEvent) => void, state: (state: ConnectionState) => void) {
      onState = state;
      return () => {
        stopped = true;
      };
    },
  };
  const seen: string[] = [];
  const stop = followLive(transport, { onEvent: () => {}, onReconnect: () => seen.push('catch up'), onState: (s) => seen.push(s) });
  onState('connecting');
  onState('connected');
  onState('reconnecting');
  onState('connected');
  assert.deepEqual(seen, ['connecting', 'connected', 'reconnecting', 'connected', 'catch up']);
  stop();
  assert.equal(stopped, true);
});
