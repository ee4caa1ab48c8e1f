import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyAction, moveCursor, type KeyInput } from './keyboard';
import type { UrlOutcome } from '../../../src-shared/api';
import {
  bulkConfirmWords,
  bulkSummaryWords,
  countWords,
  countsBesideList,
  eventWords,
  noMatchWords,
  hiddenWords,
  lastStatusWords,
  nextAttemptWords,
  routeWords,
  shortUrl,
  urlOutcomeWords,
  searchedWords,
  waitingWords,
} from './list-words';
import { whenOf } from '../../shared/format';

test('keys: j/k (and ↓/↑)/Enter/r/ / / Escape act, never while typing or with a modifier', () => {
  const cases: [KeyInput, ReturnType<typeof keyAction>][] = [
    [{ key: 'j' }, { kind: 'move', by: 1 }],
    [{ key: 'j', targetTag: 'DIV' }, { kind: 'move', by: 1 }],
    [{ key: 'ArrowDown' }, { kind: 'move', by: 1 }],
    [{ key: 'ArrowUp', targetTag: 'DIV' }, { kind: 'move', by: -1 }],
    [{ key: 'ArrowDown', targetTag: 'SELECT' }, null],
    [{ key: 'Enter', targetTag: 'BUTTON' }, null],
    [{ key: 'Enter', targetTag: 'A' }, null],
    [{ key: 'k' }, { kind: 'move', by: -1 }],
    [{ key: 'Enter', targetTag: 'DIV' }, { kind: 'open' }],
    [{ key: 'r', targetTag: 'BODY' }, { kind: 'replay' }],
    [{ key: 'n', targetTag: 'BODY' }, { kind: 'retryNow' }],
    [{ key: 'n', targetTag: 'INPUT' }, null],
    [{ key: '/' }, { kind: 'search' }],
    [{ key: 'Escape' }, { kind: 'close' }],
    [{ key: 'c' }, { kind: 'compare' }],
    [{ key: 'c', targetTag: 'INPUT' }, null],
    [{ key: 'c', metaKey: true }, null],
    [{ key: 'x' }, null],
    [{ key: 'R' }, null],
    [{ key: 'j', targetTag: 'INPUT' }, null],
    [{ key: 'r', targetTag: 'TEXTAREA' }, null],
    [{ key: 'k', targetTag: 'SELECT' }, null],
    [{ key: '/', targetTag: 'DIV', targetEditable: true }, null],
    [{ key: 'r', ctrlKey: true }, null],
    [{ key: 'r', metaKey: true }, null],
    [{ key: 'j', altKey: true }, null],
  ];
  for (const [input, expected] of cases) assert.deepEqual(keyAction(input), expected, JSON.stringify(input));
});

test('the cursor moves within the rows and starts at the top', () => {
  assert.equal(moveCursor(-1, 1, 5), 0);
  assert.equal(moveCursor(-1, -1, 5), 0);
  assert.equal(moveCursor(0, 1, 5), 1);
  assert.equal(moveCursor(4, 1, 5), 4);
  assert.equal(moveCursor(0, -1, 5), 0);
  assert.equal(moveCursor(9, -1, 5), 0, 'a cursor past the rows (after a filter) restarts at the top');
  assert.equal(moveCursor(2, 1, 0), -1);
});

test('numbers in words', () => {
  assert.equal(countWords(null, false), '…');
  assert.equal(countWords({ total: 100000, matching: 100000 }, false), '100,000 deliveries');
  assert.equal(countWords({ total: 1, matching: 1 }, false), '1 delivery');
  assert.equal(countWords({ total: 1200, matching: 3 }, true), '3 of 1,200 deliveries');
  assert.equal(hiddenWords({ total: 1200, matching: 3 }), '1,197 hidden by the filter');
  assert.equal(hiddenWords(null), '');
  // A count that stopped at its limit says so: "10,000+", and the hidden ones as an upper bound.
  assert.equal(countWords({ total: 1_000_000, matching: 10_000, capped: true }, true), '10,000+ of 1,000,000 deliveries');
  assert.equal(hiddenWords({ total: 1_000_000, matching: 10_000, capped: true }), 'at most 990,000 hidden by the filter');
  assert.equal(countWords({ total: 5000, matching: 51, textIndexCatchingUp: true }, true), '51 of 5,000 deliveries (search index catching up)');
  // A short needle is counted over the newest stretch of the log only: a lower bound, and since when.
  const now = Date.parse('2026-11-22T12:00:00.000Z');
  const since = new Date(now - 90_000).toISOString();
  assert.equal(countWords({ total: 1_000_000, matching: 12, searchedTo: since }, true, now), `12+ of 1,000,000 deliveries (counted since ${whenOf(since, now)})`);
  assert.equal(hiddenWords({ total: 1_000_000, matching: 12, searchedTo: since }), 'at most 999,988 hidden by the filter');
  // The list read on further down than the count and shows more: the bar follows the list.
  assert.equal(countWords({ total: 1_000_000, matching: 0, searchedTo: since }, true, now, 22), '22+ of 1,000,000 deliveries');
  assert.equal(hiddenWords({ total: 1_000_000, matching: 0, searchedTo: since }, 22), 'at most 999,978 hidden by the filter');
  assert.equal(countWords({ total: 1_000_000, matching: 30, searchedTo: since }, true, now, 22), `30+ of 1,000,000 deliveries (counted since ${whenOf(since, now)})`);
  assert.equal(countWords({ total: 1_000_000, matching: 10_000, capped: true }, true, now, 20_000), '10,000+ of 1,000,000 deliveries');
  assert.equal(searchedWords({ to: since, direction: 'older' }, now), `Searched down to ${whenOf(since, now)}; the rest of the log is not searched yet.`);
  assert.equal(bulkConfirmWords({ fresh: 12, alreadyReplayed: 0, atLeast: true }, false), 'Replay at least 12 failed deliveries in this filter, as they were?');
  assert.equal(bulkConfirmWords({ fresh: 0, alreadyReplayed: 0, atLeast: true }, false), 'No failed delivery in the part of the log searched so far; the replay searches the rest as it goes.');
  assert.equal(searchedWords({ to: since, direction: 'newer' }, now), `Searched up to ${whenOf(since, now)}; the rest of the log is not searched yet.`);
  assert.equal(noMatchWords({ total: 2001, matching: 0 }), 'All 2,001 deliveries are hidden by it. Loosen the filter, or clear it to see every delivery.');
  assert.equal(noMatchWords({ total: 1, matching: 0 }), 'The only delivery is hidden by it. Loosen the filter, or clear it to see every delivery.');
  assert.equal(noMatchWords(null), 'Loosen the filter, or clear it to see every delivery.');
  assert.equal(lastStatusWords({ lastHttpStatus: 500, lastError: 'HTTP 500', urls: [] }), '500');
  assert.equal(lastStatusWords({ lastHttpStatus: null, lastError: 'connect ECONNREFUSED', urls: [] }), 'error');
  assert.equal(lastStatusWords({ lastHttpStatus: null, lastError: null, urls: [] }), '—');
  assert.equal(nextAttemptWords({ status: 'succeeded', nextAttemptAt: null }), null);
  const next = new Date(2026, 0, 1, 10, 11, 12, 345).toISOString();
  assert.equal(nextAttemptWords({ status: 'retrying', nextAttemptAt: next }, new Date(2026, 0, 1, 9).getTime()), 'next 10:11:12');
  assert.equal(nextAttemptWords({ status: 'retrying', nextAttemptAt: next }, new Date(2025, 11, 31, 23).getTime()), 'next 1 Jan 2026 10:11:12');
  assert.equal(bulkSummaryWords({ state: 'finished', done: 3, total: 3, replayed: 3, failed: 0, firstError: null }), 'Replayed 3, failed 0.');
  assert.equal(
    bulkSummaryWords({ state: 'finished', done: 3, total: 3, replayed: 2, failed: 1, firstError: '#4: refused' }),
    'Replayed 2, failed 1. First error: #4: refused',
  );
  assert.equal(bulkSummaryWords({ state: 'cancelled', done: 1, total: 3, replayed: 1, failed: 0, firstError: null }), 'Cancelled after 1 of 3: replayed 1, failed 0.');
  assert.equal(bulkSummaryWords({ state: 'finished', done: 0, total: 0, replayed: 0, failed: 0, firstError: null }), 'No failed delivery in this filter.');
});

const T = Date.parse('2026-11-23T10:00:00.000Z');
const at = (ms: number): string => new Date(T + ms).toISOString();
const outcome = (o: Partial<UrlOutcome> & Pick<UrlOutcome, 'url'>): UrlOutcome => ({
  round: 1,
  state: 'done',
  httpStatus: null,
  failure: null,
  startedAt: at(0),
  ...o,
});

test('each URL in a word: status, or the kind of failure; the sentence on hover', () => {
  const words = (u: UrlOutcome) => urlOutcomeWords(u, T + 3_400);
  assert.deepEqual(words(outcome({ url: 'http://a/ok', httpStatus: 200 })), { label: '200', tone: 'ok', title: 'http://a/ok: HTTP 200 (round 1)' });
  assert.equal(words(outcome({ url: 'http://a', httpStatus: 503, failure: { kind: 'http', status: 503, statusText: 'Service Unavailable' } })).label, '503');
  const timeout = words(outcome({ url: 'http://a/slow', round: 2, failure: { kind: 'timeout', timeoutMs: 5000, status: null } }));
  assert.deepEqual(timeout, { label: 'timeout', tone: 'bad', title: 'http://a/slow: no complete response within 5000 ms (round 2)' });
  assert.equal(words(outcome({ url: 'http://a', failure: { kind: 'connect', host: '127.0.0.1:9', code: 'ECONNREFUSED' } })).label, 'refused');
  assert.equal(words(outcome({ url: 'http://a', failure: { kind: 'connect', host: 'h', code: 'EHOSTUNREACH' } })).label, 'no connection');
  assert.equal(words(outcome({ url: 'https://a', failure: { kind: 'tls', host: 'a', code: 'DEPTH_ZERO_SELF_SIGNED_CERT', certificate: 'self-signed', message: 'x' } })).label, 'TLS');
  assert.equal(words(outcome({ url: 'http://a', failure: { kind: 'recorded', errorKind: 'timeout', status: null, text: 'timed out' } })).label, 'timeout', 'an older row by its kind');
  const flying = words(outcome({ url: 'http://a/hang', state: 'in_flight' }));
  assert.deepEqual(flying, { label: 'waiting', tone: 'flying', title: 'http://a/hang: sent in round 1, no answer after 3 s' });
  assert.equal(
    lastStatusWords({ lastHttpStatus: null, lastError: 'x', urls: [outcome({ url: 'http://a', failure: { kind: 'timeout', timeoutMs: 5000, status: null } })] }),
    'timeout',
    'the Last column says what kind of error',
  );
});

test('an in-flight round says what it waits for and since when', () => {
  const urls = [
    outcome({ url: 'http://a/fast', httpStatus: 200 }),
    outcome({ url: 'http://a/hang', state: 'in_flight', startedAt: at(0) }),
  ];
  assert.equal(waitingWords({ status: 'in_flight', urls }, T + 3_900), '1 of 2 URLs answered; waiting for http://a/hang (3 s)');
  assert.equal(waitingWords({ status: 'in_flight', urls: [urls[1]!] }, T + 12_000), 'waiting for http://a/hang (12 s)');
  assert.equal(waitingWords({ status: 'in_flight', urls: [urls[1]!] }, T + 125_400), 'waiting for http://a/hang (2 min 5 s)');
  // A retry round only tries what is pending: the earlier round's answers do not count.
  const retry = [outcome({ url: 'http://a/fast', httpStatus: 404, round: 1 }), outcome({ url: 'http://a/hang', state: 'in_flight', round: 2 })];
  assert.equal(waitingWords({ status: 'in_flight', urls: retry }, T + 1_000), 'waiting for http://a/hang (1 s)');
  assert.equal(waitingWords({ status: 'succeeded', urls }, T), null);
  assert.equal(waitingWords({ status: 'in_flight', urls: [] }, T), null);
});

test('route, names and short URLs', () => {
  assert.equal(routeWords({ sourceName: 'backend', destinationName: 'Local receiver', destinationId: 1 }), 'backend → Local receiver');
  assert.equal(routeWords({ sourceName: null, destinationName: null, destinationId: 7 }), 'unknown source → removed destination #7');
  assert.equal(eventWords({ event: null, name: 'Home' }), 'Home');
  assert.equal(eventWords({ event: 'Signed Up', name: null }), 'Signed Up');
  assert.equal(eventWords({ event: null, name: null }), '—');
  assert.equal(shortUrl('http://127.0.0.1:9000/hook?x=1'), '127.0.0.1:9000/hook?x=1');
  assert.equal(shortUrl('https://example.com/'), 'example.com');
  assert.equal(shortUrl('not a url'), 'not a url');
});

test('a count that stopped short gives way to the list once the list holds every match', () => {
  const held = { loaded: true, loading: false, hasOlder: false, searched: null, atOldest: false, newWhilePaused: 0, shown: 0 };
  const partial = { total: 10_063_330, matching: 0, searchedTo: '2026-11-28T11:01:39.000Z' };
  assert.deepEqual(countsBesideList(partial, held), { total: 10_063_330, matching: 0 }, 'the list read to its end and found none: exactly none');
  assert.equal(noMatchWords(countsBesideList(partial, held)), 'All 10,063,330 deliveries are hidden by it. Loosen the filter, or clear it to see every delivery.');
  assert.deepEqual(countsBesideList({ total: 50_000, matching: 10_000, capped: true }, { ...held, shown: 12 }), { total: 50_000, matching: 12 });
  // Not while the list itself is short of the end, or holds back rows.
  for (const notWhole of [{ hasOlder: true }, { searched: { to: 'x', direction: 'older' } }, { atOldest: true }, { newWhilePaused: 3 }, { loading: true }, { loaded: false }]) {
    assert.equal(countsBesideList(partial, { ...held, ...notWhole }), partial, JSON.stringify(notWhole));
  }
  const exact = { total: 9, matching: 4 };
  assert.equal(countsBesideList(exact, { ...held, shown: 4 }), exact, 'an exact count stays as it is');
  assert.equal(countsBesideList(null, held), null);
});
