import { test } from 'node:test';
import assert from 'node:assert/strict';
import { missingHeadersWords } from './attempt-words';
import type { AttemptView } from '../../../src-shared/api';

const base: AttemptView = {
  id: 1,
  url: 'http://127.0.0.1:9/hook',
  startedAt: '2026-01-01T00:00:00.000Z',
  round: 1,
  state: 'done',
  verdict: 'retryable',
  httpStatus: null,
  requestHeaders: {},
  sentHeaders: null,
  timings: null,
  responseHeaders: null,
  responseBody: null,
  responseBytes: null,
  responseTruncated: false,
  errorKind: null,
  errorText: null,
  retryAfterMs: null,
};

test('why an attempt shows no wire headers: not ended, interrupted, never written, or recorded before they were kept', () => {
  assert.match(missingHeadersWords({ ...base, state: 'in_flight' }), /kept when the attempt ends/);
  assert.match(missingHeadersWords({ ...base, state: 'interrupted' }), /^Interrupted/);
  assert.match(missingHeadersWords({ ...base, errorKind: 'connect' }), /No request was written \(connect\)/);
  assert.match(missingHeadersWords({ ...base, errorKind: 'tls' }), /would have sent/);
  assert.match(missingHeadersWords({ ...base, httpStatus: 500, errorKind: 'http' }), /^Recorded before Hookbench kept/);
});
