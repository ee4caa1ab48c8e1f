/**
 * The Configure view's state: sources, Webhooks destinations, delivery settings and the engine's
 * environment, kept fresh by `config` live events; the source form and the destination editor,
 * whose refusals (ours, then the engine's) are kept by field path for the inputs to show.
 */
import { createStore } from 'zustand/vanilla';
import type { ClearLogResult, EngineEnvironment, LiveEvent, StorageStatus, TrackingPlanView } from '../../../src-shared/api';
import type { TrackingPlanInput } from '../../../src-shared/tracking-plan';
import {
  validateRetention,
  validateSourceInput,
  type DeliverySettings,
  type Destination,
  type FieldError,
  type RetentionSettings,
  type Source,
} from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { refusalOf } from '../../api-error';
import { followLive, messageOf, type ViewStore } from '../../shared/live-store';
import type { PresetName } from './preset-words';
import { draftOf, emptyDraft, field, nameClash, toDestinationInput, type DestinationDraft } from './destination-form';
import { generateWriteKey } from './write-key';

export interface SourceDraft {
  name: string;
  writeKey: string;
}

export interface ConfigureState {
  loaded: boolean;
  /** A failed load or refresh, in plain words. */
  error: string | null;
  sources: Source[];
  destinations: Destination[];
  delivery: DeliverySettings | null;
  environment: EngineEnvironment | null;
  /** The source whose snippets are shown. */
  selectedSource: string | null;

  sourceDraft: SourceDraft;
  sourceErrors: FieldError[];
  /** Name of the source just saved (a readiness marker), until the form changes. */
  sourceSaved: string | null;

  /** The destination being edited, or null when the editor is closed. */
  draft: DestinationDraft | null;
  draftErrors: FieldError[];
  saving: boolean;
  /** Name of the destination just saved, until the draft changes. */
  destinationSaved: string | null;

  /** The log's retention settings and size on disk. */
  storage: StorageStatus | null;
  /** The retention form, as typed. */
  retentionDraft: { days: string; megabytes: string };
  retentionErrors: FieldError[];
  retentionSaved: boolean;
  clearing: boolean;
  /** What the last Clear log removed and kept. */
  cleared: ClearLogResult | null;
  clearError: string | null;

  /** The tracking plan in force with the log's violation counts; its editor's text, refusals and saved mark. */
  trackingPlan: TrackingPlanView | null;
  planDraft: string;
  planErrors: FieldError[];
  planSaved: boolean;

  /** Refusals of a removal, by the source or destination name they concern. */
  removeErrors: Record<string, string>;
  /** Refusals of a write-key rotation, by source name. */
  rotateErrors: Record<string, string>;
  /** The source whose write key was just rotated, with the key it no longer accepts. */
  rotated: { name: string; oldKey: string } | null;
  presetError: string | null;

  selectSource(name: string): void;
  setSourceDraft(patch: Partial<SourceDraft>): void;
  newWriteKey(): void;
  saveSource(): Promise<boolean>;
  deleteSource(name: string): Promise<void>;
  /** Gives the source a new write key; SDKs still sending the old one are refused from then on. */
  rotateWriteKey(name: string): Promise<boolean>;

  newDestination(): void;
  editDestination(name: string): void;
  closeEditor(): void;
  updateDraft(change: (draft: DestinationDraft) => DestinationDraft): void;
  saveDestination(): Promise<boolean>;
  deleteDestination(name: string): Promise<void>;

  setPreset(preset: PresetName): Promise<void>;

  setRetentionDraft(patch: Partial<{ days: string; megabytes: string }>): void;
  saveRetention(): Promise<boolean>;
  refreshStorage(): Promise<void>;
  clearLog(): Promise<void>;

  setPlanDraft(text: string): void;
  /** Saves the editor's JSON as the plan; an empty editor removes it. */
  savePlan(): Promise<boolean>;
  refreshPlan(): Promise<void>;
}

/** The plan as the editor shows it: pretty JSON, or nothing when there is no plan. */
export const planText = (view: TrackingPlanView | null): string => (view?.plan ? `${JSON.stringify(view.plan, null, 2)}\n` : '');

/** Pure: the editor's text as the plan to save (null: remove it), or the refusal naming why not. */
export function parsePlanDraft(text: string): { ok: true; plan: TrackingPlanInput | null } | { ok: false; error: FieldError } {
  if (text.trim() === '') return { ok: true, plan: null };
  try {
    const plan: unknown = JSON.parse(text);
    if (typeof plan !== 'object' || plan === null || Array.isArray(plan)) {
      return { ok: false, error: { field: 'trackingPlan', message: 'must be a JSON object { "events": { "Event Name": { JSON Schema } }, … }' } };
    }
    return { ok: true, plan: plan as TrackingPlanInput };
  } catch (err) {
    return { ok: false, error: { field: 'trackingPlan', message: `is not valid JSON: ${(err as Error).message}` } };
  }
}

/** How often the view reads a running Clear log's progress. */
const CLEAR_PROGRESS_MS = 1_000;
const draftOfRetention = (r: RetentionSettings): { days: string; megabytes: string } => ({ days: String(r.days), megabytes: String(r.megabytes) });
/** Typed text as the number the engine takes; anything else is passed on as text for the check to name. */
const numberOr = (text: string): number | string => (/^\s*\d+\s*$/.test(text) ? Number(text) : text);

/** Loads everything and follows `config` live events until stopped. */
export type ConfigureStore = ViewStore<ConfigureState>;

export function createConfigureStore(transport: Transport, newKey: () => string = generateWriteKey): ConfigureStore {
  // A running Clear log (this window's, or one asked elsewhere: another window, the API) is
  // read every second until it is done.
  let clearPoll: ReturnType<typeof setInterval> | null = null;
  const followClear = (): void => {
    clearPoll ??= setInterval(() => {
      void store
        .getState()
        .refreshStorage()
        .catch(() => {})
        .finally(() => {
          const s = store.getState();
          if (s.storage?.clearing || s.clearing || clearPoll === null) return;
          clearInterval(clearPoll);
          clearPoll = null;
        });
    }, CLEAR_PROGRESS_MS);
  };
  const store = createStore<ConfigureState>()((set, get) => ({
    loaded: false,
    error: null,
    sources: [],
    destinations: [],
    delivery: null,
    environment: null,
    selectedSource: null,
    sourceDraft: { name: '', writeKey: newKey() },
    sourceErrors: [],
    sourceSaved: null,
    draft: null,
    draftErrors: [],
    saving: false,
    destinationSaved: null,
    removeErrors: {},
    rotateErrors: {},
    rotated: null,
    presetError: null,
    storage: null,
    retentionDraft: { days: '', megabytes: '' },
    retentionErrors: [],
    retentionSaved: false,
    clearing: false,
    cleared: null,
    clearError: null,
    trackingPlan: null,
    planDraft: '',
    planErrors: [],
    planSaved: false,

    selectSource(name) {
      set({ selectedSource: name });
    },
    setSourceDraft(patch) {
      set({ sourceDraft: { ...get().sourceDraft, ...patch }, sourceErrors: [], sourceSaved: null });
    },
    newWriteKey() {
      get().setSourceDraft({ writeKey: newKey() });
    },
    async saveSource() {
      const input = { name: get().sourceDraft.name.trim(), writeKey: get().sourceDraft.writeKey.trim() };
      const taken = get().sources.some((o) => o.name === input.name)
        ? [{ field: 'source.name', message: 'is already the name of a source (its write key changes only through “Rotate write key” on its row)' }]
        : [];
      const errors = [...validateSourceInput(input, 'source'), ...taken];
      if (errors.length > 0) {
        set({ sourceErrors: errors, sourceSaved: null });
        return false;
      }
      try {
        const saved = await transport.call('saveSource', input);
        set({
          sources: upsertByName(get().sources, saved),
          selectedSource: saved.name,
          sourceDraft: { name: '', writeKey: newKey() },
          sourceErrors: [],
          sourceSaved: saved.name,
        });
        return true;
      } catch (err) {
        set({ sourceErrors: refusalOf(err, 'source'), sourceSaved: null });
        return false;
      }
    },
    async deleteSource(name) {
      try {
        await transport.call('deleteSource', name);
        const { [name]: _gone, ...rest } = get().removeErrors;
        const sources = get().sources.filter((s) => s.name !== name);
        set({ sources, removeErrors: rest, selectedSource: get().selectedSource === name ? (sources[0]?.name ?? null) : get().selectedSource });
      } catch (err) {
        set({ removeErrors: { ...get().removeErrors, [name]: refusalOf(err, 'source.name').map((e) => e.message).join('; ') } });
      }
    },

    async rotateWriteKey(name) {
      const current = get().sources.find((o) => o.name === name);
      if (!current) return false;
      try {
        const saved = await transport.call('rotateWriteKey', { name, writeKey: newKey() });
        const { [name]: _done, ...rest } = get().rotateErrors;
        set({ sources: upsertByName(get().sources, saved), rotateErrors: rest, rotated: { name, oldKey: current.writeKey } });
        return true;
      } catch (err) {
        set({ rotateErrors: { ...get().rotateErrors, [name]: refusalOf(err, 'rotation').map((e) => e.message).join('; ') }, rotated: null });
        return false;
      }
    },

    newDestination() {
      const sources = get().sources;
      // With a single source there is nothing to choose: attach it from the start.
      set({ draft: emptyDraft(sources.length === 1 && sources[0] ? [sources[0].name] : []), draftErrors: [], destinationSaved: null });
    },
    editDestination(name) {
      const d = get().destinations.find((o) => o.name === name);
      if (d) set({ draft: draftOf(d), draftErrors: [], destinationSaved: null });
    },
    closeEditor() {
      set({ draft: null, draftErrors: [], destinationSaved: null });
    },
    updateDraft(change) {
      const draft = get().draft;
      if (!draft) return;
      const next = change(draft);
      // While refusals are shown, they follow the edits, so a fixed field stops being marked at once.
      // (The engine's own refusals go too; it repeats them on the next save if they still hold.)
      const draftErrors = get().draftErrors.length > 0 ? toDestinationInput(next).errors : [];
      set({ draft: next, draftErrors, destinationSaved: null });
    },
    async saveDestination() {
      const draft = get().draft;
      if (!draft || get().saving) return false;
      const { input, errors: formErrors } = toDestinationInput(draft);
      const errors = [...formErrors, ...nameClash(draft, get().destinations.map((d) => d.name))];
      if (errors.length > 0) {
        set({ draftErrors: errors, destinationSaved: null });
        return false;
      }
      set({ saving: true, draftErrors: [] });
      try {
        const renaming = draft.saved !== null && draft.saved !== input.name ? draft.saved : null;
        if (renaming !== null) {
          try {
            await transport.call('renameDestination', { from: renaming, to: input.name });
          } catch (err) {
            // The rename's refusals concern the name field.
            set({ draftErrors: refusalOf(err, 'destination.name').map((e) => ({ ...e, field: field.name })), saving: false, destinationSaved: null });
            return false;
          }
        }
        const saved = await transport.call('saveDestination', input);
        const list = get().destinations;
        set({
          // By id: a renamed destination keeps its place in the list.
          destinations: list.some((d) => d.id === saved.id) ? list.map((d) => (d.id === saved.id ? saved : d)) : [...list, saved],
          // Only if the user has not moved on to another destination meanwhile.
          ...(get().draft === draft ? { draft: draftOf(saved), destinationSaved: saved.name } : {}),
          saving: false,
        });
        return true;
      } catch (err) {
        set({ draftErrors: refusalOf(err, 'destination'), saving: false, destinationSaved: null });
        return false;
      }
    },
    async deleteDestination(name) {
      try {
        await transport.call('deleteDestination', name);
        const { [name]: _gone, ...rest } = get().removeErrors;
        set({
          destinations: get().destinations.filter((d) => d.name !== name),
          removeErrors: rest,
          ...(get().draft?.saved === name ? { draft: null, draftErrors: [], destinationSaved: null } : {}),
        });
      } catch (err) {
        set({ removeErrors: { ...get().removeErrors, [name]: refusalOf(err, 'destination.name').map((e) => e.message).join('; ') } });
      }
    },

    async setPreset(preset) {
      // The timeout is not part of a preset: keep the one in force (a config file may have shortened it).
      const timeoutMs = get().delivery?.timeoutMs;
      try {
        const delivery = await transport.call('saveDeliverySettings', timeoutMs === undefined ? { preset } : { preset, timeoutMs });
        set({ delivery, presetError: null });
      } catch (err) {
        set({ presetError: messageOf(err) });
      }
    },

    setRetentionDraft(patch) {
      set({ retentionDraft: { ...get().retentionDraft, ...patch }, retentionErrors: [], retentionSaved: false });
    },
    async saveRetention() {
      const draft = get().retentionDraft;
      const input = { days: numberOr(draft.days), megabytes: numberOr(draft.megabytes) };
      const errors = validateRetention(input);
      if (errors.length > 0) {
        set({ retentionErrors: errors, retentionSaved: false });
        return false;
      }
      try {
        const storage = await transport.call('saveRetention', input as Partial<RetentionSettings>);
        set({ storage, retentionDraft: draftOfRetention(storage.retention), retentionErrors: [], retentionSaved: true });
        return true;
      } catch (err) {
        set({ retentionErrors: refusalOf(err, 'retention'), retentionSaved: false });
        return false;
      }
    },
    async refreshStorage() {
      const storage = await transport.call('getStorage');
      // A form being edited keeps what the user typed.
      const editing = get().retentionErrors.length > 0 || (get().storage !== null && !sameDraft(get().retentionDraft, get().storage?.retention));
      set({ storage, ...(editing ? {} : { retentionDraft: draftOfRetention(storage.retention) }) });
      if (storage.clearing) followClear();
    },
    async clearLog() {
      if (get().clearing) return;
      set({ clearing: true, clearError: null, cleared: null });
      // A big log takes minutes to clear (it goes in short slices beside ingest): its progress
      // is read while the call runs.
      followClear();
      try {
        const cleared = await transport.call('clearLog');
        set({ cleared, clearing: false });
      } catch (err) {
        set({ clearError: messageOf(err), clearing: false });
      }
      await get().refreshStorage().catch(() => {});
    },

    setPlanDraft(text) {
      set({ planDraft: text, planErrors: [], planSaved: false });
    },
    async savePlan() {
      const parsed = parsePlanDraft(get().planDraft);
      if (!parsed.ok) {
        set({ planErrors: [parsed.error], planSaved: false });
        return false;
      }
      try {
        const view = await transport.call('saveTrackingPlan', parsed.plan);
        set({ trackingPlan: view, planDraft: planText(view), planErrors: [], planSaved: true });
        return true;
      } catch (err) {
        set({ planErrors: refusalOf(err, 'trackingPlan'), planSaved: false });
        return false;
      }
    },
    async refreshPlan() {
      const view = await transport.call('getTrackingPlan');
      // Text being edited stays as typed; the counts are always fresh.
      const editing = get().planDraft !== planText(get().trackingPlan);
      set({ trackingPlan: view, ...(editing ? {} : { planDraft: planText(view) }) });
    },
  }));

  const sameDraft = (draft: { days: string; megabytes: string }, r: RetentionSettings | undefined): boolean =>
    r !== undefined && draft.days === String(r.days) && draft.megabytes === String(r.megabytes);

  const fail = (err: unknown): void => store.setState({ error: messageOf(err) });

  async function loadSources(): Promise<void> {
    const sources = await transport.call('listSources');
    const selected = store.getState().selectedSource;
    store.setState({
      sources,
      selectedSource: selected !== null && sources.some((s) => s.name === selected) ? selected : (sources[0]?.name ?? null),
    });
  }
  async function loadDestinations(): Promise<void> {
    store.setState({ destinations: await transport.call('listDestinations') });
  }
  async function loadDelivery(): Promise<void> {
    store.setState({ delivery: await transport.call('getDeliverySettings') });
  }
  async function loadAll(): Promise<void> {
    try {
      const [environment] = await Promise.all([
        transport.call('getEnvironment'),
        loadSources(),
        loadDestinations(),
        loadDelivery(),
        store.getState().refreshStorage(),
        store.getState().refreshPlan(),
      ]);
      store.setState({ environment, loaded: true, error: null });
    } catch (err) {
      fail(err);
    }
  }

  function onEvent(event: LiveEvent): void {
    if (event.type !== 'config') return;
    const load =
      event.what === 'sources'
        ? loadSources
        : event.what === 'destinations'
          ? loadDestinations
          : event.what === 'delivery'
            ? loadDelivery
            : event.what === 'retention'
              ? store.getState().refreshStorage
              : event.what === 'trackingPlan'
                ? store.getState().refreshPlan
                : null;
    load?.().catch(fail);
  }

  return {
    store,
    retry: () => void loadAll(),
    start() {
      void loadAll();
      const stopLive = followLive(transport, { onEvent, onReconnect: () => void loadAll() });
      return () => {
        stopLive();
        if (clearPoll !== null) clearInterval(clearPoll);
        clearPoll = null;
      };
    },
  };
}

function upsertByName<T extends { name: string; id: number }>(list: T[], item: T): T[] {
  return list.some((o) => o.name === item.name) ? list.map((o) => (o.name === item.name ? item : o)) : [...list, item];
}
