import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LiveEvent } from '../../src-shared/api';
import type { ConnectionState, Transport } from '../transport';
import { batcher, followLive, messageOf } from './live-store';

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

test('followLive: a first connect after a failed attempt, and a connect after the engine stopped, read again', () => {
  let onState: (state: ConnectionState) => void = () => {};
  const transport: Transport = {
    call: () => Promise.reject(new Error('no calls here')),
    subscribe(_onEvent: (event: LiveEvent) => void, state: (state: ConnectionState) => void) {
      onState = state;
      return () => {};
    },
  };
  const seen: string[] = [];
  followLive(transport, { onEvent: () => {}, onReconnect: () => seen.push('catch up'), onState: (s) => seen.push(s) });
  onState('connecting');
  onState('reconnecting');
  onState('connected');
  onState('stopped');
  onState('connected');
  onState('connected');
  assert.deepEqual(seen, ['connecting', 'reconnecting', 'connected', 'catch up', 'stopped', 'connected', 'catch up', 'connected']);
});

test('messageOf: a fetch that reached nothing says so in plain words, whatever the browser called it', () => {
  for (const wording of ['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed', 'fetch failed']) {
    assert.match(messageOf(new TypeError(wording)), /^Hookbench does not answer/, wording);
  }
  assert.equal(messageOf(new Error('no delivery with id 4')), 'no delivery with id 4');
  assert.equal(messageOf(new TypeError('x is not a function')), 'x is not a function');
  assert.equal(messageOf('plain'), 'plain');
});
