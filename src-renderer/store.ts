/**
 * Deliveries as the views see them: the first page of the log, the selected delivery's detail, and
 * the live connection's state. Live events are queued and applied at most once per frame
 * (DESIGN.md: live updates are batched).
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { DeliveryDetail, DeliverySummary, LiveEvent, ReplayInput } from '../src-shared/api';
import type { Source } from '../src-shared/settings';
import type { ConnectionState, Transport } from './transport';

export const FIRST_PAGE = 100;
/** More changed rows than this in one frame: refetch the first page instead of one by one. */
const MAX_SINGLE_REFETCH = 20;

export interface DeliveriesState {
  rows: DeliverySummary[];
  loaded: boolean;
  error: string | null;
  connection: ConnectionState;
  sources: Source[];
  selectedId: number | null;
  detail: DeliveryDetail | null;
  /** The last replay's refusal, in plain words, until the next attempt. */
  replayError: string | null;
  select(id: number | null): void;
  /** Replays the selected delivery, then selects the replay so the user watches it go out. */
  replay(options: Omit<ReplayInput, 'id'>): Promise<void>;
}

export type Schedule = (flush: () => void) => void;

const perFrame: Schedule = (flush) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush);
  else setTimeout(flush, 16);
};

function summaryOf(detail: DeliveryDetail): DeliverySummary {
  const { body: _b, targetUrl: _t, edited: _e, firstAttemptAt: _f, finishedAt: _fa, attempts: _a, ...summary } = detail;
  return summary;
}

/** Newest first, each id once; the updates win over the rows they replace. */
function merge(rows: DeliverySummary[], updates: DeliverySummary[]): DeliverySummary[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const u of updates) byId.set(u.id, u);
  return [...byId.values()].sort((a, b) => b.id - a.id);
}

export interface DeliveriesStore {
  store: StoreApi<DeliveriesState>;
  /** Loads the first page and starts following live events; returns the stop function. */
  start(): () => void;
}

export function createDeliveriesStore(transport: Transport, schedule: Schedule = perFrame): DeliveriesStore {
  const pending = new Set<number>();
  let refetchAll = false;
  let scheduled = false;
  // Flushes run one after another, so an older answer never overwrites a newer one.
  let flushing: Promise<void> = Promise.resolve();

  const store = createStore<DeliveriesState>()((set, get) => ({
    rows: [],
    loaded: false,
    error: null,
    connection: 'connecting',
    sources: [],
    selectedId: null,
    detail: null,
    replayError: null,
    select(id) {
      set({ selectedId: id, detail: id === get().detail?.id ? get().detail : null, replayError: null });
      if (id !== null) void loadDetail(id);
    },
    async replay(options) {
      const id = get().selectedId;
      if (id === null) return;
      try {
        const replay = await transport.call('replayDelivery', { id, ...options });
        set({ rows: merge(get().rows, [summaryOf(replay)]), selectedId: replay.id, detail: replay, replayError: null });
      } catch (err) {
        set({ replayError: err instanceof Error ? err.message : String(err) });
      }
    },
  }));

  const fail = (err: unknown): void => store.setState({ error: (err as Error).message });

  async function loadDetail(id: number): Promise<void> {
    try {
      const detail = await transport.call('getDelivery', id);
      if (store.getState().selectedId === id) store.setState({ detail });
    } catch (err) {
      fail(err);
    }
  }

  async function loadFirstPage(): Promise<void> {
    try {
      const page = await transport.call('listDeliveries', { limit: FIRST_PAGE });
      store.setState((s) => ({ rows: merge(s.rows, page.items).slice(0, FIRST_PAGE), loaded: true, error: null }));
    } catch (err) {
      fail(err);
    }
  }

  async function flush(): Promise<void> {
    scheduled = false;
    if (pending.size === 0 && !refetchAll) return;
    const ids = [...pending];
    pending.clear();
    const { rows, selectedId } = store.getState();
    const known = new Set(rows.map((r) => r.id));
    const all = refetchAll || ids.some((id) => !known.has(id)) || ids.length > MAX_SINGLE_REFETCH;
    refetchAll = false;
    try {
      if (all) {
        const page = await transport.call('listDeliveries', { limit: FIRST_PAGE });
        store.setState((s) => ({ rows: merge(s.rows, page.items).slice(0, FIRST_PAGE), loaded: true, error: null }));
      } else {
        const details = await Promise.all(ids.map((id) => transport.call('getDelivery', id)));
        const found = details.filter((d): d is DeliveryDetail => d !== null);
        store.setState((s) => ({ rows: merge(s.rows, found.map(summaryOf)), error: null }));
      }
      if (selectedId !== null && ids.includes(selectedId)) await loadDetail(selectedId);
    } catch (err) {
      fail(err);
    }
  }

  function queue(event: LiveEvent): void {
    if (event.type === 'deliveries') for (const id of event.ids) pending.add(id);
    else if (event.type === 'config' && event.what === 'sources') void transport.call('listSources').then((sources) => store.setState({ sources }), fail);
    if (!scheduled && (pending.size > 0 || refetchAll)) {
      scheduled = true;
      schedule(() => {
        flushing = flushing.then(flush);
      });
    }
  }

  return {
    store,
    start() {
      void loadFirstPage();
      void transport.call('listSources').then((sources) => store.setState({ sources }), fail);
      let wasConnected = false;
      return transport.subscribe(queue, (connection) => {
        store.setState({ connection });
        // Events sent while the stream was down are lost: catch up from the log.
        if (connection === 'connected' && wasConnected) {
          refetchAll = true;
          queue({ type: 'deliveries', ids: [] });
        }
        if (connection === 'connected') wasConnected = true;
      });
    },
  };
}
