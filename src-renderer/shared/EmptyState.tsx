import type { ReactNode } from 'react';

/** What a view shows while it has nothing to list: a title, then what to do about it. */
export function EmptyState({ title, testId, busy, children }: { title: string; testId: string; busy?: boolean; children: ReactNode }) {
  return (
    <div className="empty" data-testid={testId} aria-busy={busy}>
      <h2>{title}</h2>
      {children}
    </div>
  );
}
