import { useDeliveries } from './view-stores';


const LABELS = { connecting: 'Connecting…', connected: 'Live', reconnecting: 'Reconnecting…', stopped: 'Hookbench stopped' } as const;

export function ConnectionBadge() {
  const state = useDeliveries((s) => s.connection);
  return (
    <span className={`connection connection-${state}`} data-testid="connection-state" data-state={state} role="status">
      <span className="dot" aria-hidden="true" />
      {LABELS[state]}
    </span>
  );
}
