import { useState } from 'react';

/**
 * Copies text where the browser allows it and says whether it worked; in a page without clipboard
 * access (plain http on another host) it says so instead of pretending.
 */
export function CopyButton({ text, label, testId }: { text: string; label: string; testId: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'refused'>('idle');
  const copy = (): void => {
    const clipboard = typeof navigator !== 'undefined' ? navigator.clipboard : undefined;
    if (!clipboard) {
      setState('refused');
      return;
    }
    clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('refused'),
    );
  };
  return (
    <button type="button" className="ins-copy" data-testid={testId} data-state={state} onClick={copy}>
      {state === 'copied' ? 'Copied' : state === 'refused' ? 'Copy refused by the browser: select the text' : label}
    </button>
  );
}
