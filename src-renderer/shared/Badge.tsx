import type { ReactNode } from 'react';

/** A coloured status word; the tone is one of the delivery statuses (succeeded, retrying, failed, pending…). */
export function Badge({ tone, testId, children }: { tone: string; testId?: string; children: ReactNode }) {
  return (
    <span className={`status status-${tone}`} data-testid={testId}>
      {children}
    </span>
  );
}

/** A delivery's status as the lists and the detail show it. */
export function DeliveryStatusBadge({ status, testId }: { status: string; testId: string }) {
  return (
    <Badge tone={status} testId={testId}>
      {status.replace('_', ' ')}
    </Badge>
  );
}
