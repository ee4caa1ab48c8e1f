/**
 * The Deliveries list: the filters bar, the bulk replay, and the deliveries as a
 * virtualized list that pages older rows in as the user scrolls and keeps its place while live rows
 * arrive above it. Keys: j/k move, Enter opens, r replays, n retries now, / searches, Escape closes the detail.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { DeliverySummary } from '../../../src-shared/api';
import { DeliveriesEmpty } from './DeliveriesEmpty';
import { BulkReplayBar } from './BulkReplayBar';
import { DeliveryListRow, HEADER_HEIGHT, HeaderCells, ROW_HEIGHT } from './DeliveryListRow';
import { FiltersBar } from './FiltersBar';
import { DeliveriesTransfer } from '../transfer/TransferBar';
import { keyAction, moveCursor } from './keyboard';
import { isFilterActive } from './rows';
import { VirtualList, type VirtualListHandle } from './VirtualList';
import { noMatchWords, searchedWords } from './list-words';
import { useDeliveries } from '../../app/view-stores';
import { useShownCounts } from './use-shown-counts';
import { EmptyState } from '../../shared/EmptyState';
import { ComparePickBanner } from './compare/ComparePickBanner';
import { useCompare } from '../../app/view-stores';


/** Older rows are asked for when the last row in view is this close to the end of what is loaded. */
const LOAD_AHEAD = 40;

export function DeliveryList() {
  const searchRef = useRef<HTMLInputElement | null>(null);
  return (
    <section className="watch" data-testid="watch" aria-label="Deliveries">
      <FiltersBar searchRef={searchRef} />
      <div className="wactions">
        <DeliveriesTransfer />
        <BulkReplayBar />
      </div>
      <ComparePickBanner />
      <WatchBody searchRef={searchRef} />
    </section>
  );
}

function WatchBody({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const rows = useDeliveries((s) => s.rows);
  const loaded = useDeliveries((s) => s.loaded);
  const filter = useDeliveries((s) => s.filter);
  const counts = useShownCounts();
  const setFilter = useDeliveries((s) => s.setFilter);
  const loading = useDeliveries((s) => s.loading);
  const searched = useDeliveries((s) => s.searched);

  if (!loaded) return <div className="wbody" data-testid="deliveries-loading" aria-busy="true" />;
  if (rows.length === 0 && !isFilterActive(filter)) {
    return (
      <div className="wbody wbody-empty">
        <DeliveriesEmpty />
      </div>
    );
  }
  if (rows.length === 0 && searched) {
    // Not the end: the search read part of the log and found nothing there yet.
    return (
      <div className="wbody wbody-empty">
        <EmptyState title="Nothing found yet" testId="search-stopped" busy={loading}>
          <KeepSearching />
        </EmptyState>
      </div>
    );
  }
  if (rows.length === 0) {
    return (
      <div className="wbody wbody-empty">
        <EmptyState title="No delivery matches this filter" testId="no-match" busy={loading}>
          <p>{noMatchWords(counts)}</p>
          <button type="button" data-testid="clear-filters" onClick={() => setFilter({})}>
            Clear filters
          </button>
        </EmptyState>
      </div>
    );
  }
  return <Rows rows={rows} searchRef={searchRef} />;
}

function Rows({ rows, searchRef }: { rows: DeliverySummary[]; searchRef: RefObject<HTMLInputElement | null> }) {
  const hasOlder = useDeliveries((s) => s.hasOlder);
  const loadingOlder = useDeliveries((s) => s.loadingOlder);
  const loadOlder = useDeliveries((s) => s.loadOlder);
  const searched = useDeliveries((s) => s.searched);
  const setViewport = useDeliveries((s) => s.setViewport);
  const selectedId = useDeliveries((s) => s.selectedId);
  const select = useDeliveries((s) => s.select);
  const replay = useDeliveries((s) => s.replay);
  const retryNow = useDeliveries((s) => s.retryNow);
  const picking = useCompare((s) => s.picking);
  const startPick = useCompare((s) => s.startPick);
  const openCompare = useCompare((s) => s.open);
  const list = useRef<VirtualListHandle | null>(null);
  const [cursorId, setCursorId] = useState<number | null>(null);

  // The cursor follows a selection made elsewhere: a click, or a replay selecting its new delivery.
  useEffect(() => {
    if (selectedId !== null) setCursorId(selectedId);
  }, [selectedId]);
  const cursorIndex = useMemo(() => (cursorId === null ? -1 : rows.findIndex((r) => r.id === cursorId)), [rows, cursorId]);

  const onRange = useCallback(
    (first: number, last: number) => {
      setViewport(first, last);
      // A search that stopped short goes on when asked (KeepSearching), not by scrolling.
      if (hasOlder && !searched && last >= rows.length - LOAD_AHEAD) loadOlder();
    },
    [setViewport, loadOlder, hasOlder, searched, rows.length],
  );

  // Keeps the rows in view where they are when rows arrive above them (live tail, a page of new
  // rows); at the very top the list follows the tail instead.
  const previous = useRef(rows);
  useLayoutEffect(() => {
    const before = previous.current;
    previous.current = rows;
    const el = list.current?.scroller();
    if (!el || el.scrollTop <= 0 || before === rows) return;
    const first = Math.floor(el.scrollTop / ROW_HEIGHT);
    const anchor = before[Math.min(first, before.length - 1)];
    if (!anchor) return;
    const now = rows.findIndex((r) => r.id === anchor.id);
    if (now >= 0 && now !== first) el.scrollTop += (now - first) * ROW_HEIGHT;
  }, [rows]);

  // Keyboard: read through refs so the listener is added once.
  const state = useRef({ rows, cursorIndex, selectedId, picking });
  state.current = { rows, cursorIndex, selectedId, picking };
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target instanceof HTMLElement ? e.target : null;
      const action = keyAction({
        key: e.key,
        ctrlKey: e.ctrlKey,
        metaKey: e.metaKey,
        altKey: e.altKey,
        targetTag: target?.tagName,
        targetEditable: target?.isContentEditable ?? false,
      });
      if (!action) return;
      const { rows: r, cursorIndex: at, selectedId: open, picking: first } = state.current;
      const cursorRow = at >= 0 ? r[at] : undefined;
      switch (action.kind) {
        case 'move': {
          e.preventDefault();
          const next = moveCursor(at, action.by, r.length);
          const row = r[next];
          if (!row) return;
          setCursorId(row.id);
          list.current?.scrollToIndex(next);
          // With the detail open it follows the cursor, like a mail reader.
          if (open !== null) select(row.id);
          return;
        }
        case 'open':
          if (!cursorRow) return;
          e.preventDefault();
          select(cursorRow.id);
          return;
        case 'replay': {
          const id = cursorRow?.id ?? open;
          if (id === null) return;
          e.preventDefault();
          if (id !== open) select(id);
          void replay({});
          return;
        }
        case 'retryNow': {
          // Acts on the open delivery, whose state the detail shows; the engine refuses one that is not waiting.
          if (open === null) return;
          e.preventDefault();
          void retryNow();
          return;
        }
        case 'search':
          e.preventDefault();
          searchRef.current?.focus();
          searchRef.current?.select();
          return;
        case 'close':
          if (open !== null) select(null);
          return;
        case 'compare': {
          // The first c picks the row under the cursor, the second compares it with the row then under the cursor.
          const id = cursorRow?.id ?? open;
          if (id === null) return;
          e.preventDefault();
          if (first && first.deliveryId !== id) void openCompare(first, { deliveryId: id });
          else startPick({ deliveryId: id });
          return;
        }
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [select, replay, retryNow, searchRef, openCompare, startPick]);

  const onPick = useCallback(
    (id: number) => {
      setCursorId(id);
      // While a first side is picked, a click on another row names the second side.
      if (picking && picking.deliveryId !== id) {
        void openCompare(picking, { deliveryId: id });
        return;
      }
      select(id);
    },
    [select, picking, openCompare],
  );

  return (
    <div className="wbody">
      <VirtualList
        ref={list}
        className="wlist"
        testId="deliveries"
        label="Deliveries, newest first"
        count={rows.length}
        rowHeight={ROW_HEIGHT}
        headerHeight={HEADER_HEIGHT}
        header={<HeaderCells />}
        onRange={onRange}
        renderRow={(i, top) => {
          const row = rows[i] as DeliverySummary;
          return <DeliveryListRow key={row.id} row={row} index={i} top={top} selected={row.id === selectedId} cursor={i === cursorIndex} onPick={onPick} />;
        }}
      />
      {loadingOlder && (
        <div className="wmore" data-testid="older-rows" aria-live="polite">
          Loading older deliveries…
        </div>
      )}
      {searched && !loadingOlder && (
        <div className="wmore" data-testid="search-stopped">
          <KeepSearching />
        </div>
      )}
    </div>
  );
}

/** Where a search that reads the log stopped, and the button that reads on. */
function KeepSearching() {
  const searched = useDeliveries((s) => s.searched);
  const keepSearching = useDeliveries((s) => s.keepSearching);
  const loadingOlder = useDeliveries((s) => s.loadingOlder);
  if (!searched) return null;
  return (
    <p aria-live="polite">
      {searchedWords(searched, Date.now())}{' '}
      <button type="button" data-testid="keep-searching" disabled={loadingOlder} onClick={keepSearching}>
        Keep searching
      </button>
    </p>
  );
}
