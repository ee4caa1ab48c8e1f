import { createContext, useContext } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { DeliveriesState } from './store';

export const DeliveriesContext = createContext<StoreApi<DeliveriesState> | null>(null);

export function useDeliveries<T>(selector: (state: DeliveriesState) => T): T {
  const store = useContext(DeliveriesContext);
  if (!store) throw new Error('useDeliveries outside <App>');
  return useStore(store, selector);
}
