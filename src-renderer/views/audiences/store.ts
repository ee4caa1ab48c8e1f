/**
 * The Audiences view's state: the computations (audiences and computed traits) kept live by
 * `computations` events; the selected one's sync history and the status of the deliveries those
 * syncs caused (kept live by `deliveries` events); the define form with its preview and refusals
 * (ours first, then the engine's, by field path); and the Profiles panel's search and open profile.
 * Kept per transport, so switching tabs does not lose a half-made definition.
 */
import { createStore } from 'zustand/vanilla';
import { MAX_PAGE_LIMIT, type DeliveryStatus, type LiveEvent } from '../../../src-shared/api';
import type { Computation, PreviewResult, ProfilesCatchingUp, ProfileView, SyncSummary } from '../../../src-shared/personas';
import type { FieldError, Source } from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { refusalOf } from '../../api-error';
import { batcher, followLive, messageOf, perFrame, type Schedule, type ViewStore } from '../../shared/live-store';
import {
  buildCondition,
  buildInput,
  buildRule,
  emptyAudience,
  emptyRow,
  emptyTrait,
  formOf,
  type AudienceForm,
  type Combine,
  type ComputationForm,
  type ConditionRow,
  type TraitForm,
} from './form';

/** Delivery links shown per sync; the rest are counted. */
export const LINKS_PER_SYNC = 12;
export const PROFILE_PAGE = 50;

export interface Editor {
  form: ComputationForm;
  /** Replacing a saved definition (by its name) rather than creating one. */
  editing: boolean;
  errors: FieldError[];
  preview: PreviewResult | null;
  previewing: boolean;
  saving: boolean;
}

/** What the last save did, shown until another definition is opened (a readiness marker too). */
export interface Saved {
  id: number;
  name: string;
  key: string;
  created: boolean;
  sync: SyncSummary | null;
  /** Created, its first sync still running: the editor closed once the engine had stored it. */
  running: boolean;
}

export interface ProfilesState {
  text: string;
  items: ProfileView[];
  next: string | null;
  loaded: boolean;
  error: string | null;
  openId: string | null;
  open: ProfileView | null;
  /** The open profile is gone (purged, merged). */
  missing: boolean;
  /** While the engine still reads a log kept before profiles followed each commit: how far it is. */
  catchingUp: ProfilesCatchingUp | null;
}

export interface AudiencesState {
  loaded: boolean;
  /** A failed load or action, in plain words. */
  error: string | null;
  sources: Source[];
  sourcesLoaded: boolean;
  computations: Computation[];
  selectedId: number | null;
  /** Sync history of the selected computation, newest first. */
  syncs: SyncSummary[];
  syncsOf: number | null;
  deliveryStatus: Record<number, DeliveryStatus>;
  syncing: boolean;
  editor: Editor | null;
  saved: Saved | null;
  profiles: ProfilesState;

  select(id: number | null): void;
  newAudience(): void;
  newTrait(): void;
  edit(id: number): void;
  closeEditor(): void;
  /** Name, space and interval, or the trait's rule fields. */
  update(patch: Partial<AudienceForm> | Partial<TraitForm>): void;
  updateRow(index: number, patch: Partial<ConditionRow>): void;
  addRow(): void;
  removeRow(index: number): void;
  setCombine(combine: Combine): void;
  preview(): Promise<void>;
  save(): Promise<boolean>;
  syncNow(id: number): Promise<void>;
  remove(id: number): Promise<void>;
  searchProfiles(text: string): void;
  moreProfiles(): Promise<void>;
  openProfile(profileId: string | null): void;
}


/** Definition changes make a preview stale; name, space and interval do not. */
const PREVIEW_NEUTRAL = new Set(['name', 'space', 'syncEveryMinutes']);

/** Delivery ids linked from the syncs on screen (the first LINKS_PER_SYNC of each), at most MAX_PAGE_LIMIT. */
export function shownDeliveryIds(syncs: readonly SyncSummary[]): number[] {
  const ids = syncs.flatMap((s) => s.deliveryIds.slice(0, LINKS_PER_SYNC));
  return [...new Set(ids)].slice(0, MAX_PAGE_LIMIT);
}

/** Loads everything and follows live events until stopped. */
export type AudiencesStore = ViewStore<AudiencesState>;

/** Profiles change with every call the ingest takes; under load the panel refetches at most this often. */
export const PROFILES_EVERY_MS = 1000;

export interface AudiencesTiming {
  /** Runs the coalesced refetch (default: the next animation frame). */
  schedule: Schedule;
  now: () => number;
  /** Runs fn after ms (default: setTimeout). */
  later: (fn: () => void, ms: number) => void;
}

const realTiming: AudiencesTiming = { schedule: perFrame, now: () => Date.now(), later: (fn, ms) => void setTimeout(fn, ms) };

export function createAudiencesStore(transport: Transport, timing: Partial<AudiencesTiming> = {}): AudiencesStore {
  const { schedule, now, later } = { ...realTiming, ...timing };
  /** Profile searches answer out of order; only the newest one's answer is kept. */
  let searchSeq = 0;

  /** Resolves with the computation of this name once the list holds it with a sync running (see save). */
  const whenListed = (name: string, cls: Computation['class']): { promise: Promise<Computation>; cancel(): void } => {
    let stop = (): void => {};
    const promise = new Promise<Computation>((resolve) => {
      stop = store.subscribe((s) => {
        const c = s.computations.find((o) => o.name === name && o.class === cls && o.syncing !== null);
        if (c) {
          stop();
          resolve(c);
        }
      });
    });
    return { promise, cancel: () => stop() };
  };

  const store = createStore<AudiencesState>()((set, get) => {
    const setEditor = (patch: Partial<Editor>): void => {
      const editor = get().editor;
      if (editor) set({ editor: { ...editor, ...patch } });
    };
    const changeForm = (form: ComputationForm, keys: readonly string[]): void => {
      const editor = get().editor;
      if (!editor) return;
      const stale = keys.some((k) => !PREVIEW_NEUTRAL.has(k));
      set({ editor: { ...editor, form, errors: [], preview: stale ? null : editor.preview, previewing: stale ? false : editor.previewing } });
    };
    const changeRows = (rows: ConditionRow[]): void => {
      const form = get().editor?.form;
      if (form?.class === 'audience') changeForm({ ...form, rows }, ['rows']);
    };
    const firstSpace = (): string => get().sources[0]?.name ?? '';
    return {
      loaded: false,
      error: null,
      sources: [],
      sourcesLoaded: false,
      computations: [],
      selectedId: null,
      syncs: [],
      syncsOf: null,
      deliveryStatus: {},
      syncing: false,
      editor: null,
      saved: null,
      profiles: { text: '', items: [], next: null, loaded: false, error: null, openId: null, open: null, missing: false, catchingUp: null },

      select(id) {
        const same = id === get().syncsOf;
        set({ selectedId: id, editor: null, saved: get().saved?.id === id ? get().saved : null, ...(same ? {} : { syncs: [], syncsOf: null }) });
        if (id !== null) void loadSyncs(id);
      },
      newAudience() {
        set({ editor: { form: emptyAudience(firstSpace()), editing: false, errors: [], preview: null, previewing: false, saving: false }, saved: null, selectedId: null });
      },
      newTrait() {
        set({ editor: { form: emptyTrait(firstSpace()), editing: false, errors: [], preview: null, previewing: false, saving: false }, saved: null, selectedId: null });
      },
      edit(id) {
        const c = get().computations.find((o) => o.id === id);
        if (!c) return;
        const editable = formOf(c);
        if (!editable.ok) {
          set({ error: `“${c.name}” cannot be edited here: ${editable.problem}` });
          return;
        }
        set({ editor: { form: editable.form, editing: true, errors: [], preview: null, previewing: false, saving: false }, saved: null });
      },
      closeEditor() {
        set({ editor: null });
      },
      update(patch) {
        const form = get().editor?.form;
        if (!form) return;
        changeForm({ ...form, ...patch } as ComputationForm, Object.keys(patch));
      },
      updateRow(index, patch) {
        const form = get().editor?.form;
        if (form?.class !== 'audience') return;
        changeRows(form.rows.map((r, i) => (i === index ? { ...r, ...patch } : r)));
      },
      addRow() {
        const form = get().editor?.form;
        if (form?.class !== 'audience') return;
        changeRows([...form.rows, emptyRow(form.rows.some((r) => r.kind === 'event') ? 'trait' : 'event')]);
      },
      removeRow(index) {
        const form = get().editor?.form;
        if (form?.class !== 'audience') return;
        changeRows(form.rows.filter((_r, i) => i !== index));
      },
      setCombine(combine) {
        const form = get().editor?.form;
        if (form?.class === 'audience') changeForm({ ...form, combine }, ['combine']);
      },
      async preview() {
        const editor = get().editor;
        if (!editor) return;
        const form = editor.form;
        // Only the definition matters for a preview: a missing name or space does not stop it.
        const built = form.class === 'audience' ? buildCondition(form.rows, form.combine) : buildRule(form);
        if (!built.ok) {
          setEditor({ errors: built.errors, preview: null });
          return;
        }
        setEditor({ previewing: true, errors: [] });
        try {
          const preview = await transport.call('previewComputation', 'condition' in built ? { condition: built.condition } : { rule: built.rule });
          // An answer for a form since changed would show the members of another definition.
          if (get().editor?.form === form) setEditor({ preview, previewing: false });
        } catch (err) {
          if (get().editor?.form === form) setEditor({ previewing: false, errors: refusalOf(err) });
        }
      },
      async save() {
        const editor = get().editor;
        if (!editor || editor.saving) return false;
        const built = buildInput(editor.form);
        if (!built.ok) {
          setEditor({ errors: built.errors });
          return false;
        }
        setEditor({ saving: true, errors: [] });
        const existed = get().computations.some((c) => c.name === built.input.name && c.class === built.class);
        const call = built.class === 'audience' ? transport.call('saveAudience', built.input) : transport.call('saveComputedTrait', built.input);
        const done = (saved: Computation): void => {
          const shown = get().saved;
          set({
            computations: upsert(get().computations, saved),
            ...(shown === null || shown.id === saved.id
              ? { saved: { id: saved.id, name: saved.name, key: saved.key, created: !existed, sync: saved.lastSync, running: false } }
              : {}),
            syncsOf: saved.id === get().syncsOf ? get().syncsOf : null,
          });
          void loadSyncs(saved.id);
        };
        // The engine answers once the first sync has sent every member (minutes for 50,000), but
        // lists a new computation as soon as it is stored: the editor closes then, and the
        // detail shows the sync's progress until it answers.
        const listed = existed ? null : whenListed(built.input.name, built.class);
        try {
          const first = await Promise.race([call.then((saved) => ({ saved })), ...(listed ? [listed.promise.then((c) => ({ listed: c }))] : [])]);
          listed?.cancel();
          if ('listed' in first) {
            const c = first.listed;
            set({ editor: null, selectedId: c.id, saved: { id: c.id, name: c.name, key: c.key, created: true, sync: null, running: true } });
            call.then(done, (err: unknown) => {
              const shown = get().saved;
              set({ error: `The first sync of “${c.name}” stopped: ${messageOf(err)}`, ...(shown?.id === c.id ? { saved: { ...shown, running: false } } : {}) });
            });
            return true;
          }
          set({ editor: null, selectedId: first.saved.id });
          done(first.saved);
          return true;
        } catch (err) {
          listed?.cancel();
          setEditor({ saving: false, errors: refusalOf(err) });
          return false;
        }
      },
      async syncNow(id) {
        if (get().syncing) return;
        set({ syncing: true, error: null });
        try {
          const sync = await transport.call('syncComputation', id);
          if (get().syncsOf === id) set({ syncs: upsertSync(get().syncs, sync) });
          // The "Created…" notice spoke of the first sync; this one's result is the history's new top row.
          set({ syncing: false, ...(get().saved?.id === id ? { saved: null } : {}) });
          void loadComputations();
          void loadStatuses();
        } catch (err) {
          set({ syncing: false, error: `Sync failed: ${messageOf(err)}` });
        }
      },
      async remove(id) {
        try {
          await transport.call('deleteComputation', id);
          set({
            computations: get().computations.filter((c) => c.id !== id),
            ...(get().selectedId === id ? { selectedId: null, syncs: [], syncsOf: null, saved: null } : {}),
          });
        } catch (err) {
          set({ error: `Not deleted: ${messageOf(err)}` });
        }
      },
      searchProfiles(text) {
        set({ profiles: { ...get().profiles, text } });
        void loadProfiles();
      },
      async moreProfiles() {
        const { text, next } = get().profiles;
        if (next === null) return;
        const seq = searchSeq;
        try {
          const page = await transport.call('listProfiles', { text, limit: PROFILE_PAGE, after: next });
          if (seq !== searchSeq) return;
          const profiles = get().profiles;
          set({ profiles: { ...profiles, items: [...profiles.items, ...page.items.filter((p) => !profiles.items.some((o) => o.profileId === p.profileId))], next: page.next } });
        } catch (err) {
          set({ profiles: { ...get().profiles, error: messageOf(err) } });
        }
      },
      openProfile(profileId) {
        const known = get().profiles.items.find((p) => p.profileId === profileId) ?? null;
        set({ profiles: { ...get().profiles, openId: profileId, open: known, missing: false } });
        if (profileId !== null) void loadProfile(profileId);
      },
    };
  });

  const fail = (err: unknown): void => store.setState({ error: messageOf(err) });

  async function loadComputations(): Promise<void> {
    try {
      const computations = await transport.call('listComputations');
      const { selectedId } = store.getState();
      const gone = selectedId !== null && !computations.some((c) => c.id === selectedId);
      store.setState({
        computations,
        loaded: true,
        error: null,
        ...(gone ? { selectedId: null, syncs: [], syncsOf: null, saved: null } : {}),
      });
    } catch (err) {
      store.setState({ loaded: true });
      fail(err);
    }
  }

  async function loadSyncs(id: number): Promise<void> {
    try {
      const syncs = await transport.call('listSyncs', id);
      if (store.getState().selectedId !== id) return;
      store.setState({ syncs, syncsOf: id });
      await loadStatuses();
    } catch (err) {
      fail(err);
    }
  }

  async function loadStatuses(): Promise<void> {
    const ids = shownDeliveryIds(store.getState().syncs);
    if (ids.length === 0) return;
    try {
      const summaries = await transport.call('getDeliverySummaries', ids);
      const deliveryStatus = { ...store.getState().deliveryStatus };
      for (const s of summaries) deliveryStatus[s.id] = s.status;
      store.setState({ deliveryStatus });
    } catch (err) {
      fail(err);
    }
  }

  async function loadSources(): Promise<void> {
    try {
      const sources = await transport.call('listSources');
      const editor = store.getState().editor;
      // A form waiting for its first source gets it as soon as one exists.
      const fixSpace = editor && editor.form.space === '' && sources[0] ? { editor: { ...editor, form: { ...editor.form, space: sources[0].name } } } : {};
      store.setState({ sources, sourcesLoaded: true, ...fixSpace });
    } catch (err) {
      store.setState({ sourcesLoaded: true });
      fail(err);
    }
  }

  async function loadProfiles(): Promise<void> {
    const seq = ++searchSeq;
    const text = store.getState().profiles.text;
    try {
      const page = await transport.call('listProfiles', { text, limit: PROFILE_PAGE });
      if (seq !== searchSeq) return;
      store.setState({ profiles: { ...store.getState().profiles, items: page.items, next: page.next, loaded: true, error: null, catchingUp: page.catchingUp ?? null } });
      // Until the backlog is read, the list grows without live events saying so: look again.
      if (page.catchingUp) refreshProfiles();
    } catch (err) {
      if (seq === searchSeq) store.setState({ profiles: { ...store.getState().profiles, loaded: true, error: messageOf(err) } });
    }
  }

  async function loadProfile(profileId: string): Promise<void> {
    try {
      const open = await transport.call('getProfile', profileId);
      if (store.getState().profiles.openId !== profileId) return;
      store.setState({ profiles: { ...store.getState().profiles, open, missing: open === null } });
    } catch (err) {
      store.setState({ profiles: { ...store.getState().profiles, error: messageOf(err) } });
    }
  }

  // Live events, coalesced to one refetch of each kind per frame.
  const pending = { computations: false, syncs: false, statuses: false, profiles: false };
  function flush(): void {
    const { selectedId } = store.getState();
    if (pending.computations) void loadComputations();
    if (pending.syncs && selectedId !== null) void loadSyncs(selectedId);
    else if (pending.statuses) void loadStatuses();
    if (pending.profiles) refreshProfiles();
    pending.computations = pending.syncs = pending.statuses = pending.profiles = false;
  }
  let profilesAt = -Infinity;
  let profilesWaiting = false;
  function refreshProfiles(): void {
    if (profilesWaiting) return;
    const wait = profilesAt + PROFILES_EVERY_MS - now();
    if (wait > 0) {
      profilesWaiting = true;
      later(() => {
        profilesWaiting = false;
        refreshProfiles();
      }, wait);
      return;
    }
    profilesAt = now();
    void loadProfiles();
    const openId = store.getState().profiles.openId;
    if (openId !== null) void loadProfile(openId);
  }

  const refetch = batcher(schedule, flush);
  function queue(event: LiveEvent): void {
    const { selectedId, syncs } = store.getState();
    switch (event.type) {
      case 'computations':
        pending.computations = true;
        // A sync changes the profiles' computed values as well.
        pending.profiles = true;
        if (selectedId !== null && (event.ids.length === 0 || event.ids.includes(selectedId))) pending.syncs = true;
        break;
      case 'deliveries': {
        const shown = new Set(shownDeliveryIds(syncs));
        if (!event.ids.some((id) => shown.has(id))) return;
        pending.statuses = true;
        break;
      }
      case 'requests':
        // New calls at the ingest change profiles.
        pending.profiles = true;
        break;
      case 'config':
        if (event.what === 'sources') void loadSources();
        return;
      default:
        return;
    }
    refetch.kick();
  }

  return {
    store,
    retry() {
      void loadComputations();
      void loadSources();
      void loadProfiles();
    },
    start() {
      void loadComputations();
      void loadSources();
      void loadProfiles();
      const { selectedId } = store.getState();
      if (selectedId !== null) void loadSyncs(selectedId);
      return followLive(transport, {
        onEvent: queue,
        onReconnect() {
          queue({ type: 'computations', ids: [] });
          queue({ type: 'requests', ids: [] });
          void loadSources();
        },
      });
    },
  };
}

function upsert(list: Computation[], c: Computation): Computation[] {
  return list.some((o) => o.id === c.id) ? list.map((o) => (o.id === c.id ? c : o)) : [...list, c];
}

/** Newest first, each sync once. */
function upsertSync(list: SyncSummary[], s: SyncSummary): SyncSummary[] {
  return [s, ...list.filter((o) => o.id !== s.id)].sort((a, b) => b.id - a.id);
}
