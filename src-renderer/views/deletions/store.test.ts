/**
 * The Deletions store's own rules over a small in-memory engine behind the Transport interface:
 * our check and the confirm step before sending, the engine's refusal by field, newest first, and
 * live refetches only for events about deletions or their notices' deliveries. (The real engine is
 * exercised end to end in e2e/audiences.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiMethod } from '../../../src-shared/api';
import type { DeletionRequest } from '../../../src-shared/personas';
import { scriptedTransport } from '../../testing/transport';
import { ApiCallError } from '../../transport';
import { createDeletionsStore } from './store';
import { purgeInWords, purgeState, statusExplanation } from './deletion-status';

function request(id: number, patch: Partial<DeletionRequest> = {}): DeletionRequest {
  return {
    id,
    userId: `user_${id}`,
    status: 'pending',
    purge: false,
    purgedAt: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    affectedSources: ['backend'],
    notices: [{ deliveryId: id * 10, source: 'backend', destination: 'Local receiver', status: 'pending' }],
    ...patch,
  };
}

function fakeEngine(initial: DeletionRequest[]) {
  const requests = [...initial];
  let refusal: ApiCallError | null = null;
  async function answer(method: ApiMethod, params?: unknown): Promise<unknown> {
    switch (method) {
      case 'listDeletions':
        // Oldest first on purpose: the store orders them.
        return structuredClone(requests);
      case 'requestDeletion': {
        if (refusal) throw refusal;
        const p = params as { userId: string; purge?: boolean };
        const r = request(requests.length + 1, { userId: p.userId, purge: p.purge ?? false });
        requests.push(r);
        return r;
      }
      default:
        throw new Error(`unexpected ${method}`);
    }
  }
  const scripted = scriptedTransport(answer);

  return {
    ...scripted,
    requests,
    refuse(err: ApiCallError | null) {
      refusal = err;
    },
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function setUp(initial: DeletionRequest[] = []) {
  const engine = fakeEngine(initial);
  const queued: (() => void)[] = [];
  const deletions = createDeletionsStore(engine.transport, (f) => void queued.push(f));
  deletions.start();
  await settle();
  const frame = async (): Promise<void> => {
    for (const f of queued.splice(0)) f();
    await settle();
  };
  return { engine, s: deletions.store, frame, queued };
}

test('loads the requests newest first', async () => {
  const { s } = await setUp([request(1), request(2), request(3)]);
  assert.equal(s.getState().loaded, true);
  assert.deepEqual(s.getState().requests.map((r) => r.id), [3, 2, 1]);
});

test('a request: our check first, then a confirm step, then the engine; the new request is on top', async () => {
  const { engine, s } = await setUp([request(1)]);
  engine.take();
  s.getState().ask();
  assert.deepEqual(s.getState().errors.map((e) => e.field), ['deletion.userId']);
  assert.equal(s.getState().confirming, false);

  s.getState().setDraft({ userId: ' ada ', purge: true });
  assert.deepEqual(s.getState().errors, []);
  s.getState().ask();
  assert.equal(s.getState().confirming, true);
  assert.deepEqual(engine.take(), [], 'nothing is sent before the confirmation');

  assert.equal(await s.getState().submit(), true);
  assert.deepEqual(engine.take(), ['requestDeletion {"userId":"ada","purge":true}']);
  const state = s.getState();
  assert.equal(state.confirming, false);
  assert.equal(state.submittedId, 2);
  assert.deepEqual(state.draft, { userId: '', purge: true }, 'ready for the next one, the purge choice kept');
  assert.deepEqual(state.requests.map((r) => [r.id, r.userId]), [[2, 'ada'], [1, 'user_1']]);
});

test('the engine\'s refusal lands by field; one without fields is shown whole', async () => {
  const { engine, s } = await setUp();
  s.getState().setDraft({ userId: 'x'.repeat(10) });
  engine.refuse(new ApiCallError('validation_failed', 'deletion.userId: too long', [{ field: 'deletion.userId', message: 'must be at most 5 characters' }]));
  assert.equal(await s.getState().submit(), false);
  assert.deepEqual(s.getState().errors, [{ field: 'deletion.userId', message: 'must be at most 5 characters' }]);
  engine.refuse(new ApiCallError('internal', 'database is locked'));
  assert.equal(await s.getState().submit(), false);
  assert.deepEqual(s.getState().errors, [{ field: 'general', message: 'database is locked' }]);
  assert.equal(s.getState().submitting, false);
});

test('live: deletions events and deliveries of its notices refetch once per frame; other deliveries do not', async () => {
  const { engine, s, frame, queued } = await setUp([request(1), request(2)]);
  engine.take();
  engine.emit({ type: 'deliveries', ids: [11, 12] });
  engine.emit({ type: 'computations', ids: [1] });
  assert.equal(queued.length, 0, 'not a notice of ours');
  engine.emit({ type: 'deliveries', ids: [20] });
  engine.emit({ type: 'deletions', ids: [2] });
  assert.equal(queued.length, 1, 'one refetch for the frame');
  const r = engine.requests[1];
  assert.ok(r);
  r.status = 'forwarded';
  await frame();
  assert.deepEqual(engine.take(), ['listDeletions']);
  assert.equal(s.getState().requests.find((o) => o.id === 2)?.status, 'forwarded');

  engine.state('reconnecting');
  engine.state('connected');
  await frame();
  assert.deepEqual(engine.take(), ['listDeletions'], 'a reconnect refetches');
});

test('words: the engine\'s explanation wins; purge states', () => {
  assert.equal(statusExplanation(request(1, { explanation: 'the engine knows' })), 'the engine knows');
  assert.match(statusExplanation(request(1, { status: 'forwarded', notices: [] })), /^Nothing to forward/);
  assert.match(statusExplanation(request(1, { status: 'failed' })), /failed for good/);
  const cases: [Partial<DeletionRequest>, string][] = [
    [{ purge: false }, 'not_asked'],
    [{ purge: true, status: 'pending' }, 'waiting'],
    [{ purge: true, status: 'failed' }, 'held'],
    [{ purge: true, status: 'forwarded', purgedAt: '2024-01-01T00:00:01.000Z' }, 'purged'],
  ];
  for (const [patch, state] of cases) {
    assert.equal(purgeState(request(1, patch)), state);
    assert.ok(purgeInWords(request(1, patch)).length > 10);
  }
  // The purge removes the deliveries made from the user's messages too, and says so.
  assert.match(purgeInWords(request(1, { purge: true, status: 'pending' })), /the deliveries made from them/);
  assert.match(purgeInWords(request(1, { purge: true, status: 'forwarded', purgedAt: '2026-01-01T00:00:00.000Z' })), /no message, delivery made from one, or profile/);
});
