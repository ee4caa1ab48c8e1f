/**
 * Fixed-row-height windowing: only the rows in view plus `overscan` either side are in the DOM,
 * however many rows the list holds. A sticky header sits inside the scroller so
 * header and rows share one width and one scrollbar.
 */
import { useCallback, useEffect, useImperativeHandle, useLayoutEffect, useRef, useState, type ReactNode, type Ref } from 'react';

export interface VirtualListHandle {
  /** Scrolls the least needed to show row i whole. */
  scrollToIndex(i: number): void;
  scroller(): HTMLDivElement | null;
}

export interface VirtualListProps {
  count: number;
  rowHeight: number;
  headerHeight: number;
  header: ReactNode;
  overscan?: number;
  renderRow(index: number, top: number): ReactNode;
  /** The rows in view (first and last index), told after each change. */
  onRange?(first: number, last: number): void;
  ref?: Ref<VirtualListHandle>;
  className?: string;
  testId?: string;
  label?: string;
}

/** Pure: which rows are in view and which are rendered, from the scroll position. */
export function windowOf(p: { scrollTop: number; height: number; headerHeight: number; rowHeight: number; count: number; overscan: number }): {
  first: number;
  last: number;
  from: number;
  to: number;
} {
  if (p.count === 0) return { first: 0, last: -1, from: 0, to: -1 };
  const visible = Math.max(p.rowHeight, p.height - p.headerHeight);
  const first = Math.min(p.count - 1, Math.max(0, Math.floor(p.scrollTop / p.rowHeight)));
  const last = Math.min(p.count - 1, Math.max(first, Math.floor((p.scrollTop + visible - 1) / p.rowHeight)));
  return { first, last, from: Math.max(0, first - p.overscan), to: Math.min(p.count - 1, last + p.overscan) };
}

export function VirtualList({ count, rowHeight, headerHeight, header, overscan = 8, renderRow, onRange, ref, className, testId, label }: VirtualListProps) {
  const scroller = useRef<HTMLDivElement | null>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    setHeight(el.clientHeight);
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (el) setScrollTop(el.scrollTop);
  }, []);

  useImperativeHandle(
    ref,
    () => ({
      scrollToIndex(i) {
        const el = scroller.current;
        if (!el || i < 0) return;
        const visible = el.clientHeight - headerHeight;
        const top = i * rowHeight;
        if (top < el.scrollTop) el.scrollTop = top;
        else if (top + rowHeight > el.scrollTop + visible) el.scrollTop = top + rowHeight - visible;
        setScrollTop(el.scrollTop);
      },
      scroller: () => scroller.current,
    }),
    [headerHeight, rowHeight],
  );

  const w = windowOf({ scrollTop, height, headerHeight, rowHeight, count, overscan });
  useEffect(() => {
    onRange?.(w.first, w.last);
  }, [onRange, w.first, w.last]);

  const rows: ReactNode[] = [];
  for (let i = w.from; i <= w.to; i++) rows.push(renderRow(i, i * rowHeight));
  return (
    <div className={`vlist ${className ?? ''}`} ref={scroller} onScroll={onScroll} data-testid={testId} role="grid" aria-label={label} aria-rowcount={count}>
      <div className="vlist-header" style={{ height: headerHeight }} role="row">
        {header}
      </div>
      <div className="vlist-body" style={{ height: count * rowHeight }} role="rowgroup" data-rendered={w.to - w.from + 1}>
        {rows}
      </div>
    </div>
  );
}
