import { useDeliveries } from '../../app/view-stores';
import { EmptyState } from '../../shared/EmptyState';

export function DeliveriesEmpty() {
  const source = useDeliveries((s) => s.sources[0]);
  const writeKey = source?.writeKey ?? 'YOUR_WRITE_KEY';
  const snippet = [
    `curl ${location.origin}/v1/track \\`,
    `  -u '${writeKey}:' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"userId":"user_1","event":"Signed Up","properties":{"plan":"pro"}}'`,
  ].join('\n');
  return (
    <EmptyState title="No deliveries yet" testId="empty-state">
      <p>
        Send a first event to the Tracking API{source ? ` with the write key of source “${source.name}”` : ''}; it appears here as soon as it
        is delivered to your destinations.
      </p>
      <pre className="code" data-testid="empty-snippet">
        {snippet}
      </pre>
    </EmptyState>
  );
}
