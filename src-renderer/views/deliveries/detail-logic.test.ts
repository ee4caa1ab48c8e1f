import { test } from 'node:test';
import assert from 'node:assert/strict';
import { byteLength, changedLines, durationParts, editedBodyProblem, headerRows, phaseBars, responseSummary, signatureBadge, targetUrlProblem } from './detail-logic';

test('phaseBars lays dns, connect and tls end to end, first byte as the wait after them, total across', () => {
  const bars = phaseBars({ dnsMs: 10, connectMs: 20, tlsMs: 30, firstByteMs: 80, totalMs: 100 });
  assert.deepEqual(
    bars.map((b) => [b.phase, b.ms, +b.left.toFixed(2), +b.width.toFixed(2)]),
    [
      ['dns', 10, 0, 0.1],
      ['connect', 20, 0.1, 0.2],
      ['tls', 30, 0.3, 0.3],
      ['firstByte', 80, 0.6, 0.2],
      ['total', 100, 0, 1],
    ],
  );
});

test('phaseBars: phases that did not happen (IP literal, plain http, reused socket, no answer) have no bar', () => {
  const table: [string, Parameters<typeof phaseBars>[0], (number | null)[]][] = [
    ['plain http to an IP', { connectMs: 0.5, firstByteMs: 3, totalMs: 4 }, [null, 0.5, null, 3, 4]],
    ['reused keep-alive socket', { firstByteMs: 2, totalMs: 2.5 }, [null, null, null, 2, 2.5]],
    ['timed out before any answer', { connectMs: 1, totalMs: 300 }, [null, 1, null, null, 300]],
    ['refused before connecting', { totalMs: 0 }, [null, null, null, null, 0]],
  ];
  for (const [name, timings, ms] of table) {
    const bars = phaseBars(timings);
    assert.deepEqual(bars.map((b) => b.ms), ms, name);
    for (const b of bars) {
      assert.ok(b.left >= 0 && b.left + b.width <= 1 + 1e-9, `${name}: ${b.phase} stays inside the track`);
      if (b.ms === null) assert.equal(b.width, 0, `${name}: ${b.phase} has no bar`);
    }
  }
});

test('phaseBars: an attempt that waited for a free connection starts its phases, first byte and total after the wait', () => {
  // First byte and total count from when the attempt went, after the wait.
  const bars = phaseBars({ queuedMs: 50, connectMs: 10, firstByteMs: 40, totalMs: 50 });
  assert.deepEqual(
    bars.map((b) => [b.phase, b.ms, +b.left.toFixed(2), +b.width.toFixed(2)]),
    [
      ['queued', 50, 0, 0.5],
      ['dns', null, 0, 0],
      ['connect', 10, 0.5, 0.1],
      ['tls', null, 0, 0],
      ['firstByte', 40, 0.6, 0.3],
      ['total', 50, 0.5, 0.5],
    ],
  );
  assert.equal(phaseBars({ totalMs: 3 })[0]?.phase, 'dns', 'no queued row when the attempt went at once');
});

test('durationParts: the receiver’s time, and a wait for a connection before it said beside it', () => {
  assert.equal(durationParts({ totalMs: 4860 }).queued, null);
  const waited = durationParts({ queuedMs: 251, totalMs: 4860 });
  assert.match(waited.took, /4[.,]86 s|4,860 ms|4860/);
  assert.match(waited.queued ?? '', /^after 251 ms queued$/);
});

test('byteLength', () => {
  assert.equal(byteLength('café ☕'), 9, 'UTF-8 bytes, not characters');
});

test('editedBodyProblem says what is wrong before anything is sent, by the engine’s rule', () => {
  const table: [string, RegExp | null][] = [
    ['{"type":"track"}', null],
    ['{\n  "a": [1, 2]\n}\n', null],
    ['', /empty/],
    ['{"type":', /^Not valid JSON: /],
    ['[1, 2]', /must be a JSON object/],
    ['"text"', /must be a JSON object/],
    ['null', /must be a JSON object/],
  ];
  for (const [text, problem] of table) {
    const got = editedBodyProblem(text);
    if (problem === null) assert.equal(got, null, text);
    else assert.match(got ?? '', problem, text);
  }
});

test('targetUrlProblem uses the webhook URL rule', () => {
  assert.equal(targetUrlProblem('http://127.0.0.1:9000/hook'), null);
  assert.equal(targetUrlProblem('https://example.test/x?y=1'), null);
  assert.equal(targetUrlProblem('ftp://x/'), 'URL must use http or https, not ftp');
  assert.equal(targetUrlProblem('127.0.0.1:9000'), 'URL "127.0.0.1:9000" is not a valid URL');
  assert.equal(targetUrlProblem('not a url'), 'URL "not a url" is not a valid URL');
  assert.equal(targetUrlProblem(''), 'URL is required: a full http:// or https:// URL');
  assert.equal(targetUrlProblem('http://user:pw@127.0.0.1/'), 'URL must not carry credentials; use a static header instead');
});

test('signatureBadge and responseSummary', () => {
  assert.deepEqual(
    (['valid', 'mismatch', 'no_secret', 'not_sent'] as const).map((s) => signatureBadge(s)),
    [
      { icon: '✓', label: 'signature valid' },
      { icon: '✗', label: 'signature mismatch' },
      { icon: '–', label: 'unsigned' },
      { icon: '…', label: 'not sent yet' },
    ],
  );
  const base = { httpStatus: 500, responseHeaders: { 'content-type': 'text/plain', 'content-length': '18' }, responseBytes: 18, responseTruncated: false, state: 'done' as const };
  assert.equal(responseSummary(base), '2 headers · 18 bytes');
  assert.equal(responseSummary({ ...base, responseBytes: 200_000, responseTruncated: true }), '2 headers · 195.3 KB · body truncated');
  assert.equal(responseSummary({ ...base, responseHeaders: {}, responseBytes: 0 }), 'no headers · empty body');
  assert.equal(responseSummary({ ...base, httpStatus: null, responseHeaders: {}, responseBytes: 0 }), 'no response');
  assert.equal(responseSummary({ ...base, state: 'in_flight', httpStatus: null }), 'waiting for the response');
  assert.deepEqual(headerRows({ 'set-cookie': ['a=1', 'b=2'], server: 'x' }), [
    ['set-cookie', 'a=1'],
    ['set-cookie', 'b=2'],
    ['server', 'x'],
  ]);
});

test('changedLines marks the lines an edit added or changed, and (swapped) the ones it removed', () => {
  const original = ['{', '  "event": "Order Completed",', '  "n": 1,', '  "x": true', '}'].join('\n');
  const edited = ['{', '  "event": "Order Refunded",', '  "n": 1,', '  "y": 2,', '  "x": true', '}'].join('\n');
  assert.deepEqual(changedLines(edited, original), [false, true, false, true, false, false]);
  assert.deepEqual(changedLines(original, edited), [false, true, false, false, false]);
  assert.deepEqual(changedLines(original, original), [false, false, false, false, false]);
  assert.deepEqual(changedLines('{"a":1}', '{"a":2}'), [true], 'a one-line raw body changes as a whole');
  // Past the exact bound, lines are matched as a multiset: repeated lines count once each.
  const many = Array.from({ length: 2_100 }, (_, k) => `"k${k}": 1,`);
  const big = changedLines([...many, 'new'].join('\n'), [...many, 'old'].join('\n'));
  assert.equal(big.filter(Boolean).length, 1);
  assert.equal(big[big.length - 1], true);
});
