/**
 * The list's keys: j/k (or ↓/↑) move the cursor, Enter opens the detail, r replays, n retries a waiting delivery now, c compares, /
 * goes to the search box, Escape closes the detail. Pure, so the table test covers every case.
 */
import { isTypingTarget } from '../../shared/keys';

export type KeyAction =
  | { kind: 'move'; by: 1 | -1 }
  | { kind: 'open' }
  | { kind: 'replay' }
  | { kind: 'retryNow' }
  | { kind: 'search' }
  | { kind: 'close' }
  | { kind: 'compare' }
  | null;

export interface KeyInput {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  /** The focused element's tag name (upper case, as the DOM gives it) and whether it is editable. */
  targetTag?: string;
  targetEditable?: boolean;
}

export function keyAction(e: KeyInput): KeyAction {
  // Typing in a box (search, edit-and-replay body) must never move the list or replay anything.
  if (isTypingTarget(e)) return null;
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case 'j':
    case 'ArrowDown':
      return { kind: 'move', by: 1 };
    case 'k':
    case 'ArrowUp':
      return { kind: 'move', by: -1 };
    case 'Enter':
      // A focused button or link acts on Enter itself.
      return e.targetTag === 'BUTTON' || e.targetTag === 'A' ? null : { kind: 'open' };
    case 'r':
      return { kind: 'replay' };
    case 'n':
      return { kind: 'retryNow' };
    case '/':
      return { kind: 'search' };
    case 'c':
      return { kind: 'compare' };
    case 'Escape':
      return { kind: 'close' };
    default:
      return null;
  }
}

/** The cursor's next index: clamped to the rows; from nowhere, j starts at the top and k too. */
export function moveCursor(current: number, by: 1 | -1, count: number): number {
  if (count === 0) return -1;
  if (current < 0 || current >= count) return 0;
  return Math.min(count - 1, Math.max(0, current + by));
}
