/**
 * The tracking plan in the Configure store against a real engine behind a real server: the JSON
 * editor's text is saved as the plan, refusals land by field (ours for bad JSON, the engine's for
 * a schema it cannot compile), a plan saved elsewhere arrives live, and the counts follow the log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configWith, startHarness } from '../../../src-main/engine/testing/harness';
import { waitUntil } from '../../../src-main/engine/testing/wait';
import { createConfigureStore, parsePlanDraft } from './store';
import { serverTransport } from '../../testing/server-transport';
import { httpTransport } from '../../transport';

test('parsePlanDraft: empty means no plan; bad JSON or a non-object is refused on trackingPlan', () => {
  assert.deepEqual(parsePlanDraft('  \n'), { ok: true, plan: null });
  assert.deepEqual(parsePlanDraft('{"events":{}}'), { ok: true, plan: { events: {} } });
  const bad = parsePlanDraft('{"events":');
  assert.equal(bad.ok, false);
  assert.equal(!bad.ok && bad.error.field, 'trackingPlan');
  assert.match(!bad.ok ? bad.error.message : '', /is not valid JSON/);
  assert.match(JSON.stringify(parsePlanDraft('[1]')), /must be a JSON object/);
});

test('the Configure store saves, refuses and follows the tracking plan; Inbound messages carry their violations', async () => {
  const h = await startHarness(configWith('http://127.0.0.1:9/hook'));
  const transport = serverTransport(h.server.url, h.server.token);
  const configure = createConfigureStore(transport);
  const stop = configure.start();
  const s = configure.store;
  try {
    await waitUntil(() => s.getState().loaded, 'the first load');
    assert.deepEqual(s.getState().trackingPlan, { plan: null, counts: [] });
    assert.equal(s.getState().planDraft, '');

    s.getState().setPlanDraft('{"events": {"Order Completed": {"type": "object", "properties": {"total": {"type": "nonsense"}}}}}');
    assert.equal(await s.getState().savePlan(), false);
    assert.equal(s.getState().planErrors[0]?.field, 'trackingPlan.events["Order Completed"]');
    assert.match(s.getState().planErrors[0]?.message ?? '', /JSON Schema ajv can use/);
    s.getState().setPlanDraft('{"events": {"Order Completed": {"type": "object", "properties": {"total": {"type": "number"}}}}, "colour": 1}');
    assert.equal(await s.getState().savePlan(), false);
    assert.equal(s.getState().planErrors[0]?.field, 'trackingPlan.colour');
    assert.equal(h.engine.trackingPlan(), null, 'nothing refused was applied');

    s.getState().setPlanDraft('{"events": {"Order Completed": {"type": "object", "properties": {"total": {"type": "number"}}}}}');
    assert.equal(await s.getState().savePlan(), true);
    assert.equal(s.getState().planSaved, true);
    assert.deepEqual(h.engine.trackingPlan()?.events, { 'Order Completed': { type: 'object', properties: { total: { type: 'number' } } } });
    assert.match(s.getState().planDraft, /"unplannedEvents": "allow"/, 'the editor shows the plan as the engine keeps it');

    const posted = await h.post('/v1/batch', { batch: [{ type: 'track', event: 'Order Completed', userId: 'u', properties: { total: 'ten' } }] });
    assert.equal(posted.status, 200);
    await s.getState().refreshPlan();
    assert.deepEqual(s.getState().trackingPlan?.counts, [{ type: 'track', event: 'Order Completed', messages: 1, violations: 1 }]);
    const requestId = (await transport.call('listRequests')).items[0]?.id ?? 0;
    const [message] = await transport.call('messagesOf', requestId);
    assert.deepEqual(message?.violations, [{ path: '/properties/total', rule: 'type', message: 'must be number', value: 'ten' }]);

    // Removed from another window: this one hears of it live.
    await httpTransport(h.server.token, h.server.url).call('saveTrackingPlan', null);
    await waitUntil(() => s.getState().trackingPlan?.plan === null, 'the removal to arrive live');
    assert.equal(s.getState().planDraft, '');
  } finally {
    stop();
    transport.close();
    await h.close();
  }
});
