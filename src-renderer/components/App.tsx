import type { StoreApi } from 'zustand';
import type { DeliveriesState } from '../store';
import { ConnectionBadge } from './ConnectionBadge';
import { DeliveriesContext, useDeliveries } from './context';
import { DeliveryDetailPanel } from './DeliveryDetailPanel';
import { DeliveryList } from './DeliveryList';

export function App({ store }: { store: StoreApi<DeliveriesState> }) {
  return (
    <DeliveriesContext.Provider value={store}>
      <div className="app">
        <header className="topbar">
          <h1>Hookbench</h1>
          <ConnectionBadge />
        </header>
        <ErrorBanner />
        <div className="panes">
          <DeliveryList />
          <DeliveryDetailPanel />
        </div>
      </div>
    </DeliveriesContext.Provider>
  );
}

function ErrorBanner() {
  const error = useDeliveries((s) => s.error);
  if (!error) return null;
  return (
    <p className="banner" role="alert" data-testid="error-banner">
      {error}
    </p>
  );
}

export function NoTransport({ problem }: { problem: string }) {
  return (
    <div className="app">
      <header className="topbar">
        <h1>Hookbench</h1>
      </header>
      <p className="banner" role="alert" data-testid="no-transport">
        {problem}
      </p>
    </div>
  );
}
