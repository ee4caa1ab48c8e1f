import { useEffect, useRef, useState } from 'react';

export type CopyState = 'idle' | 'copied' | 'refused';

/**
 * Copies text where the browser allows it and says whether it worked; in a page without clipboard
 * access (plain http on another host) it says so instead of pretending. "Copied" fades after 2 s.
 */
export function useCopy(): [CopyState, (text: string) => void] {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const copy = (text: string): void => {
    const clipboard = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
    const settle = (next: CopyState): void => {
      setState(next);
      if (timer.current) clearTimeout(timer.current);
      if (next === 'copied') timer.current = setTimeout(() => setState('idle'), 2000);
    };
    if (!clipboard) {
      settle('refused');
      return;
    }
    clipboard.writeText(text).then(
      () => settle('copied'),
      () => settle('refused'),
    );
  };
  return [state, copy];
}

export function CopyButton({ text, testId, label = 'Copy', className = 'btn small' }: { text: string; testId: string; label?: string; className?: string }) {
  const [state, copy] = useCopy();
  return (
    <button type="button" className={className} data-testid={testId} data-state={state} onClick={() => copy(text)}>
      {state === 'copied' ? 'Copied' : state === 'refused' ? 'Copy refused by the browser: select the text' : label}
    </button>
  );
}
