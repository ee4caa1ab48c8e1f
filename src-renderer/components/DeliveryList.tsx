import type { DeliverySummary } from '../../src-shared/api';
import { useDeliveries } from './context';
import { EmptyState } from './EmptyState';
import { timeOf } from './format';

export function DeliveryList() {
  const rows = useDeliveries((s) => s.rows);
  const loaded = useDeliveries((s) => s.loaded);
  if (!loaded) return <section className="list" data-testid="deliveries-loading" aria-busy="true" />;
  if (rows.length === 0) {
    return (
      <section className="list">
        <EmptyState />
      </section>
    );
  }
  return (
    <section className="list">
      <table className="deliveries" data-testid="deliveries">
        <thead>
          <tr>
            <th>Status</th>
            <th>Type</th>
            <th>User</th>
            <th>Event</th>
            <th>HTTP</th>
            <th>Rounds</th>
            <th>Time</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <DeliveryRow key={row.id} row={row} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function DeliveryRow({ row }: { row: DeliverySummary }) {
  const selected = useDeliveries((s) => s.selectedId === row.id);
  const select = useDeliveries((s) => s.select);
  return (
    <tr
      className={selected ? 'selected' : undefined}
      data-testid="delivery-row"
      data-id={row.id}
      tabIndex={0}
      aria-selected={selected}
      onClick={() => select(row.id)}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') select(row.id);
      }}
    >
      <td>
        <StatusPill status={row.status} />
      </td>
      <td data-testid="delivery-type">{row.type}</td>
      <td data-testid="delivery-user">{row.userId ?? row.anonymousId ?? '—'}</td>
      <td data-testid="delivery-event">{row.event ?? '—'}</td>
      <td data-testid="delivery-http" title={row.lastError ?? undefined}>
        {row.lastHttpStatus ?? (row.lastError ? 'error' : '—')}
      </td>
      <td data-testid="delivery-rounds">{row.rounds}</td>
      <td data-testid="delivery-time">
        <time dateTime={row.createdAt}>{timeOf(row.createdAt)}</time>
      </td>
    </tr>
  );
}

export function StatusPill({ status }: { status: string }) {
  return (
    <span className={`status status-${status}`} data-testid="delivery-status">
      {status.replace('_', ' ')}
    </span>
  );
}
