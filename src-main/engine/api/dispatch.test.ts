/**
 * The one dispatch over a real engine and SQLite file: what every transport answers for a
 * malformed request, an unknown method, bad params and a good call; and that no params, however
 * odd, get past the schemas into an implementation that then fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { API_METHODS } from '../../../src-shared/api';
import { configWith, startHarness } from '../testing/harness';
import { createEngineApi } from './index';
import { dispatchCall } from './dispatch';
import { API_PARAMS } from './params';

test('dispatchCall: 400 for a malformed request, 404 for an unknown method, 400 with fields for bad params, 200 for a good call', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  try {
    const api = createEngineApi(h.engine);
    for (const request of [null, 'listSources', [], {}, { method: 7 }]) {
      const answer = await dispatchCall(api, request);
      assert.equal(answer.status, 400, JSON.stringify(request));
      assert.equal(answer.response.ok ? null : answer.response.error.code, 'bad_request');
    }
    const unknown = await dispatchCall(api, { method: 'toString' });
    assert.equal(unknown.status, 404);
    assert.match(unknown.response.ok ? '' : unknown.response.error.message, /known: listDeliveries, /);

    const refused = await dispatchCall(api, { method: 'listDeliveries', params: { limit: 501, colour: 'red' } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.response.ok ? null : refused.response.error.fields, [
      { field: 'page.colour', message: 'is not a page field (expected status, type, url, text, replayed, violations, from, to, beforeId, afterId, limit, oldest, ids)' },
      { field: 'page.limit', message: 'must be a whole number from 1 to 500' },
    ]);

    const listed = await dispatchCall(api, { method: 'listSources' });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.response.ok ? (listed.response.result as { name: string }[]).map((s) => s.name) : listed.response.error, ['backend']);
  } finally {
    await h.close();
  }
});

test('every method has a params schema, and no params of any shape reach an implementation unchecked (never a 500)', async () => {
  assert.deepEqual(Object.keys(API_PARAMS).sort(), [...API_METHODS].sort());
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  try {
    const api = createEngineApi(h.engine);
    // Calls that would change or clear the engine on a lucky draw are left out; their params are
    // objects whose every field the schemas cover, and the tests of each view refuse them by field.
    const methods = API_METHODS.filter((m) => m !== 'clearLog' && m !== 'composeEvents');
    for (const method of methods) {
      await fc.assert(
        fc.asyncProperty(fc.anything({ withNullPrototype: true, withObjectString: true }), async (params) => {
          const answer = await dispatchCall(api, { method, params });
          assert.notEqual(answer.status, 500, `${method}(${JSON.stringify(params)}): ${JSON.stringify(answer.response)}`);
        }),
        { numRuns: 60, examples: [[undefined], [null], [{}], [[]]] },
      );
    }
  } finally {
    await h.close();
  }
});
