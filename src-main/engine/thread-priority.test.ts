import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backgroundNice, threadIdOf } from './thread-priority';

test("a thread's id is read from /proc/thread-self's target, and nothing else passes for one", () => {
  assert.equal(threadIdOf('8525/task/8536'), 8536);
  assert.equal(threadIdOf('8525/task/8536\n'), 8536);
  for (const bad of ['', '8525', 'self/task/1', '8525/task/', '8525/task/x1', '/proc/8525/task/1']) assert.equal(threadIdOf(bad), null, bad);
});

test('a background thread is never given a higher priority than it has', () => {
  assert.equal(backgroundNice(0, 10), 10);
  assert.equal(backgroundNice(15, 10), 15, 'a process started under nice 15 stays there');
  assert.equal(backgroundNice(10, 10), 10);
  assert.equal(backgroundNice(-5, 10), 10);
});
