/**
 * The Receivers view's logic: the script rows and the receiver they make (pure), the words for an
 * answer and a verdict, and the store over a real engine through the renderer's HTTP transport
 * and the real live stream.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Destination } from '../../../src-shared/settings';
import { startHarness } from '../../../src-main/engine/testing/harness';
import { waitUntil } from '../../../src-main/engine/testing/wait';
import { serverTransport } from '../../testing/server-transport';
import { draftOf, emptyStep, inputOf, newDraft, withReceiverUrl } from './form';
import { createReceiversStore } from './store';
import { messageInWords, outcomeInWords, outcomeTone, positionInWords, verdictExplanation } from './words';

const immediately = (flush: () => void): void => void setTimeout(flush, 0);

describe('receiver form (pure)', () => {
  test('rows become steps: blanks are left out, numbers parsed, header lines split, problems named by field', () => {
    const draft = newDraft();
    draft.name = ' flaky ';
    draft.steps[2] = { ...emptyStep(), status: '', retryAfter: '5', headers: 'X-A: 1\n\nX-B:  two words ', body: 'slow', delayMs: '250' };
    assert.deepEqual(inputOf(draft), {
      input: {
        name: 'flaky',
        responses: [{ status: 500 }, { status: 500 }, { retryAfter: 5, headers: { 'X-A': '1', 'X-B': 'two words' }, body: 'slow', delayMs: 250 }],
        per: 'receiver',
      },
      errors: [],
    });
    draft.steps[0] = { ...emptyStep(), status: 'abc', headers: 'no colon here' };
    assert.deepEqual(
      inputOf(draft).errors.map((e) => e.field),
      ['receiver.responses[0].headers', 'receiver.responses[0].status'],
    );
    const round = draftOf({
      ...inputOf({ ...newDraft(), name: 'x', per: 'message' }).input,
      per: 'message',
      id: 1,
      nextStep: 0,
      sinceReset: 0,
      requests: 0,
      httpUrl: null,
      httpsUrl: null,
      updatedAt: '',
    });
    assert.deepEqual(inputOf(round).input.responses, [{ status: 500 }, { status: 500 }, { status: 200 }]);
    assert.equal(inputOf(round).input.per, 'message', 'what the script counts comes back into the form and goes out with it');
  });

  test('Add to destination appends the URL as one more entry, and does nothing when it is there already', () => {
    const d: Destination = { id: 1, name: 'D', enabled: false, sources: ['s'], sharedSecret: 'k', signing: 'x-signature', warp: 1, createdAt: '', webhooks: [{ url: 'http://a/', headers: { 'X-T': '1' } }] };
    assert.deepEqual(withReceiverUrl(d, 'http://127.0.0.1:4545/receivers/flaky'), {
      name: 'D',
      enabled: false,
      sources: ['s'],
      sharedSecret: 'k',
      signing: 'x-signature',
      webhooks: [
        { url: 'http://a/', headers: { 'X-T': '1' } },
        { url: 'http://127.0.0.1:4545/receivers/flaky', headers: {} },
      ],
    });
    assert.equal(withReceiverUrl(d, 'http://a/'), null);
  });

  test('answers and verdicts in words', () => {
    assert.equal(outcomeInWords({ outcome: 'answered', status: 503 }), '503');
    assert.equal(outcomeInWords({ outcome: 'hung', status: null }), 'hung until the sender gave up');
    assert.equal(outcomeTone({ outcome: 'answered', status: 204 }), 'succeeded');
    assert.equal(outcomeTone({ outcome: 'answered', status: 429 }), 'retrying');
    assert.equal(outcomeTone({ outcome: 'reset', status: null }), 'failed');
    const verdict = (state: 'valid' | 'mismatch', sent: string | null) => ({ destination: 'D', url: 'u', scheme: 'x-signature', check: { state, expected: null, sent, explanation: '' } });
    assert.match(verdictExplanation(verdict('mismatch', null)), /carries no signature, but destination “D” has a shared secret/);
    assert.match(verdictExplanation(verdict('mismatch', 'ab')), /is not what the shared secret of destination “D” makes of the received bytes/);
    assert.equal(messageInWords({ messageKey: 'm-123', messageTry: 2 }), 'm-123 · try 2');
    assert.equal(messageInWords({ messageKey: null, messageTry: null }), null);
    assert.equal(positionInWords({ per: 'receiver', nextStep: 2, sinceReset: 2 }, '200'), 'next request gets step 3 (200); 2 requests since the last reset');
    assert.match(positionInWords({ per: 'message', nextStep: 1, sinceReset: 1 }, '500'), /^each message starts at step 1; a request without a message key gets step 2 \(500\); 1 request since/);
  });
});

test('the store over a real engine: saving a script, the requests arriving live, Reset, a refusal by field', async () => {
  const h = await startHarness({ sources: [], destinations: [] });
  const transport = serverTransport(h.server.url, h.server.token);
  const receivers = createReceiversStore(transport, immediately);
  const stop = receivers.start();
  const s = receivers.store;
  try {
    await waitUntil(() => s.getState().loaded, 'the first load');
    s.getState().newReceiver();
    s.getState().setName('seq');
    s.getState().setStep(0, { status: '201' });
    s.getState().removeStep(1);
    assert.equal(await s.getState().save(), true);
    assert.equal(s.getState().selected, 'seq');
    assert.deepEqual(s.getState().receivers.map((r) => [r.name, r.httpUrl]), [['seq', `${h.server.url}/receivers/seq`]]);

    assert.equal((await fetch(`${h.server.url}/receivers/seq`, { method: 'POST', body: 'a' })).status, 201);
    assert.equal((await fetch(`${h.server.url}/receivers/seq`, { method: 'POST', body: 'b' })).status, 200);
    await waitUntil(() => s.getState().requests.length === 2 && s.getState().requests.every((r) => r.outcome === 'answered'), 'both requests live');
    assert.deepEqual(s.getState().requests.map((r) => [r.step, r.status]), [[1, 200], [0, 201]]);
    const newest = s.getState().requests[0]!;
    await s.getState().toggle(newest.id);
    const opened = s.getState().opened[newest.id];
    assert.ok(opened && opened !== 'loading');
    assert.equal(opened.bodyText, 'b');

    await s.getState().reset();
    assert.equal(s.getState().receivers[0]?.nextStep, 0);
    assert.equal((await fetch(`${h.server.url}/receivers/seq`, { method: 'POST' })).status, 201);

    s.getState().setPer('message');
    assert.equal(await s.getState().save(), true);
    assert.equal(s.getState().receivers[0]?.per, 'message', 'what the script counts is saved');
    assert.equal(s.getState().draft.per, 'message');
    await fetch(`${h.server.url}/receivers/seq`, { method: 'POST', body: '{"messageId":"m-1"}' });
    await waitUntil(() => s.getState().requests.find((r) => r.messageKey === 'm-1' && r.outcome === 'answered'), 'the keyed request live');
    assert.deepEqual(
      s.getState().requests.filter((r) => r.messageKey === 'm-1').map((r) => [r.messageTry, r.status]),
      [[1, 201]],
      'changing only per started the script over',
    );

    s.getState().setStep(0, { status: '99' });
    assert.equal(await s.getState().save(), false);
    assert.deepEqual(s.getState().errors.map((e) => e.field), ['receiver.responses[0].status']);
  } finally {
    stop();
    transport.close();
    await h.close();
  }
});
