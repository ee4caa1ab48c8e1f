/** What the window's key handlers share (pure). */

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

/** Whether a key landed where the user types: such keys are never shortcuts. */
export function isTypingTarget(e: { targetTag?: string | undefined; targetEditable?: boolean | undefined }): boolean {
  return e.targetEditable === true || (e.targetTag !== undefined && TYPING_TAGS.has(e.targetTag));
}

/** The shortcuts `?` lists, by view; the window-wide ones first. */
export const SHORTCUTS: { scope: string; keys: string; does: string }[] = [
  { scope: 'Everywhere', keys: '?', does: 'show or hide this list' },
  { scope: 'Everywhere', keys: 'Esc', does: 'close this list' },
  { scope: 'Deliveries', keys: 'j / ↓', does: 'next delivery' },
  { scope: 'Deliveries', keys: 'k / ↑', does: 'previous delivery' },
  { scope: 'Deliveries', keys: 'Enter', does: 'open the delivery under the cursor' },
  { scope: 'Deliveries', keys: 'r', does: 'replay it' },
  { scope: 'Deliveries', keys: '/', does: 'search' },
  { scope: 'Deliveries', keys: 'Esc', does: 'close the detail' },
  { scope: 'Inbound', keys: 'j / ↓', does: 'next call' },
  { scope: 'Inbound', keys: 'k / ↑', does: 'previous call' },
  { scope: 'Inbound', keys: 'Enter', does: 'open the first call when none is open' },
  { scope: 'Inbound', keys: '/', does: 'filter by path' },
  { scope: 'Inbound', keys: 'Esc', does: 'close the detail' },
];
