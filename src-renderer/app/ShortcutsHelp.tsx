import { useEffect, useRef, useState } from 'react';
import { isTypingTarget, SHORTCUTS } from '../shared/keys';

/** `?` anywhere (outside a text box) shows the keyboard shortcuts; `?` again, Esc or Close hides them. */
export function ShortcutsHelp() {
  const [open, setOpen] = useState(false);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (isTypingTarget({ targetTag: target?.tagName, targetEditable: target?.isContentEditable })) return;
      if (e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        setOpen((o) => !o);
      } else if (e.key === 'Escape' && open) {
        // Capture phase: Esc closes this list, not also the delivery detail under it.
        e.stopPropagation();
        setOpen(false);
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [open]);
  useEffect(() => {
    if (open) closeRef.current?.focus();
  }, [open]);
  if (!open) return null;
  return (
    <div className="shortcuts-backdrop" onClick={() => setOpen(false)}>
      <div
        className="shortcuts card"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        data-testid="shortcuts"
        onClick={(e) => e.stopPropagation()}
      >
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <table className="data-table">
          <tbody>
            {SHORTCUTS.map((s) => (
              <tr key={`${s.scope}-${s.keys}-${s.does}`}>
                <td className="muted">{s.scope}</td>
                <td>
                  <kbd>{s.keys}</kbd>
                </td>
                <td>{s.does}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="buttons">
          <button ref={closeRef} type="button" className="btn" onClick={() => setOpen(false)} data-testid="shortcuts-close">
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
