/**
 * The Deliveries split between list and detail (pure): the detail's width in pixels, kept between
 * bounds that leave both panes usable, moved by keys in fixed steps, and remembered per browser.
 */
export const DETAIL_MIN_PX = 320;
/** The list keeps at least this much, so its key columns stay in view. */
export const LIST_MIN_PX = 360;
export const SPLIT_STEP_PX = 32;
export const SPLIT_STORAGE_KEY = 'hookbench.detailWidth';

/** The width to use for the detail in a window of `total` pixels: `wanted` when it fits, else the nearest that does. */
export function clampDetailWidth(wanted: number, total: number): number {
  const max = Math.max(DETAIL_MIN_PX, total - LIST_MIN_PX);
  if (!Number.isFinite(wanted)) return Math.min(max, Math.max(DETAIL_MIN_PX, Math.round(total * 0.42)));
  return Math.round(Math.min(max, Math.max(DETAIL_MIN_PX, wanted)));
}

/** The detail's default share of the window when nothing is remembered. */
export function defaultDetailWidth(total: number): number {
  return clampDetailWidth(Math.round(total * 0.42), total);
}

/** What a key on the handle does to the detail's width; null for a key it ignores. The handle sits left of the detail. */
export function widthAfterKey(key: string, width: number, total: number): number | null {
  switch (key) {
    case 'ArrowLeft':
      return clampDetailWidth(width + SPLIT_STEP_PX, total);
    case 'ArrowRight':
      return clampDetailWidth(width - SPLIT_STEP_PX, total);
    case 'Home':
      return clampDetailWidth(total, total);
    case 'End':
      return clampDetailWidth(0, total);
    default:
      return null;
  }
}

/** A remembered width, or null when there is none or it is not a number. */
export function parseStoredWidth(text: string | null): number | null {
  if (text === null || !/^\d{2,5}$/.test(text)) return null;
  return Number(text);
}
