/**
 * Deliveries as the views see them: the log paged by keyset (the first page, then
 * older pages as the user scrolls; never the whole log), the filter and its counts, the live tail
 * with its pause switch, the bulk replay, and the selected delivery's detail.
 *
 * Live events are queued and applied at most once per frame: one getDeliverySummaries for the changed rows on screen, one listDeliveries with the filter for
 * rows that are new (or newly match). Changed rows off screen are only marked stale and refreshed
 * when they scroll into view.
 */
import { createStore } from 'zustand/vanilla';
import {
  MAX_PAGE_LIMIT,
  type DeliveryCounts,
  type DeliveryDetail,
  type DeliveryFilter,
  type DeliverySummary,
  type DoctorInput,
  type DoctorReport,
  type LiveEvent,
  type PageResult,
  type ReplayInput,
} from '../../../src-shared/api';
import type { Destination, Source } from '../../../src-shared/settings';
import { bulkCounts, replayFailedInFilter, type BulkProgress } from './bulk-replay';
import { appendOlder, applyUpdates, filterParams, insertRows, isFilterActive, summaryOf, trimRows } from './rows';
import type { ConnectionState, Transport } from '../../transport';
import { refusalOf } from '../../api-error';
import { batcher, followLive, messageOf, perFrame, type Schedule, type ViewStore } from '../../shared/live-store';

export const FIRST_PAGE = 100;
/** Rows kept in memory under a live tail; older ones are dropped and paged back in on scroll. */
export const MAX_ROWS = 5_000;
/** New rows held while paused; beyond this they are only counted, and "show" reloads the first page. */
export const MAX_HELD = 1_000;
/** Rows either side of the viewport refreshed with it, so a short scroll shows fresh rows. */
const REFRESH_MARGIN = 20;
/** Pages one frame may read to catch up with new rows; more means the list restarts from the newest. */
const MAX_CATCH_UP_PAGES = 3;
export const COUNTS_EVERY_MS = 500;
/**
 * Calls a search that stops short makes on its own, one after another, before it waits for Keep
 * searching: each reads a stretch of the log bounded in time on the engine's side (about 20 ms
 * of reading), so a filter whose matches lie some way down fills the list without a click, and
 * one that matches nothing in a big log stops after a second or two rather than keep the
 * engine's read worker busy for as long as the log takes to read.
 */
export const AUTO_SEARCH_CALLS = 40;

export interface BulkReplayState extends Omit<BulkProgress, 'replayIds'> {
  state: 'running' | 'cancelling' | 'cancelled' | 'finished';
}

/** "Replay failed in this filter" waiting for the person to confirm: what it would replay, and what it leaves alone. */
export interface BulkConfirmState {
  /** Still counting. */
  counting: boolean;
  /** Failed deliveries in the filter never replayed. */
  fresh: number;
  /** Failed deliveries in the filter replayed before: left out unless includeReplayed. */
  alreadyReplayed: number;
  includeReplayed: boolean;
  /** The counts are lower bounds (capped, or a search counted over part of the log). */
  atLeast?: boolean;
}

/** The replay form as typed: kept in the store so a tab switch does not lose an edited body or a target URL. */
export interface ReplayDraft {
  mode: 'idle' | 'edit' | 'url';
  body: string;
  url: string;
}

export interface DeliveriesState {
  /** Loaded rows matching the filter, newest first. */
  rows: DeliverySummary[];
  /** The first page of the current filter has arrived. */
  loaded: boolean;
  /** A new filter's first page is on its way (the old rows stay until it arrives). */
  loading: boolean;
  error: string | null;
  connection: ConnectionState;
  sources: Source[];
  destinations: Destination[];
  /** The first-run test event: on its way, sent (its messageId), or refused (why). */
  testEvent: { state: 'sending' } | { state: 'sent'; messageId: string } | { state: 'refused'; why: string } | null;
  filter: DeliveryFilter;
  /** Every delivery and those the filter lets through; refreshed at most every COUNTS_EVERY_MS. */
  counts: DeliveryCounts | null;
  /** Older rows exist beyond the last loaded one. */
  hasOlder: boolean;
  /**
   * The last page stopped reading before it was full (a search no index answers reads the log a
   * bounded stretch per call): how far it read, and which way keepSearching() goes on. The list
   * must not read as the end then; it reads on by itself for AUTO_SEARCH_CALLS calls while less
   * than a page is on screen, then waits for keepSearching().
   */
  searched: { to: string; direction: 'older' | 'newer' } | null;
  /** Reads the next stretch of the log for the search (see searched). */
  keepSearching(): void;
  loadingOlder: boolean;
  paused: boolean;
  /** The list shows the oldest page (live paused) until the user goes back to the newest. */
  atOldest: boolean;
  /** Shows the oldest page of the filter (pausing live), or the newest again (live resumed). */
  jump(to: 'oldest' | 'newest'): void;
  /** New matching rows that arrived while paused, not shown yet. */
  newWhilePaused: number;
  bulk: BulkReplayState | null;
  /** The bulk replay's question, while it is asked. */
  bulkConfirm: BulkConfirmState | null;
  selectedId: number | null;
  detail: DeliveryDetail | null;
  /** The last replay's refusal, in plain words, until the next attempt. */
  replayError: string | null;
  replayDraft: ReplayDraft;
  setReplayDraft(patch: Partial<ReplayDraft>): void;
  select(id: number | null): void;
  /** Replays the selected delivery, then selects the replay so the user watches it go out. */
  replay(options: Omit<ReplayInput, 'id'>): Promise<void>;
  /** Replaces the filter: the first page and the counts are loaded again. */
  setFilter(filter: DeliveryFilter): void;
  /** Loads the next older page (the list calls it as the user nears the end). */
  loadOlder(): void;
  setPaused(paused: boolean): void;
  /** Shows the rows held while paused (the switch stays as it is). */
  showNew(): void;
  /** The list tells which rows are on screen (indexes into rows), so changed ones there are refreshed. */
  setViewport(first: number, last: number): void;
  /**
   * Whether the Deliveries view is on screen. While it is not, live changes do not ask for the
   * counts (every 500 ms under traffic, each a read of the log on a big one); they are asked
   * once when it is shown again.
   */
  setShown(shown: boolean): void;
  /** Asks to replay the failed deliveries the filter lets through: counts them and waits for confirmBulk. */
  replayFailed(): void;
  setIncludeReplayed(include: boolean): void;
  /** Replays them: those never replayed, and the ones replayed before too when asked. */
  confirmBulk(): void;
  cancelConfirm(): void;
  /** Sends the selected waiting delivery's next round now. */
  retryNow(): Promise<void>;
  retryNowError: string | null;
  retryingNow: boolean;
  /** Sends one track call from this source through the client library, as an SDK would. */
  sendTestEvent(source: string): Promise<void>;
  /** Stops the bulk replay after the call in flight. */
  cancelBulk(): void;
  dismissBulk(): void;
  /** The signature doctor on the selected delivery: the report, or the refusal in words (the panel keeps the answer). */
  diagnoseSignature(input: Omit<DoctorInput, 'id'>): Promise<{ report: DoctorReport } | { error: string }>;
  /** The selected delivery's destination secret, read only when the user asks to reveal it; null without one. */
  revealSecret(): Promise<string | null>;
}

export type { Schedule };
export type Delay = (fn: () => void, ms: number) => () => void;

export interface StoreOptions {
  /** When to apply queued live events: the next animation frame by default. */
  schedule?: Schedule;
  /** A timer for the throttled counts; setTimeout by default. */
  delay?: Delay;
  pageSize?: number;
  maxRows?: number;
  /** AUTO_SEARCH_CALLS unless set (0: a search that stops short reads on only when asked). */
  autoSearchCalls?: number;
}

const timeout: Delay = (fn, ms) => {
  const t = setTimeout(fn, ms);
  return () => clearTimeout(t);
};

/** Pure: how far a page that stopped short read, and which way its search goes on; null for a page that did not. */
export function searchedOf(page: Pick<PageResult<unknown>, 'partial'>): DeliveriesState['searched'] {
  if (!page.partial) return null;
  return { to: page.partial.searchedTo, direction: 'beforeId' in page.partial.resume ? 'older' : 'newer' };
}

/** Loads the first page and follows live events until stopped. */
export type DeliveriesStore = ViewStore<DeliveriesState>;

export function createDeliveriesStore(transport: Transport, options: StoreOptions = {}): DeliveriesStore {
  const schedule = options.schedule ?? perFrame;
  const delay = options.delay ?? timeout;
  const pageSize = options.pageSize ?? FIRST_PAGE;
  const maxRows = options.maxRows ?? MAX_ROWS;
  const autoSearchCalls = options.autoSearchCalls ?? AUTO_SEARCH_CALLS;
  /** Calls the search that stopped short may still make on its own (see AUTO_SEARCH_CALLS). */
  let autoSearchLeft = 0;

  // Bumped whenever the list restarts (new filter, catch-up overflow): answers for an older
  // generation are dropped, so a slow first page never lands over a newer filter's rows.
  let generation = 0;
  let nextBeforeId: number | null = null;
  /** With the oldest page shown and its search stopped short: the id its next call reads above. */
  let oldestResume: number | null = null;
  /** Ids named by live events since the last flush. */
  const changed = new Set<number>();
  /** Loaded (or held) rows known to have changed, refreshed once on screen. */
  const stale = new Set<number>();
  const held = new Map<number, DeliverySummary>();
  let heldOverflow = 0;
  /** After a reconnect: events were lost, so everything loaded is stale and new rows are caught up from the top. */
  let catchUp = false;
  let viewport = { first: 0, last: 40 };
  let countsTimer: (() => void) | null = null;
  // Whether the view is on screen (the window says, setShown): counts asked by live changes while it is not wait for it.
  let shown = true;
  let countsOwed = false;
  let bulkCancelled = false;

  const store = createStore<DeliveriesState>()((set, get) => ({
    rows: [],
    loaded: false,
    loading: false,
    error: null,
    connection: 'connecting',
    sources: [],
    destinations: [],
    testEvent: null,
    filter: {},
    counts: null,
    hasOlder: false,
    searched: null,
    loadingOlder: false,
    paused: false,
    atOldest: false,
    newWhilePaused: 0,
    bulk: null,
    bulkConfirm: null,
    retryNowError: null,
    retryingNow: false,
    selectedId: null,
    detail: null,
    replayError: null,
    // Empty: the field shows an example as its placeholder, never an address someone might send to by mistake.
    replayDraft: { mode: 'idle', body: '', url: '' },
    setReplayDraft(patch) {
      set({ replayDraft: { ...get().replayDraft, ...patch } });
    },
    select(id) {
      set({ selectedId: id, detail: id === get().detail?.id ? get().detail : null, replayError: null, retryNowError: null });
      if (id !== null) void loadDetail(id);
    },
    async replay(input) {
      const id = get().selectedId;
      if (id === null) return;
      try {
        const replay = await transport.call('replayDelivery', { id, ...input });
        // Shown at once when the list shows everything live; otherwise the live tail decides.
        const direct = !isFilterActive(get().filter) && !get().paused;
        set({
          ...(direct ? { rows: insertRows(get().rows, [summaryOf(replay)]) } : {}),
          selectedId: replay.id,
          detail: replay,
          replayError: null,
        });
      } catch (err) {
        set({ replayError: messageOf(err) });
      }
    },
    setFilter(filter) {
      set({ filter: filterParams(filter), atOldest: false });
      void reload();
    },
    jump(to) {
      if (to === 'newest') {
        set({ atOldest: false, paused: false });
        void reload();
        return;
      }
      // New rows would land above a page from the other end of the log: they are held, as when paused.
      set({ atOldest: true, paused: true });
      void loadOldest();
    },
    loadOlder() {
      void loadOlder();
    },
    keepSearching() {
      const searched = get().searched;
      autoSearchLeft = autoSearchCalls;
      if (searched?.direction === 'older') void loadOlder();
      else if (searched?.direction === 'newer') void loadNewerOfOldest();
    },
    setPaused(paused) {
      if (!paused && get().atOldest) {
        get().jump('newest');
        return;
      }
      set({ paused });
      if (!paused) get().showNew();
    },
    showNew() {
      if (heldOverflow > 0 || get().atOldest) {
        if (get().atOldest) set({ atOldest: false });
        void reload();
        return;
      }
      const rows = [...held.values()];
      held.clear();
      set({ rows: insertRows(get().rows, rows), newWhilePaused: 0 });
      kick();
    },
    setShown(next) {
      shown = next;
      if (shown && countsOwed) {
        countsOwed = false;
        void refreshCounts();
      }
    },
    setViewport(first, last) {
      viewport = { first, last };
      const rows = get().rows;
      if (stale.size === 0) return;
      for (let i = Math.max(0, first - REFRESH_MARGIN); i <= Math.min(rows.length - 1, last + REFRESH_MARGIN); i++) {
        if (stale.has((rows[i] as DeliverySummary).id)) {
          kick();
          return;
        }
      }
    },
    async retryNow() {
      const id = get().selectedId;
      if (id === null || get().retryingNow) return;
      set({ retryingNow: true, retryNowError: null });
      try {
        const detail = await transport.call('retryNow', { id });
        if (get().selectedId === id) set({ detail });
      } catch (err) {
        if (get().selectedId === id) set({ retryNowError: messageOf(err) });
      } finally {
        set({ retryingNow: false });
        }
      },
    async sendTestEvent(source) {
      if (get().testEvent?.state === 'sending') return;
      set({ testEvent: { state: 'sending' } });
      try {
        const result = await transport.call('composeEvents', {
          source,
          type: 'track',
          message: { userId: 'hookbench_test_user', event: 'Hookbench Test Event', properties: { sentFrom: 'first run' } },
        });
        set({ testEvent: { state: 'sent', messageId: result.messageIds[0] ?? '' } });
      } catch (err) {
        set({ testEvent: { state: 'refused', why: refusalOf(err).map((e) => e.message).join('; ') } });
      }
    },
    replayFailed() {
      if (get().bulk?.state === 'running' || get().bulk?.state === 'cancelling') return;
      const asked = { counting: true, fresh: 0, alreadyReplayed: 0, includeReplayed: false };
      set({ bulkConfirm: asked });
      void bulkCounts((m, p) => transport.call(m, p), get().filter).then(
        (counts) => {
          if (get().bulkConfirm === asked) set({ bulkConfirm: { ...asked, ...counts, counting: false } });
        },
        (err: unknown) => {
          set({ bulkConfirm: null });
          fail(err);
        },
      );
    },
    setIncludeReplayed(include) {
      const c = get().bulkConfirm;
      if (c) set({ bulkConfirm: { ...c, includeReplayed: include } });
    },
    cancelConfirm() {
      set({ bulkConfirm: null });
    },
    confirmBulk() {
      const c = get().bulkConfirm;
      if (!c || c.counting) return;
      if (get().bulk?.state === 'running' || get().bulk?.state === 'cancelling') return;
      bulkCancelled = false;
      set({ bulkConfirm: null, bulk: { state: 'running', done: 0, total: 0, replayed: 0, failed: 0, skipped: 0, firstError: null } });
      const state = (): BulkReplayState['state'] => (bulkCancelled ? 'cancelling' : 'running');
      void replayFailedInFilter((m, p) => transport.call(m, p), get().filter, {
        includeReplayed: c.includeReplayed,
        isCancelled: () => bulkCancelled,
        onProgress: ({ replayIds: _ids, ...p }) => set({ bulk: { ...p, state: state() } }),
      }).then(
        ({ replayIds: _ids, ...p }) => set({ bulk: { ...p, state: bulkCancelled ? 'cancelled' : 'finished' } }),
        (err: unknown) => {
          const b = get().bulk;
          set({ bulk: { done: 0, total: 0, replayed: 0, failed: 0, skipped: 0, ...b, firstError: b?.firstError ?? messageOf(err), state: 'finished' } });
        },
      );
    },
    cancelBulk() {
      const b = get().bulk;
      if (b?.state !== 'running') return;
      bulkCancelled = true;
      set({ bulk: { ...b, state: 'cancelling' } });
    },
    dismissBulk() {
      if (get().bulk?.state === 'running' || get().bulk?.state === 'cancelling') return;
      set({ bulk: null });
    },
    async diagnoseSignature(input) {
      const id = get().selectedId;
      if (id === null) return { error: 'no delivery is selected' };
      try {
        return { report: await transport.call('diagnoseSignature', { id, ...input }) };
      } catch (err) {
        return { error: messageOf(err) };
      }
    },
    async revealSecret() {
      const destinationId = get().detail?.destinationId;
      if (destinationId === undefined) return null;
      const destinations = await transport.call('listDestinations');
      return destinations.find((d) => d.id === destinationId)?.sharedSecret ?? null;
    },
  }));

  const fail = (err: unknown): void => store.setState({ error: messageOf(err) });
  const filterNow = (): DeliveryFilter => store.getState().filter;

  async function loadDetail(id: number): Promise<void> {
    try {
      const detail = await transport.call('getDelivery', id);
      if (store.getState().selectedId === id) store.setState({ detail });
    } catch (err) {
      fail(err);
    }
  }

  /** Starts the list over for the current filter: the first page and the counts. */
  async function reload(): Promise<void> {
    const g = ++generation;
    changed.clear();
    stale.clear();
    held.clear();
    heldOverflow = 0;
    catchUp = false;
    nextBeforeId = null;
    oldestResume = null;
    // An older page on its way belongs to the old filter: it is dropped when it lands; so is its
    // count, which would otherwise stand beside the new filter's rows until the new one answers.
    store.setState({ loading: true, newWhilePaused: 0, loadingOlder: false, counts: null });
    const filter = filterNow();
    autoSearchLeft = autoSearchCalls;
    void refreshCounts();
    try {
      const page = await transport.call('listDeliveries', { ...filter, limit: pageSize });
      if (g !== generation) return;
      nextBeforeId = page.nextBeforeId;
      store.setState({ rows: page.items, loaded: true, loading: false, hasOlder: page.nextBeforeId !== null, searched: searchedOf(page), error: null });
      if (changed.size > 0) kick();
      searchOn();
    } catch (err) {
      if (g === generation) {
        store.setState({ loading: false });
        fail(err);
      }
    }
  }

  /** The filter's oldest page: nothing is older, and newer pages come back with jump('newest'). */
  async function loadOldest(): Promise<void> {
    const g = ++generation;
    changed.clear();
    stale.clear();
    held.clear();
    heldOverflow = 0;
    nextBeforeId = null;
    store.setState({ loading: true, newWhilePaused: 0, loadingOlder: false });
    try {
      const page = await transport.call('listDeliveries', { ...filterNow(), oldest: true, limit: pageSize });
      if (g !== generation) return;
      oldestResume = page.partial && 'afterId' in page.partial.resume ? page.partial.resume.afterId : null;
      store.setState({ rows: page.items, loaded: true, loading: false, hasOlder: false, searched: searchedOf(page), error: null });
    } catch (err) {
      if (g === generation) {
        store.setState({ loading: false });
        fail(err);
      }
    }
  }

  async function loadOlder(): Promise<void> {
    const s = store.getState();
    if (s.loadingOlder || nextBeforeId === null || !s.loaded) return;
    const g = generation;
    store.setState({ loadingOlder: true });
    try {
      const page = await transport.call('listDeliveries', { ...s.filter, beforeId: nextBeforeId, limit: pageSize });
      if (g !== generation) return;
      nextBeforeId = page.nextBeforeId;
      store.setState((st) => ({ rows: appendOlder(st.rows, page.items), hasOlder: page.nextBeforeId !== null, searched: searchedOf(page), loadingOlder: false }));
      searchOn();
    } catch (err) {
      store.setState({ loadingOlder: false });
      fail(err);
    }
  }

  /** A search that stopped short with less than a page on screen reads on by itself, while its calls last. */
  function searchOn(): void {
    const s = store.getState();
    if (autoSearchLeft <= 0 || s.searched?.direction !== 'older' || s.rows.length >= pageSize) return;
    autoSearchLeft--;
    void loadOlder();
  }

  /** The oldest page's search goes on upward: the rows above the ones shown, up to a page in all. */
  async function loadNewerOfOldest(): Promise<void> {
    const s = store.getState();
    if (s.loadingOlder || oldestResume === null || !s.loaded || !s.atOldest) return;
    const g = generation;
    store.setState({ loadingOlder: true });
    try {
      const page = await transport.call('listDeliveries', { ...s.filter, oldest: true, afterId: oldestResume, limit: Math.max(1, pageSize - s.rows.length) });
      if (g !== generation) return;
      oldestResume = page.partial && 'afterId' in page.partial.resume ? page.partial.resume.afterId : null;
      store.setState((st) => ({ rows: [...page.items, ...st.rows], searched: searchedOf(page), loadingOlder: false }));
    } catch (err) {
      store.setState({ loadingOlder: false });
      fail(err);
    }
  }

  /**
   * One count at a time: a count asked every COUNTS_EVERY_MS while the last is still running (on
   * a slow or busy engine; at 10M, before counts were bounded in time, one took 4.5 s) would queue
   * behind it on the engine's read worker, and everything else with it. A count asked meanwhile is
   * made once, for the filter as it is then, when the one running answers.
   */
  let counting = false;
  let countAgain = false;

  async function refreshCounts(): Promise<void> {
    if (countsTimer) {
      countsTimer();
      countsTimer = null;
    }
    if (counting) {
      countAgain = true;
      return;
    }
    counting = true;
    try {
      do {
        countAgain = false;
        const g = generation;
        const counts = await transport.call('countDeliveries', filterNow());
        if (g === generation) store.setState({ counts });
      } while (countAgain);
    } catch (err) {
      fail(err);
    } finally {
      counting = false;
    }
  }

  /** At most one count per COUNTS_EVERY_MS however many events arrive (trailing, so the last change is counted). */
  function countsSoon(): void {
    if (!shown) {
      countsOwed = true;
      return;
    }
    countsTimer ??= delay(() => {
      countsTimer = null;
      void refreshCounts();
    }, COUNTS_EVERY_MS);
  }

  /** Rows matching the filter newer than `afterId` (and older than `beforeId`), a few pages at most. */
  async function rowsBetween(filter: DeliveryFilter, afterId: number, beforeId: number | null): Promise<{ rows: DeliverySummary[]; complete: boolean }> {
    const rows: DeliverySummary[] = [];
    let cursor = beforeId;
    for (let n = 0; n < MAX_CATCH_UP_PAGES; n++) {
      const page = await transport.call('listDeliveries', {
        ...filter,
        limit: MAX_PAGE_LIMIT,
        ...(afterId > 0 ? { afterId } : {}),
        ...(cursor !== null ? { beforeId: cursor } : {}),
      });
      rows.push(...page.items);
      if (page.nextBeforeId === null) return { rows, complete: true };
      cursor = page.nextBeforeId;
    }
    return { rows, complete: false };
  }

  async function flush(): Promise<void> {
    const s = store.getState();
    if (!s.loaded || s.loading) return; // the page on its way is fresher; its arrival kicks a flush
    const ids = [...changed];
    changed.clear();
    const g = generation;
    const index = new Map(s.rows.map((r, i) => [r.id, i]));
    const known = (id: number): boolean => index.has(id) || held.has(id);
    // Below what the list has read (down to nextBeforeId: its last row, or where a search that
    // stopped short got to, rows or none) the user has not scrolled yet: those rows are read fresh
    // when they are, and a stopped search finds them as it reads on.
    const floor = s.hasOlder ? Math.max(0, (nextBeforeId ?? 1) - 1) : 0;
    const unknown: number[] = [];
    for (const id of ids) {
      if (known(id)) stale.add(id);
      else if (id > floor) unknown.push(id);
    }
    if (catchUp) for (const r of s.rows) stale.add(r.id);
    const top = Math.max(s.rows[0]?.id ?? 0, ...held.keys());

    try {
      // 1. Rows new to the list: created since, or changed so that they now match the filter.
      let found: DeliverySummary[] = [];
      if (!catchUp && unknown.length > 0 && unknown.length <= MAX_PAGE_LIMIT) {
        // The rows the events named, each checked by the filter where it is: never a read through
        // the log, which a filter no index serves would make in bounded steps, and start over.
        found = (await transport.call('listDeliveries', { ...filterParams(s.filter), ids: unknown, limit: unknown.length })).items;
        if (g !== generation) return;
        for (const r of found) stale.delete(r.id);
      } else if (unknown.length > 0 || catchUp) {
        const after = catchUp ? top : Math.min(...unknown) - 1;
        const before = catchUp ? null : Math.max(...unknown) + 1;
        catchUp = false;
        const between = await rowsBetween(s.filter, after, before);
        if (g !== generation) return;
        if (!between.complete) {
          // Too many to splice in: start over from the newest rows.
          void reload();
          return;
        }
        found = between.rows;
        for (const r of found) stale.delete(r.id);
      }
      // 2. Changed rows on screen (and just around it), in one call.
      const now = store.getState();
      const onScreen: number[] = [];
      const from = Math.max(0, viewport.first - REFRESH_MARGIN);
      const to = Math.min(now.rows.length - 1, viewport.last + REFRESH_MARGIN);
      for (let i = from; i <= to && onScreen.length < MAX_PAGE_LIMIT; i++) {
        const id = (now.rows[i] as DeliverySummary).id;
        if (stale.has(id)) onScreen.push(id);
      }
      let refreshed: DeliverySummary[] = [];
      if (onScreen.length > 0) {
        refreshed = await transport.call('getDeliverySummaries', onScreen);
        if (g !== generation) return;
        for (const id of onScreen) stale.delete(id);
      }
      // Asked for but not returned: gone from the log (a deletion request purged them).
      const returned = new Set(refreshed.map((r) => r.id));
      apply(found, refreshed, new Set(onScreen.filter((id) => !returned.has(id))));
      const selectedId = store.getState().selectedId;
      if (selectedId !== null && ids.includes(selectedId)) await loadDetail(selectedId);
    } catch (err) {
      fail(err);
    }
  }

  function apply(found: DeliverySummary[], refreshed: DeliverySummary[], gone: ReadonlySet<number> = new Set()): void {
    const s = store.getState();
    const updates = new Map<number, DeliverySummary>();
    const added: DeliverySummary[] = [];
    const index = new Set(s.rows.map((r) => r.id));
    for (const r of found) {
      if (index.has(r.id)) updates.set(r.id, r);
      else if (held.has(r.id)) held.set(r.id, r);
      else added.push(r);
    }
    for (const r of refreshed) {
      updates.set(r.id, r);
      if (held.has(r.id)) held.set(r.id, r);
    }
    let rows = applyUpdates(s.rows, updates);
    if (gone.size > 0) {
      rows = rows.filter((r) => !gone.has(r.id));
      for (const id of gone) held.delete(id);
    }
    let hasOlder = s.hasOlder;
    if (s.paused) {
      for (const r of added) {
        if (held.size < MAX_HELD) held.set(r.id, r);
        else heldOverflow++;
      }
    } else if (added.length > 0) {
      rows = insertRows(rows, added);
      // The list keeps its place when rows arrive above it, so what is on screen moved down by as many.
      const trimmed = trimRows(rows, maxRows, viewport.last + added.length + REFRESH_MARGIN);
      if (trimmed.trimmed) {
        rows = trimmed.rows;
        nextBeforeId = rows[rows.length - 1]?.id ?? null;
        hasOlder = true;
      }
    }
    const newWhilePaused = held.size + heldOverflow;
    if (rows !== s.rows || hasOlder !== s.hasOlder || newWhilePaused !== s.newWhilePaused) {
      store.setState({ rows, hasOlder, newWhilePaused, error: null });
    }
  }

  const batch = batcher(schedule, flush);
  const kick = (): void => batch.kick();

  /** Sources and destinations: the empty state's first-run steps and the write key in its snippet. */
  async function loadConfig(): Promise<void> {
    try {
      const [sources, destinations] = await Promise.all([transport.call('listSources'), transport.call('listDestinations')]);
      store.setState({ sources, destinations });
    } catch (err) {
      fail(err);
    }
  }

  function queue(event: LiveEvent): void {
    if (event.type === 'deliveries') {
      for (const id of event.ids) changed.add(id);
      if (event.ids.length > 0) {
        countsSoon();
        kick();
      }
    } else if (event.type === 'config' && (event.what === 'sources' || event.what === 'destinations')) {
      void loadConfig();
    }
  }

  return {
    store,
    retry() {
      void reload();
      void loadConfig();
    },
    start() {
      void reload();
      void loadConfig();
      const stop = followLive(transport, {
        onEvent: queue,
        onState: (connection) => store.setState({ connection }),
        onReconnect() {
          // A failed first read has no rows to catch up from: read the page anew.
          if (!store.getState().loaded || store.getState().error !== null) {
            void reload();
            void loadConfig();
            return;
          }
          catchUp = true;
          countsSoon();
          kick();
        },
      });
      return () => {
        stop();
        countsTimer?.();
        countsTimer = null;
        bulkCancelled = true;
      };
    },
  };
}
