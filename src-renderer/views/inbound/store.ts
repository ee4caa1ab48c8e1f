/**
 * The Inbound view's state: Tracking API calls as received, newest first, keyset-paged, kept live
 * by `requests` events (applied at most once per frame), and the selected call's messages and
 * dropped items.
 */
import { createStore } from 'zustand/vanilla';
import type {
  DroppedItemView,
  EngineEnvironment,
  InboundMessageView,
  InboundRequest,
  InboundRequestDetail,
  LiveEvent,
  RequestFilter,
} from '../../../src-shared/api';
import type { Source } from '../../../src-shared/settings';
import type { Transport } from '../../transport';
import { batcher, followLive, messageOf, perFrame, type Schedule, type ViewStore } from '../../shared/live-store';

export const INBOUND_PAGE = 100;

export interface InboundDetail {
  requestId: number;
  messages: InboundMessageView[];
  dropped: DroppedItemView[];
  /** The call as received: headers and the body as far as it was kept. */
  request: InboundRequestDetail | null;
}

/** The filter as the API takes it: empty fields left out. */
export function requestFilterParams(f: RequestFilter): RequestFilter {
  const out: RequestFilter = {};
  if (f.status) out.status = f.status;
  if (f.sourceId !== undefined) out.sourceId = f.sourceId;
  if (f.path) out.path = f.path;
  if (f.from) out.from = f.from;
  if (f.to) out.to = f.to;
  return out;
}

export interface InboundState {
  rows: InboundRequest[];
  /** beforeId for "load more"; null once the log is exhausted. */
  nextBeforeId: number | null;
  loaded: boolean;
  loadingMore: boolean;
  error: string | null;
  sources: Source[];
  environment: EngineEnvironment | null;
  selectedId: number | null;
  detail: InboundDetail | null;
  filter: RequestFilter;
  /** The list shows the oldest page; live calls are not added above it until the newest is shown again. */
  atOldest: boolean;
  /** Replaces the filter and loads the first page again. */
  setFilter(filter: RequestFilter): void;
  jump(to: 'oldest' | 'newest'): void;
  select(id: number | null): void;
  /** Selects the row after (+1) or before (-1) the selected one. */
  move(step: 1 | -1): void;
  loadMore(): Promise<void>;
}


/** Newest first, each id once. Requests are written once, whole, so a row never changes. */
export function mergeRows(rows: InboundRequest[], more: InboundRequest[]): InboundRequest[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const r of more) byId.set(r.id, r);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

/**
 * The rows after a fresh first page arrives: merged when it reaches down to what is on screen, else
 * (more new calls than a page) the fresh page alone, paged on from its own end so nothing is skipped.
 */
export function withFirstPage(
  state: Pick<InboundState, 'rows' | 'nextBeforeId'>,
  page: { items: InboundRequest[]; nextBeforeId: number | null },
): Pick<InboundState, 'rows' | 'nextBeforeId'> {
  const newestShown = state.rows[0]?.id ?? 0;
  const oldestFetched = page.items[page.items.length - 1]?.id ?? 0;
  const gap = page.nextBeforeId !== null && oldestFetched > newestShown + 1 && state.rows.length > 0;
  if (gap || state.rows.length === 0) return { rows: page.items, nextBeforeId: page.nextBeforeId };
  return { rows: mergeRows(state.rows, page.items), nextBeforeId: state.nextBeforeId };
}

export type InboundStore = ViewStore<InboundState>;

export function createInboundStore(transport: Transport, schedule: Schedule = perFrame): InboundStore {
  const store = createStore<InboundState>()((set, get) => ({
    rows: [],
    nextBeforeId: null,
    loaded: false,
    loadingMore: false,
    error: null,
    sources: [],
    environment: null,
    selectedId: null,
    detail: null,
    filter: {},
    atOldest: false,
    setFilter(filter) {
      set({ filter: requestFilterParams(filter), atOldest: false, rows: [], nextBeforeId: null, loaded: false });
      void loadFirstPage();
    },
    jump(to) {
      if (to === 'newest') {
        set({ atOldest: false, rows: [], nextBeforeId: null });
        void loadFirstPage();
      } else {
        set({ atOldest: true });
        void loadOldest();
      }
    },
    select(id) {
      set({ selectedId: id, detail: id !== null && get().detail?.requestId === id ? get().detail : null });
      if (id !== null) void loadDetail(id);
    },
    move(step) {
      const { rows, selectedId } = get();
      const at = rows.findIndex((r) => r.id === selectedId);
      const next = rows[at === -1 ? 0 : Math.min(rows.length - 1, Math.max(0, at + step))];
      if (next) get().select(next.id);
    },
    async loadMore() {
      const { nextBeforeId, loadingMore } = get();
      if (nextBeforeId === null || loadingMore) return;
      set({ loadingMore: true });
      try {
        const page = await transport.call('listRequests', { ...get().filter, beforeId: nextBeforeId, limit: INBOUND_PAGE });
        set({ rows: mergeRows(get().rows, page.items), nextBeforeId: page.nextBeforeId, loadingMore: false, error: null });
      } catch (err) {
        set({ loadingMore: false, error: messageOf(err) });
      }
    },
  }));

  const fail = (err: unknown): void => store.setState({ error: messageOf(err) });

  async function loadDetail(id: number): Promise<void> {
    try {
      const [messages, dropped, request] = await Promise.all([
        transport.call('messagesOf', id),
        transport.call('droppedItemsOf', id),
        transport.call('getRequest', id),
      ]);
      if (store.getState().selectedId === id) store.setState({ detail: { requestId: id, messages, dropped, request } });
    } catch (err) {
      fail(err);
    }
  }

  // Bumped by each new filter or jump: a page for an older one is dropped when it lands.
  let generation = 0;

  async function loadFirstPage(): Promise<void> {
    const g = ++generation;
    const filter = store.getState().filter;
    try {
      const page = await transport.call('listRequests', { ...filter, limit: INBOUND_PAGE });
      if (g !== generation) return;
      store.setState((s) => ({ ...withFirstPage(s, page), loaded: true, error: null }));
    } catch (err) {
      fail(err);
    }
  }

  async function loadOldest(): Promise<void> {
    const g = ++generation;
    try {
      const page = await transport.call('listRequests', { ...store.getState().filter, oldest: true, limit: INBOUND_PAGE });
      if (g !== generation) return;
      store.setState({ rows: page.items, nextBeforeId: null, loaded: true, error: null });
    } catch (err) {
      fail(err);
    }
  }

  const loadSources = (): Promise<void> => transport.call('listSources').then((sources) => store.setState({ sources }), fail);

  const firstPage = batcher(schedule, loadFirstPage);
  function queue(event: LiveEvent): void {
    if (event.type === 'config' && event.what === 'sources') void loadSources();
    if (event.type === 'requests' && !store.getState().atOldest) firstPage.kick();
  }

  return {
    store,
    retry() {
      void loadFirstPage();
      void loadSources();
    },
    start() {
      void loadFirstPage();
      void loadSources();
      transport.call('getEnvironment').then((environment) => store.setState({ environment }), fail);
      return followLive(transport, { onEvent: queue, onReconnect: () => {
          if (!store.getState().atOldest) firstPage.kick();
          void loadSources();
        },
      });
    },
  };
}
