/**
 * The Compose view's state: the form, the sources to send with, saved templates, and the last
 * send's result or errors (placed next to the fields they name). Kept per transport, so switching
 * tabs does not lose a half-typed call.
 */
import { createStore } from 'zustand/vanilla';
import type { ComposeResult, ComposeTemplate, ComposeType } from '../../../src-shared/api';
import type { Destination, Source } from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { followLive, messageOf, type ViewStore } from '../../shared/live-store';
import {
  buildComposeInput,
  emptyForm,
  fieldErrorsOf,
  formFromInput,
  integrationKeyProblem,
  integrationsOf,
  placeServerErrors,
  reachOf,
  uuidFromBytes,
  type ComposeForm,
  type FieldErrors,
  type FormField,
  type Reach,
} from './form';

export interface ComposeState {
  form: ComposeForm;
  sources: Source[];
  /** False until the first answer, so the empty state does not flash before the sources arrive. */
  sourcesLoaded: boolean;
  templates: ComposeTemplate[];
  /** The destinations, to say before and after a send whether the call becomes a delivery. */
  destinations: Destination[];
  sending: boolean;
  result: ComposeResult | null;
  /** Whether the last sent call was to become a webhook delivery, as things stood when it was sent. */
  resultReach: Reach | null;
  /**
   * What Deliveries searches for when the result's link is followed: the messageId of one message,
   * the userId (or anonymousId) of several copies; null when there is neither. Under live traffic
   * the unfiltered list had already moved the composed call off screen.
   */
  resultSearch: string | null;
  fieldErrors: FieldErrors;
  /** What names no field on screen, or a failure that is not about the input (the ingest is down…). */
  error: string | null;
  templateName: string;
  /** A destination name being typed for a new integrations switch. */
  integrationKey: string;
  setIntegrationKey(key: string): void;
  templateError: string | null;
  /** The name of the template last loaded or saved, for the list to mark. */
  currentTemplate: string | null;
  update(patch: Partial<ComposeForm>): void;
  setType(type: ComposeType): void;
  generateAnonymousId(): void;
  /** Adds a destination switch; returns why it cannot, or null. */
  addIntegration(key: string): string | null;
  setIntegration(index: number, on: boolean): void;
  removeIntegration(index: number): void;
  send(): Promise<void>;
  setTemplateName(name: string): void;
  saveTemplate(): Promise<void>;
  loadTemplate(name: string): void;
  deleteTemplate(name: string): Promise<void>;
}

/** Clears the errors of the fields a patch touches: the user is fixing them. */
function without(errors: FieldErrors, keys: readonly string[]): FieldErrors {
  const next = { ...errors };
  for (const k of keys) delete next[k as FormField];
  if (keys.includes('all') || keys.includes('integrations')) delete next.integrations;
  return next;
}

/** Loads sources and templates and follows their changes until stopped. */
export type ComposeStore = ViewStore<ComposeState>;

/** Pure: what finds the sent calls in Deliveries (see resultSearch). */
export function searchFor(messageIds: readonly string[], message: Record<string, unknown>): string | null {
  if (messageIds.length === 1) return messageIds[0] ?? null;
  const who = message.userId ?? message.anonymousId;
  return typeof who === 'string' && who !== '' ? who : null;
}

export function createComposeStore(transport: Transport, randomId: () => string = browserUuid): ComposeStore {
  const store = createStore<ComposeState>()((set, get) => ({
    form: emptyForm(),
    sources: [],
    sourcesLoaded: false,
    templates: [],
    destinations: [],
    sending: false,
    result: null,
    resultReach: null,
    resultSearch: null,
    fieldErrors: {},
    error: null,
    templateName: '',
    integrationKey: '',
    setIntegrationKey(key) {
      set({ integrationKey: key });
    },
    templateError: null,
    currentTemplate: null,
    update(patch) {
      set({ form: { ...get().form, ...patch }, fieldErrors: without(get().fieldErrors, Object.keys(patch)) });
    },
    setType(type) {
      // Field errors belong to the call they were made for.
      set({ form: { ...get().form, type }, fieldErrors: {}, error: null });
    },
    generateAnonymousId() {
      get().update({ anonymousId: randomId() });
    },
    addIntegration(key) {
      const { form } = get();
      const problem = integrationKeyProblem(key, form.integrations);
      if (problem) return problem;
      get().update({ integrations: [...form.integrations, { key: key.trim(), on: true }] });
      return null;
    },
    setIntegration(index, on) {
      get().update({ integrations: get().form.integrations.map((s, i) => (i === index ? { ...s, on } : s)) });
    },
    removeIntegration(index) {
      // The Webhooks switch (first) stays: it is the destination this workbench is about.
      if (index === 0) return;
      get().update({ integrations: get().form.integrations.filter((_s, i) => i !== index) });
    },
    async send() {
      const { form } = get();
      const built = buildComposeInput(form);
      if (!built.ok) {
        set({ fieldErrors: built.errors, error: null, result: null });
        return;
      }
      set({ sending: true, result: null, error: null, fieldErrors: {} });
      const reach = reachOf(integrationsOf(form.all, form.integrations), form.source, get().destinations);
      try {
        const result = await transport.call('composeEvents', built.input);
        set({ sending: false, result, resultReach: reach, resultSearch: searchFor(result.messageIds, built.input.message) });
      } catch (err) {
        const placed = placeServerErrors(fieldErrorsOf(err), form.type);
        const hasFields = Object.keys(placed.fields).length > 0;
        const general = placed.general.length > 0 ? placed.general.join('; ') : hasFields ? null : messageOf(err);
        set({ sending: false, fieldErrors: placed.fields, error: general });
      }
    },
    setTemplateName(name) {
      set({ templateName: name, templateError: null });
    },
    async saveTemplate() {
      const { form, templateName } = get();
      const built = buildComposeInput(form);
      if (!built.ok) {
        set({ fieldErrors: built.errors, templateError: 'Fix the fields marked in the form first; a template keeps a call that can be sent.' });
        return;
      }
      try {
        const saved = await transport.call('saveTemplate', { name: templateName, input: built.input });
        set({ templateName: '', templateError: null, currentTemplate: saved.name });
        await loadTemplates();
      } catch (err) {
        const fields = fieldErrorsOf(err);
        set({ templateError: fields.length > 0 ? fields.map((f) => (f.field === 'template.name' ? `Name ${f.message}` : `${f.field}: ${f.message}`)).join('; ') : messageOf(err) });
      }
    },
    loadTemplate(name) {
      const template = get().templates.find((t) => t.name === name);
      if (!template) return;
      const form = formFromInput(template.input);
      // A template from a source since deleted keeps the current choice, so Send still works.
      if (!get().sources.some((s) => s.name === form.source)) form.source = get().form.source;
      set({ form, fieldErrors: {}, error: null, result: null, currentTemplate: name, templateError: null });
    },
    async deleteTemplate(name) {
      try {
        await transport.call('deleteTemplate', name);
        if (get().currentTemplate === name) set({ currentTemplate: null });
        await loadTemplates();
      } catch (err) {
        set({ templateError: messageOf(err) });
      }
    },
  }));

  async function loadSources(): Promise<void> {
    try {
      const sources = await transport.call('listSources');
      const current = store.getState().form.source;
      const source = sources.some((s) => s.name === current) ? current : (sources[0]?.name ?? '');
      store.setState({ sources, sourcesLoaded: true, form: { ...store.getState().form, source } });
    } catch (err) {
      store.setState({ sourcesLoaded: true, error: `Could not load the sources: ${messageOf(err)}` });
    }
  }

  async function loadDestinations(): Promise<void> {
    try {
      store.setState({ destinations: await transport.call('listDestinations') });
    } catch {
      // Only the words after a send depend on them; the send itself does not.
    }
  }

  async function loadTemplates(): Promise<void> {
    try {
      store.setState({ templates: await transport.call('listTemplates') });
    } catch (err) {
      store.setState({ templateError: `Could not load the templates: ${messageOf(err)}` });
    }
  }

  return {
    store,
    start() {
      void loadSources();
      void loadTemplates();
      void loadDestinations();
      return followLive(transport, {
        onEvent(event) {
          if (event.type !== 'config') return;
          if (event.what === 'sources') void loadSources();
          if (event.what === 'templates') void loadTemplates();
          if (event.what === 'destinations' || event.what === 'sources') void loadDestinations();
        },
        onReconnect() {
          void loadSources();
          void loadTemplates();
          void loadDestinations();
        },
      });
    },
  };
}

function browserUuid(): string {
  return uuidFromBytes(crypto.getRandomValues(new Uint8Array(16)));
}
