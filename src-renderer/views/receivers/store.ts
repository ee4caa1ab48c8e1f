/**
 * The Receivers view's state: the receivers with their URLs, the script being edited (kept across
 * tab switches), the selected receiver's requests live (by `receivers` events), the rows opened to
 * their exact headers and body, and "Add to destination…".
 */
import { createStore } from 'zustand/vanilla';
import type { LiveEvent } from '../../../src-shared/api';
import type { ReceiverPer, ReceiverRequestDetail, ReceiverRequestSummary, ReceiverView } from '../../../src-shared/receivers';
import type { Destination, FieldError } from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { refusalOf } from '../../api-error';
import { batcher, followLive, messageOf, perFrame, type Schedule, type ViewStore } from '../../shared/live-store';
import { draftOf, emptyStep, inputOf, newDraft, withReceiverUrl, type ReceiverDraft, type StepRow } from './form';

/** Requests shown per receiver: the newest. */
export const REQUESTS_SHOWN = 200;

export interface ReceiversState {
  loaded: boolean;
  error: string | null;
  receivers: ReceiverView[];
  destinations: Destination[];
  /** The receiver whose URLs and requests are shown. */
  selected: string | null;
  draft: ReceiverDraft;
  errors: FieldError[];
  saving: boolean;
  /** What the last action did, in a sentence (saved, reset, added to a destination). */
  notice: string | null;
  requests: ReceiverRequestSummary[];
  /** Rows opened to their headers and body: the detail once read. */
  opened: Record<number, ReceiverRequestDetail | 'loading'>;
  select(name: string): void;
  newReceiver(): void;
  setName(name: string): void;
  setPer(per: ReceiverPer): void;
  setStep(index: number, patch: Partial<StepRow>): void;
  addStep(): void;
  removeStep(index: number): void;
  save(): Promise<boolean>;
  remove(): Promise<void>;
  reset(): Promise<void>;
  addToDestination(destination: string, url: string): Promise<void>;
  toggle(id: number): Promise<void>;
}

export type ReceiversStore = ViewStore<ReceiversState>;

export function createReceiversStore(transport: Transport, schedule: Schedule = perFrame): ReceiversStore {
  const store = createStore<ReceiversState>()((set, get) => ({
    loaded: false,
    error: null,
    receivers: [],
    destinations: [],
    selected: null,
    draft: newDraft(),
    errors: [],
    saving: false,
    notice: null,
    requests: [],
    opened: {},
    select(name) {
      const receiver = get().receivers.find((r) => r.name === name);
      set({ selected: name, draft: receiver ? draftOf(receiver) : get().draft, errors: [], notice: null, requests: [], opened: {} });
      void loadRequests();
    },
    newReceiver() {
      set({ selected: null, draft: newDraft(), errors: [], notice: null, requests: [], opened: {} });
    },
    setName(name) {
      set({ draft: { ...get().draft, name }, errors: [], notice: null });
    },
    setPer(per) {
      set({ draft: { ...get().draft, per }, errors: [], notice: null });
    },
    setStep(index, patch) {
      const steps = get().draft.steps.map((s, i) => (i === index ? { ...s, ...patch } : s));
      set({ draft: { ...get().draft, steps }, errors: [], notice: null });
    },
    addStep() {
      set({ draft: { ...get().draft, steps: [...get().draft.steps, emptyStep()] }, errors: [], notice: null });
    },
    removeStep(index) {
      const steps = get().draft.steps.filter((_, i) => i !== index);
      set({ draft: { ...get().draft, steps }, errors: [], notice: null });
    },
    async save() {
      const { draft, saving } = get();
      if (saving) return false;
      const { input, errors } = inputOf(draft);
      if (errors.length > 0) {
        set({ errors, notice: null });
        return false;
      }
      set({ saving: true, errors: [] });
      try {
        const saved = await transport.call('saveReceiver', input);
        // A rename is a new receiver; the old one goes, with its requests.
        if (draft.original !== null && draft.original !== saved.name) await transport.call('deleteReceiver', draft.original);
        set({ saving: false, selected: saved.name, draft: draftOf(saved), notice: `Saved “${saved.name}”.` });
        await loadReceivers();
        await loadRequests();
        return true;
      } catch (err) {
        set({ saving: false, errors: refusalOf(err) });
        return false;
      }
    },
    async remove() {
      const name = get().selected;
      if (name === null) return;
      try {
        await transport.call('deleteReceiver', name);
        set({ selected: null, draft: newDraft(), requests: [], opened: {}, notice: `Removed “${name}” and the requests it got.` });
        await loadReceivers();
      } catch (err) {
        set({ errors: refusalOf(err) });
      }
    },
    async reset() {
      const name = get().selected;
      if (name === null) return;
      try {
        const view = await transport.call('resetReceiver', name);
        set({ receivers: get().receivers.map((r) => (r.name === name ? view : r)), notice: `“${name}” starts over: the next request gets step 1.` });
      } catch (err) {
        set({ errors: refusalOf(err) });
      }
    },
    async addToDestination(name, url) {
      const destination = get().destinations.find((d) => d.name === name);
      if (!destination) return;
      const input = withReceiverUrl(destination, url);
      if (input === null) {
        set({ notice: `“${name}” already sends to ${url}.`, errors: [] });
        return;
      }
      try {
        await transport.call('saveDestination', input);
        set({ notice: `Added ${url} to “${name}”.`, errors: [] });
        await loadDestinations();
      } catch (err) {
        set({ errors: refusalOf(err, 'destination'), notice: null });
      }
    },
    async toggle(id) {
      const opened = { ...get().opened };
      if (opened[id] !== undefined) {
        delete opened[id];
        set({ opened });
        return;
      }
      set({ opened: { ...opened, [id]: 'loading' } });
      try {
        const detail = await transport.call('getReceiverRequest', id);
        const now = { ...get().opened };
        if (detail && now[id] !== undefined) set({ opened: { ...now, [id]: detail } });
      } catch (err) {
        set({ error: messageOf(err) });
      }
    },
  }));

  async function loadReceivers(): Promise<void> {
    const receivers = await transport.call('listReceivers');
    const { selected, draft } = store.getState();
    // The first receiver is shown when none is chosen and nothing is being typed for a new one.
    const pristine = draft.original === null && draft.name === '';
    const chosen = selected !== null && receivers.some((r) => r.name === selected) ? selected : pristine ? (receivers[0]?.name ?? null) : null;
    const patch: Partial<ReceiversState> = { receivers, selected: chosen };
    if (chosen !== null && chosen !== selected) {
      const receiver = receivers.find((r) => r.name === chosen);
      if (receiver) patch.draft = draftOf(receiver);
    }
    store.setState(patch);
  }
  async function loadDestinations(): Promise<void> {
    store.setState({ destinations: await transport.call('listDestinations') });
  }
  async function loadRequests(): Promise<void> {
    const name = store.getState().selected;
    if (name === null) return;
    const page = await transport.call('listReceiverRequests', { receiver: name, limit: REQUESTS_SHOWN });
    if (store.getState().selected === name) store.setState({ requests: page.items });
  }
  async function load(): Promise<void> {
    try {
      await Promise.all([loadReceivers(), loadDestinations()]);
      await loadRequests();
      store.setState({ loaded: true, error: null });
    } catch (err) {
      store.setState({ loaded: true, error: messageOf(err) });
    }
  }

  const reload = batcher(schedule, load);
  function queue(event: LiveEvent): void {
    if (event.type === 'receivers' || (event.type === 'config' && (event.what === 'receivers' || event.what === 'destinations'))) reload.kick();
  }

  return {
    store,
    start() {
      void load();
      return followLive(transport, { onEvent: queue, onReconnect: () => reload.kick() });
    },
  };
}
