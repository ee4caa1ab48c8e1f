import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { clampDetailWidth, defaultDetailWidth, parseStoredWidth, SPLIT_STORAGE_KEY, widthAfterKey } from './split';

function readStored(): number | null {
  try {
    return parseStoredWidth(localStorage.getItem(SPLIT_STORAGE_KEY));
  } catch {
    return null;
  }
}

function store(width: number): void {
  try {
    localStorage.setItem(SPLIT_STORAGE_KEY, String(width));
  } catch {
    // Storage refused (a private window): the split still works, it is just not remembered.
  }
}

/** The detail's width, remembered across reloads, and kept within the panes' width as the window changes. */
export function useDetailWidth(panes: RefObject<HTMLElement | null>): [number, (width: number) => void] {
  const totalNow = (): number => panes.current?.clientWidth ?? window.innerWidth;
  const [width, setWidth] = useState<number>(() => {
    const stored = readStored();
    return stored === null ? defaultDetailWidth(window.innerWidth) : clampDetailWidth(stored, window.innerWidth);
  });
  useEffect(() => {
    const onResize = (): void => setWidth((w) => clampDetailWidth(w, totalNow()));
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  });
  const set = useCallback(
    (next: number) => {
      const w = clampDetailWidth(next, panes.current?.clientWidth ?? window.innerWidth);
      setWidth(w);
      store(w);
    },
    [panes],
  );
  return [width, set];
}

/** The bar between list and detail: drag it, or focus it and use ←/→ (Home/End for the ends). */
export function SplitHandle({ width, onWidth, panes }: { width: number; onWidth: (width: number) => void; panes: RefObject<HTMLElement | null> }) {
  const dragging = useRef(false);
  const total = (): number => panes.current?.clientWidth ?? window.innerWidth;
  const right = (): number => panes.current?.getBoundingClientRect().right ?? window.innerWidth;
  return (
    <div
      className="split-handle"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the list and the detail"
      aria-controls="delivery-detail"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round((100 * (total() - width)) / Math.max(1, total()))}
      aria-valuetext={`detail ${width} pixels wide`}
      tabIndex={0}
      data-testid="split-handle"
      data-width={width}
      onKeyDown={(e) => {
        const next = widthAfterKey(e.key, width, total());
        if (next === null) return;
        e.preventDefault();
        onWidth(next);
      }}
      onPointerDown={(e) => {
        dragging.current = true;
        e.currentTarget.setPointerCapture(e.pointerId);
        e.preventDefault();
      }}
      onPointerMove={(e) => {
        if (dragging.current) onWidth(right() - e.clientX);
      }}
      onPointerUp={(e) => {
        dragging.current = false;
        e.currentTarget.releasePointerCapture(e.pointerId);
      }}
    />
  );
}
