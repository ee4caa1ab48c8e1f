import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiMethod, DeliveryDetail, DeliverySummary, LiveEvent } from '../src-shared/api';
import { createDeliveriesStore } from './store';
import type { ConnectionState, Transport } from './transport';

function summary(id: number, status: DeliverySummary['status'] = 'pending'): DeliverySummary {
  return {
    id,
    messageRowId: id,
    destinationId: 1,
    type: 'track',
    status,
    userId: 'u',
    anonymousId: null,
    event: 'E',
    messageId: `m${id}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    nextAttemptAt: null,
    rounds: 0,
    lastHttpStatus: null,
    lastError: null,
    replayOf: null,
    entries: 1,
    latencyMs: null,
    replays: [],
  };
}

function detail(s: DeliverySummary): DeliveryDetail {
  return { ...s, body: '{}', targetUrl: null, edited: false, firstAttemptAt: null, finishedAt: null,
    attempts: [],
    signature: { state: 'no_secret', expected: null, sent: null, explanation: '' },
    nextStep: '',
    originalBody: null,
    destinationName: null,
  };
}

/** A transport over an in-memory log that records every call and lets the test push live events. */
function fakeTransport(log: Map<number, DeliverySummary>) {
  const calls: string[] = [];
  let emit: (e: LiveEvent) => void = () => {};
  let state: (s: ConnectionState) => void = () => {};
  const transport: Transport = {
    async call(method: ApiMethod, params?: unknown) {
      calls.push(params === undefined ? method : `${method} ${JSON.stringify(params)}`);
      const rows = [...log.values()].sort((a, b) => b.id - a.id);
      switch (method) {
        case 'listDeliveries':
          return { items: rows, nextBeforeId: null } as never;
        case 'getDelivery': {
          const row = log.get(params as number);
          return (row ? detail(row) : null) as never;
        }
        case 'listSources':
          return [] as never;
        default:
          throw new Error(`unexpected ${method}`);
      }
    },
    subscribe(onEvent, onState) {
      emit = onEvent;
      state = onState;
      return () => {};
    },
  };
  return { transport, calls, emit: (e: LiveEvent) => emit(e), state: (s: ConnectionState) => state(s) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('live events are batched into one refetch per frame: changed known rows one by one, new ids by the first page', async () => {
  const log = new Map([[1, summary(1)]]);
  const fake = fakeTransport(log);
  const frames: (() => void)[] = [];
  const { store, start } = createDeliveriesStore(fake.transport, (flush) => frames.push(flush));
  start();
  await settle();
  assert.deepEqual(store.getState().rows.map((r) => r.id), [1]);
  assert.equal(store.getState().loaded, true);

  fake.calls.length = 0;
  log.set(1, summary(1, 'succeeded'));
  fake.emit({ type: 'deliveries', ids: [1] });
  fake.emit({ type: 'deliveries', ids: [1] });
  assert.equal(frames.length, 1, 'one frame scheduled for both events');
  frames.shift()!();
  await settle();
  assert.deepEqual(fake.calls, ['getDelivery 1']);
  assert.equal(store.getState().rows[0]?.status, 'succeeded');
  assert.equal('body' in (store.getState().rows[0] ?? {}), false, 'rows stay summaries');

  fake.calls.length = 0;
  log.set(2, summary(2));
  fake.emit({ type: 'deliveries', ids: [2] });
  frames.shift()!();
  await settle();
  assert.deepEqual(fake.calls, ['listDeliveries {"limit":100}']);
  assert.deepEqual(store.getState().rows.map((r) => r.id), [2, 1]);
});

test('the selected delivery is refetched when it changes, and a reconnect catches up from the log', async () => {
  const log = new Map([[1, summary(1)]]);
  const fake = fakeTransport(log);
  const frames: (() => void)[] = [];
  const { store, start } = createDeliveriesStore(fake.transport, (flush) => frames.push(flush));
  start();
  fake.state('connected');
  await settle();
  store.getState().select(1);
  await settle();
  assert.equal(store.getState().detail?.status, 'pending');

  log.set(1, summary(1, 'retrying'));
  fake.emit({ type: 'deliveries', ids: [1] });
  frames.shift()!();
  await settle();
  assert.equal(store.getState().detail?.status, 'retrying');

  fake.state('reconnecting');
  assert.equal(store.getState().connection, 'reconnecting');
  log.set(3, summary(3));
  fake.calls.length = 0;
  fake.state('connected');
  assert.equal(frames.length, 1);
  frames.shift()!();
  await settle();
  assert.deepEqual(fake.calls, ['listDeliveries {"limit":100}']);
  assert.deepEqual(store.getState().rows.map((r) => r.id), [3, 1]);
});
