import type { ReactNode } from 'react';
import { deliveryStatusMeaning } from './status-words';

/** A coloured status word; the tone is one of the delivery statuses (succeeded, retrying, failed, pending…). `title` says what it means on hover. */
export function Badge({ tone, testId, title, children }: { tone: string; testId?: string; title?: string | null; children: ReactNode }) {
  return (
    <span className={`status status-${tone}`} data-testid={testId} title={title ?? undefined}>
      {children}
    </span>
  );
}

/** A delivery's status as the lists and the detail show it, with its meaning on hover. */
export function DeliveryStatusBadge({ status, testId }: { status: string; testId: string }) {
  return (
    <Badge tone={status} testId={testId} title={deliveryStatusMeaning(status)}>
      {status.replace('_', ' ')}
    </Badge>
  );
}
