import { createContext, useContext } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { ConfigureState } from './store';

export const ConfigureContext = createContext<StoreApi<ConfigureState> | null>(null);

export function useConfigure<T>(selector: (state: ConfigureState) => T): T {
  const store = useContext(ConfigureContext);
  if (!store) throw new Error('useConfigure outside <ConfigureView>');
  return useStore(store, selector);
}
