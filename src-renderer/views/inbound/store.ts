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
/**
 * Calls the list holds at most. Paging further back drops the newest ones from the top, and the
 * list stops following new calls until Newest brings it back. The table is laid out and painted
 * whole: with 4,000 calls paged in, each live refresh took about 60 ms of layout and 50 of
 * painting, ten times a second, and the page froze (bench/ui-inbound.measure.ts).
 */
export const INBOUND_MAX_ROWS = 600;

/** Pure: the rows after new calls came in live: the oldest dropped beyond `max`, paged in again by Load older. */
export function keepNewest(p: Pick<InboundState, 'rows' | 'nextBeforeId'>, max = INBOUND_MAX_ROWS): Pick<InboundState, 'rows' | 'nextBeforeId'> {
  if (p.rows.length <= max) return p;
  const rows = p.rows.slice(0, max);
  return { rows, nextBeforeId: (rows[rows.length - 1] as InboundRequest).id };
}

/** Pure: the rows after older ones were paged in: the newest dropped beyond `max`, and whether any were. */
export function keepOlder(rows: InboundRequest[], max = INBOUND_MAX_ROWS): { rows: InboundRequest[]; dropped: boolean } {
  return rows.length > max ? { rows: rows.slice(rows.length - max), dropped: true } : { rows, dropped: false };
}

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
  /** Paging back dropped the newest calls (INBOUND_MAX_ROWS): the list is not live until Newest. */
  newestDropped: boolean;
  /** Replaces the filter and loads the first page again. */
  setFilter(filter: RequestFilter): void;
  jump(to: 'oldest' | 'newest'): void;
  select(id: number | null): void;
  /** Selects the row after (+1) or before (-1) the selected one. */
  move(step: 1 | -1): void;
  loadMore(): Promise<void>;
}


/**
 * Newest first, each id once. Requests are written once, whole, so a row never changes: the rows
 * already held are kept as they are (the same objects, so the list re-renders none of them), and
 * when nothing is new the same array comes back. New rows above the newest and below the oldest
 * are the live refresh and Load older; only a row in between (a gap) makes a full merge. With
 * thousands of rows paged in, each live refresh sorted and re-rendered them all, and the page
 * froze for seconds.
 */
export function mergeRows(rows: InboundRequest[], more: InboundRequest[]): InboundRequest[] {
  const newest = rows[0]?.id ?? Number.NEGATIVE_INFINITY;
  const oldest = rows[rows.length - 1]?.id ?? Number.POSITIVE_INFINITY;
  const held = (id: number): boolean => {
    // Binary search: rows are newest first.
    let lo = 0;
    let hi = rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = (rows[mid] as InboundRequest).id;
      if (at === id) return true;
      if (at > id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
  const above = new Map<number, InboundRequest>();
  const below = new Map<number, InboundRequest>();
  for (const r of more) {
    if (r.id > newest) above.set(r.id, r);
    else if (r.id < oldest) below.set(r.id, r);
    else if (!held(r.id)) {
      const byId = new Map(rows.map((x) => [x.id, x]));
      for (const m of more) if (!byId.has(m.id)) byId.set(m.id, m);
      return [...byId.values()].sort((a, b) => b.id - a.id);
    }
  }
  if (above.size === 0 && below.size === 0) return rows;
  const desc = (a: InboundRequest, b: InboundRequest): number => b.id - a.id;
  return [...[...above.values()].sort(desc), ...rows, ...[...below.values()].sort(desc)];
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
    newestDropped: false,
    setFilter(filter) {
      set({ filter: requestFilterParams(filter), atOldest: false, newestDropped: false, rows: [], nextBeforeId: null, loaded: false });
      void loadFirstPage();
    },
    jump(to) {
      if (to === 'newest') {
        set({ atOldest: false, newestDropped: false, rows: [], nextBeforeId: null });
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
        const kept = keepOlder(mergeRows(get().rows, page.items));
        set({
          rows: kept.rows,
          nextBeforeId: page.nextBeforeId,
          loadingMore: false,
          error: null,
          ...(kept.dropped ? { newestDropped: true } : {}),
        });
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
      store.setState((s) => ({ ...keepNewest(withFirstPage(s, page)), loaded: true, error: null }));
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
  /** Whether the list shows the newest calls, so that new ones are added above them. */
  const following = (): boolean => !store.getState().atOldest && !store.getState().newestDropped;
  function queue(event: LiveEvent): void {
    if (event.type === 'config' && event.what === 'sources') void loadSources();
    if (event.type === 'requests' && following()) firstPage.kick();
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
          if (following()) firstPage.kick();
          void loadSources();
        },
      });
    },
  };
}
