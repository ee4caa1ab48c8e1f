/**
 * The Deletions view's state: the requests, newest first, kept live by `deletions` events and by
 * `deliveries` events about their notices; the request form (userId, purge) with its confirm step
 * and refusals by field.
 */
import { createStore } from 'zustand/vanilla';
import type { LiveEvent } from '../../../src-shared/api';
import type { DeletionRequest } from '../../../src-shared/personas';
import type { FieldError } from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { refusalOf } from '../../api-error';
import { batcher, followLive, messageOf, perFrame, type Schedule, type ViewStore } from '../../shared/live-store';
import { newestFirst, noticeDeliveryIds } from './deletion-status';

export interface DeletionDraft {
  userId: string;
  purge: boolean;
}

export interface DeletionsState {
  loaded: boolean;
  error: string | null;
  requests: DeletionRequest[];
  draft: DeletionDraft;
  errors: FieldError[];
  /** The form asks "are you sure?" before sending. */
  confirming: boolean;
  submitting: boolean;
  /** The request just made (a readiness marker), until the form changes. */
  submittedId: number | null;
  setDraft(patch: Partial<DeletionDraft>): void;
  /** Checks the form and asks for the confirmation. */
  ask(): void;
  cancel(): void;
  submit(): Promise<boolean>;
}


/** Our check before asking: the engine judges the rest (length limits…). */
export function draftErrors(draft: DeletionDraft): FieldError[] {
  return draft.userId.trim() === '' ? [{ field: 'deletion.userId', message: 'is required: the userId whose data should be deleted' }] : [];
}

export type DeletionsStore = ViewStore<DeletionsState>;

export function createDeletionsStore(transport: Transport, schedule: Schedule = perFrame): DeletionsStore {
  const store = createStore<DeletionsState>()((set, get) => ({
    loaded: false,
    error: null,
    requests: [],
    draft: { userId: '', purge: false },
    errors: [],
    confirming: false,
    submitting: false,
    submittedId: null,
    setDraft(patch) {
      set({ draft: { ...get().draft, ...patch }, errors: [], confirming: false, submittedId: null });
    },
    ask() {
      const errors = draftErrors(get().draft);
      set({ errors, confirming: errors.length === 0 });
    },
    cancel() {
      set({ confirming: false });
    },
    async submit() {
      const { draft, submitting } = get();
      if (submitting) return false;
      const errors = draftErrors(draft);
      if (errors.length > 0) {
        set({ errors, confirming: false });
        return false;
      }
      set({ submitting: true, errors: [] });
      try {
        const made = await transport.call('requestDeletion', { userId: draft.userId.trim(), purge: draft.purge });
        set({
          submitting: false,
          confirming: false,
          submittedId: made.id,
          draft: { userId: '', purge: draft.purge },
          requests: newestFirst([made, ...get().requests.filter((r) => r.id !== made.id)]),
        });
        return true;
      } catch (err) {
        set({ submitting: false, confirming: false, errors: refusalOf(err) });
        return false;
      }
    },
  }));

  async function load(): Promise<void> {
    try {
      const requests = await transport.call('listDeletions');
      store.setState({ requests: newestFirst(requests), loaded: true, error: null });
    } catch (err) {
      store.setState({ loaded: true, error: messageOf(err) });
    }
  }

  const reload = batcher(schedule, load);
  function queue(event: LiveEvent): void {
    if (event.type === 'deliveries') {
      // Notices are deliveries: their status changes before the request's does.
      const mine = noticeDeliveryIds(store.getState().requests);
      if (!event.ids.some((id) => mine.has(id))) return;
    } else if (event.type !== 'deletions') return;
    reload.kick();
  }

  return {
    store,
    retry: () => reload.kick(),
    start() {
      void load();
      return followLive(transport, { onEvent: queue, onReconnect: () => reload.kick() });
    },
  };
}
