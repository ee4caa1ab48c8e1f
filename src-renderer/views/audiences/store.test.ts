/**
 * The Audiences store's own rules over a small in-memory engine behind the Transport interface:
 * refusals ours before sending and the engine's by field, the engine's key after a save, a stale
 * preview dropped, live events coalesced and only acted on when they concern what is on screen,
 * and profile searches where only the newest answer counts. (The real engine behind the real
 * server is exercised end to end in e2e/audiences.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiMethod, DeliverySummary } from '../../../src-shared/api';
import type { AudienceInput, Computation, PreviewResult, ProfileView, SyncSummary } from '../../../src-shared/personas';
import { scriptedTransport } from '../../testing/transport';
import { ApiCallError } from '../../transport';
import { summaryFixture } from '../../testing/summary';
import { createAudiencesStore, LINKS_PER_SYNC, PROFILES_EVERY_MS, shownDeliveryIds } from './store';
import { computationFixture } from '../../testing/computation';

interface Gate {
  wait(): Promise<void>;
  release(): void;
}
function gate(): Gate {
  const waiting: (() => void)[] = [];
  return {
    wait: () => new Promise<void>((resolve) => waiting.push(resolve)),
    release: () => waiting.shift()?.(),
  };
}

const profile = (id: string): ProfileView => ({ profileId: id, userId: id, aliases: [], traits: {}, events: [], computed: {}, updatedAt: '2024-01-01T00:00:00.000Z' });

function sync(id: number, computationId: number, deliveryIds: number[], kind: SyncSummary['kind'] = 'incremental'): SyncSummary {
  return { id, computationId, kind, startedAt: '2024-01-01T00:00:00.000Z', entered: deliveryIds.length, exited: 0, changed: 0, sent: deliveryIds.length, deliveryIds, deliveries: deliveryIds.length, requestId: 1 };
}

/** A small engine: saves by name, a sync per save / sync-now, three deliveries per sync. */
function fakeEngine() {
  const computations: Computation[] = [];
  const syncs: SyncSummary[] = [];
  let nextDelivery = 1;
  const gates: Partial<Record<ApiMethod, Gate>> = {};
  let refuseSave: ApiCallError | null = null;
  let previewTotal = 2;
  const profiles = [profile('ada'), profile('bob'), profile('cyd')];

  const newSync = (computationId: number, kind: SyncSummary['kind']): SyncSummary => {
    const s = sync(syncs.length + 1, computationId, [nextDelivery++, nextDelivery++], kind);
    syncs.push(s);
    return s;
  };

  async function answer(method: ApiMethod, params?: unknown): Promise<unknown> {
    await gates[method]?.wait();
    switch (method) {
      case 'listComputations':
        return structuredClone(computations);
      case 'listSources':
        return [{ id: 1, name: 'backend', writeKey: 'wk' }, { id: 2, name: 'other', writeKey: 'wk2' }];
      case 'saveAudience': {
        if (refuseSave) throw refuseSave;
        const input = params as AudienceInput;
        const existing = computations.find((c) => c.name === input.name);
        if (existing) return existing;
        const c: Computation = {
          id: computations.length + 1,
          class: 'audience',
          name: input.name,
          // The engine's key, deliberately not what the preview would guess.
          key: `engine_${input.name.length}`,
          space: input.space,
          syncEveryMinutes: input.syncEveryMinutes,
          condition: input.condition,
          rule: null,
          createdAt: '2024-01-01T00:00:00.000Z',
          size: 2,
          lastSync: null,
          nextSyncAt: null,
          syncing: null,
        };
        c.lastSync = newSync(c.id, 'initial');
        computations.push(c);
        return c;
      }
      case 'previewComputation': {
        const result: PreviewResult = { total: previewTotal, members: [] };
        return result;
      }
      case 'syncComputation':
        return newSync(params as number, 'incremental');
      case 'listSyncs':
        return syncs.filter((s) => s.computationId === params).sort((a, b) => b.id - a.id);
      case 'deleteComputation': {
        const at = computations.findIndex((c) => c.id === params);
        if (at === -1) throw new ApiCallError('not_found', `no computation ${String(params)}`);
        computations.splice(at, 1);
        return undefined;
      }
      case 'getDeliverySummaries':
        return (params as number[]).map((id): DeliverySummary => summaryFixture(id, { status: 'succeeded' }));
      case 'listProfiles': {
        const text = (params as { text?: string }).text ?? '';
        return { items: profiles.filter((p) => p.profileId.includes(text)), next: null };
      }
      case 'getProfile':
        return profiles.find((p) => p.profileId === params) ?? null;
      default:
        throw new Error(`unexpected ${method}`);
    }
  }
  const scripted = scriptedTransport(answer);

  return {
    ...scripted,
    computations,
    gates,
    refuse(err: ApiCallError | null) {
      refuseSave = err;
    },
    setPreviewTotal(n: number) {
      previewTotal = n;
    },
  };
}

/** Runs the coalesced live refetch when the test says the frame is over. */
function frames() {
  const queued: (() => void)[] = [];
  return {
    schedule: (flush: () => void) => void queued.push(flush),
    run() {
      for (const f of queued.splice(0)) f();
    },
    get pending() {
      return queued.length;
    },
  };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

async function setUp() {
  const engine = fakeEngine();
  const frame = frames();
  const clock = { now: 0, timers: [] as { at: number; fn: () => void }[] };
  const personas = createAudiencesStore(engine.transport, {
    schedule: frame.schedule,
    now: () => clock.now,
    later: (fn, ms) => void clock.timers.push({ at: clock.now + ms, fn }),
  });
  const stop = personas.start();
  await settle();
  /** Moves the injected clock on and runs the timers that fall due. */
  const advance = (ms: number): void => {
    clock.now += ms;
    const due = clock.timers.filter((t) => t.at <= clock.now);
    clock.timers = clock.timers.filter((t) => t.at > clock.now);
    for (const t of due) t.fn();
  };
  return { engine, frame, s: personas.store, stop, advance };
}

function fillHighValuePro(s: Awaited<ReturnType<typeof setUp>>['s']): void {
  s.getState().newAudience();
  s.getState().update({ name: 'High Value Pro' });
  s.getState().updateRow(0, { event: 'Order Completed', atLeast: '2', withinDays: '30' });
  s.getState().addRow();
  s.getState().updateRow(1, { trait: 'plan', op: 'equals', value: 'pro' });
}

test('start loads computations, sources and profiles; a new audience lives in the first source', async () => {
  const { engine, s } = await setUp();
  assert.deepEqual(engine.take().sort(), ['listComputations', 'listProfiles {"text":"","limit":50}', 'listSources']);
  assert.equal(s.getState().loaded, true);
  assert.deepEqual(s.getState().profiles.items.map((p) => p.profileId), ['ada', 'bob', 'cyd']);
  s.getState().newAudience();
  assert.equal(s.getState().editor?.form.space, 'backend');
  s.getState().addRow();
  const form = s.getState().editor?.form;
  assert.ok(form?.class === 'audience');
  assert.deepEqual(form.rows.map((r) => r.kind), ['event', 'trait'], 'after an event row, the next one is a trait row');
});

test('save: our refusals before sending, nothing sent', async () => {
  const { engine, s } = await setUp();
  engine.take();
  s.getState().newAudience();
  assert.equal(await s.getState().save(), false);
  assert.deepEqual(s.getState().editor?.errors.map((e) => e.field), ['name', 'condition.event']);
  assert.deepEqual(engine.take(), []);
  s.getState().update({ name: 'x' });
  assert.deepEqual(s.getState().editor?.errors, [], 'editing clears the refusal');
});

test('save: the engine\'s refusal stays by field with the form open; then a save shows the engine\'s key and its initial sync', async () => {
  const { engine, s } = await setUp();
  fillHighValuePro(s);
  engine.refuse(new ApiCallError('validation_failed', 'audience.name: is already used', [{ field: 'audience.name', message: 'is already used by a computed trait' }]));
  assert.equal(await s.getState().save(), false);
  assert.deepEqual(s.getState().editor?.errors, [{ field: 'audience.name', message: 'is already used by a computed trait' }]);
  assert.equal(s.getState().editor?.saving, false);

  engine.refuse(new ApiCallError('internal', 'disk full'));
  assert.equal(await s.getState().save(), false);
  assert.deepEqual(s.getState().editor?.errors, [{ field: 'general', message: 'disk full' }], 'a refusal without fields is shown whole');

  engine.refuse(null);
  engine.take();
  assert.equal(await s.getState().save(), true);
  assert.deepEqual(engine.take()[0], `saveAudience ${JSON.stringify({
    name: 'High Value Pro',
    space: 'backend',
    syncEveryMinutes: null,
    condition: { kind: 'and', all: [{ kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] },
  })}`);
  await settle();
  const state = s.getState();
  assert.equal(state.editor, null);
  assert.equal(state.selectedId, 1);
  assert.deepEqual(state.saved, { id: 1, name: 'High Value Pro', key: 'engine_14', created: true, sync: engine.computations[0]?.lastSync, running: false });
  assert.deepEqual(state.syncs.map((o) => [o.id, o.kind]), [[1, 'initial']]);
  assert.deepEqual(state.deliveryStatus, { 1: 'succeeded', 2: 'succeeded' }, 'the statuses of the deliveries the sync caused');
});

test('save of a long first sync: the editor closes once the engine lists the new audience, the detail shows the sync running, then its result', async () => {
  const { engine, frame, s } = await setUp();
  fillHighValuePro(s);
  const held = gate();
  engine.gates.saveAudience = held;
  const saving = s.getState().save();
  await settle();
  assert.equal(s.getState().editor?.saving, true);
  // The engine has stored it and runs its first sync: the list (live) shows it with its progress.
  engine.computations.push(computationFixture({ key: 'engine_14', syncing: { entered: 500, exited: 0, changed: 0, sent: 500 } }));
  engine.emit({ type: 'computations', ids: [1] });
  frame.run();
  assert.equal(await saving, true, 'saved, while the sync runs on');
  assert.equal(s.getState().editor, null);
  assert.equal(s.getState().selectedId, 1);
  assert.deepEqual(s.getState().saved, { id: 1, name: 'High Value Pro', key: 'engine_14', created: true, sync: null, running: true });
  // The sync ends: the engine answers the save with it.
  const done = engine.computations[0]!;
  done.syncing = null;
  done.lastSync = sync(7, 1, [1, 2], 'initial');
  held.release();
  await settle();
  await settle();
  assert.deepEqual(s.getState().saved, { id: 1, name: 'High Value Pro', key: 'engine_14', created: true, sync: done.lastSync, running: false });
});

test('preview: sends only the definition; an invalid row is refused first; an answer for a since-changed form is dropped', async () => {
  const { engine, s } = await setUp();
  s.getState().newAudience();
  engine.take();
  await s.getState().preview();
  assert.deepEqual(s.getState().editor?.errors.map((e) => e.field), ['condition.event']);
  assert.deepEqual(engine.take(), []);

  fillHighValuePro(s);
  await s.getState().preview();
  assert.deepEqual(engine.take(), [
    `previewComputation ${JSON.stringify({ condition: { kind: 'and', all: [{ kind: 'event', event: 'Order Completed', atLeast: 2, withinDays: 30 }, { kind: 'trait', trait: 'plan', op: 'equals', value: 'pro' }] } })}`,
  ]);
  assert.equal(s.getState().editor?.preview?.total, 2);
  s.getState().update({ name: 'Renamed' });
  assert.equal(s.getState().editor?.preview?.total, 2, 'the name does not change who is in');

  const held = gate();
  engine.gates.previewComputation = held;
  engine.setPreviewTotal(7);
  const asked = s.getState().preview();
  await settle();
  assert.equal(s.getState().editor?.previewing, true);
  s.getState().updateRow(1, { value: 'free' });
  assert.equal(s.getState().editor?.preview, null, 'a changed condition drops the old preview');
  assert.equal(s.getState().editor?.previewing, false);
  held.release();
  await asked;
  assert.equal(s.getState().editor?.preview, null, 'the answer was for the old condition');
});

test('live: computations events refetch the list and the selected one\'s syncs, once per frame; delivery events only when they concern links on screen', async () => {
  const { engine, frame, s, advance } = await setUp();
  fillHighValuePro(s);
  await s.getState().save();
  await settle();
  engine.take();

  engine.emit({ type: 'computations', ids: [1] });
  engine.emit({ type: 'computations', ids: [1] });
  engine.emit({ type: 'requests', ids: [5] });
  assert.equal(frame.pending, 1, 'one flush for the frame');
  frame.run();
  await settle();
  assert.deepEqual(engine.take().sort(), ['getDeliverySummaries [1,2]', 'listComputations', 'listProfiles {"text":"","limit":50}', 'listSyncs 1']);

  advance(PROFILES_EVERY_MS);
  engine.emit({ type: 'computations', ids: [99] });
  frame.run();
  await settle();
  assert.deepEqual(engine.take().sort(), ['listComputations', 'listProfiles {"text":"","limit":50}'], 'another computation: the selected one\'s syncs stay');

  engine.emit({ type: 'deliveries', ids: [40, 41] });
  assert.equal(frame.pending, 0, 'deliveries not linked from a sync on screen are ignored');
  engine.emit({ type: 'deliveries', ids: [2] });
  frame.run();
  await settle();
  assert.deepEqual(engine.take(), ['getDeliverySummaries [1,2]']);

  engine.state('reconnecting');
  engine.state('connected');
  frame.run();
  await settle();
  assert.ok(engine.take().includes('listComputations'), 'a reconnect refetches what may have been missed');
});

test('live: under a stream of ingest calls the profiles refetch at most once a second, and the last change is never lost', async () => {
  const { engine, frame, advance } = await setUp();
  engine.take();
  const profileCalls = (): number => engine.take().filter((c) => c.startsWith('listProfiles')).length;
  engine.emit({ type: 'requests', ids: [1] });
  frame.run();
  await settle();
  assert.equal(profileCalls(), 1, 'the first change refetches at once');
  for (let i = 0; i < 5; i++) {
    advance(100);
    engine.emit({ type: 'requests', ids: [2 + i] });
    frame.run();
    await settle();
  }
  assert.equal(profileCalls(), 0, 'within the second: held');
  advance(500);
  await settle();
  assert.equal(profileCalls(), 1, 'one refetch for the held changes, a second after the last');
  advance(5000);
  await settle();
  assert.equal(profileCalls(), 0, 'and nothing more without a change');
});

test('sync now adds the new sync on top; delete deselects; an undeletable answer is said in words', async () => {
  const { engine, s } = await setUp();
  fillHighValuePro(s);
  await s.getState().save();
  await settle();
  assert.equal(s.getState().saved?.id, 1, 'the save says what its first sync did');
  await s.getState().syncNow(1);
  await settle();
  assert.equal(s.getState().saved, null, 'and no longer once another sync ran');
  assert.deepEqual(s.getState().syncs.map((o) => [o.id, o.kind]), [[2, 'incremental'], [1, 'initial']]);
  assert.equal(s.getState().syncing, false);
  assert.deepEqual(Object.keys(s.getState().deliveryStatus).map(Number).sort((a, b) => a - b), [1, 2, 3, 4]);

  await s.getState().remove(1);
  assert.equal(s.getState().selectedId, null);
  assert.deepEqual(s.getState().computations, []);
  assert.deepEqual(s.getState().syncs, []);
  assert.equal(engine.computations.length, 0);

  await s.getState().remove(1);
  assert.match(s.getState().error ?? '', /^Not deleted: /);
});

test('edit: a saved audience opens in the form; a nested one is refused in words', async () => {
  const { engine, s } = await setUp();
  fillHighValuePro(s);
  await s.getState().save();
  s.getState().edit(1);
  const form = s.getState().editor?.form;
  assert.ok(form?.class === 'audience' && s.getState().editor?.editing);
  assert.deepEqual(form.rows.map((r) => r.kind), ['event', 'trait']);
  assert.equal(form.rows[1]?.value, 'pro');

  const c = engine.computations[0];
  assert.ok(c);
  c.condition = { kind: 'and', all: [{ kind: 'or', any: [{ kind: 'trait', trait: 'a', op: 'exists' }] }] };
  engine.emit({ type: 'computations', ids: [1] });
  s.getState().closeEditor();
  await new Promise((resolve) => setTimeout(resolve, 30));
  s.getState().edit(1);
  assert.equal(s.getState().editor, null);
  assert.match(s.getState().error ?? '', /cannot be edited here/);
});

test('profiles: only the newest search\'s answer is kept; an open profile is fetched whole', async () => {
  const { engine, s } = await setUp();
  const slow = gate();
  engine.gates.listProfiles = slow;
  s.getState().searchProfiles('a');
  s.getState().searchProfiles('bo');
  await settle();
  slow.release();
  slow.release();
  await settle();
  delete engine.gates.listProfiles;
  assert.deepEqual(s.getState().profiles.items.map((p) => p.profileId), ['bob']);
  assert.equal(s.getState().profiles.text, 'bo');

  engine.take();
  s.getState().openProfile('bob');
  assert.equal(s.getState().profiles.open?.profileId, 'bob', 'shown at once from the list');
  await settle();
  assert.deepEqual(engine.take(), ['getProfile "bob"']);
  s.getState().openProfile('zed');
  await settle();
  assert.equal(s.getState().profiles.missing, true);
});

test('shownDeliveryIds: the first links of each sync, once each', () => {
  const many = Array.from({ length: 30 }, (_x, i) => i + 1);
  const ids = shownDeliveryIds([sync(2, 1, many), sync(1, 1, [1, 2, 100])]);
  assert.deepEqual(ids, [...many.slice(0, LINKS_PER_SYNC), 100]);
});
