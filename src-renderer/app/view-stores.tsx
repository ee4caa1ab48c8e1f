/**
 * Every view's store, created once per window and kept for its life, so what a view shows and what
 * the user typed in it (a half-edited destination, a half-typed call, an audience or deletion form)
 * survive a tab switch. The Deliveries store and the storage health follow the engine for as long as
 * the window lives (the connection badge, the banners and links from other views rely on them); the
 * others follow it while their view is shown and read again what they show when it is shown anew.
 */
import { createContext, useContext, useEffect } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { Transport } from '../transport';
import type { ViewStore } from '../shared/live-store';
import { createHealthStore, type HealthState } from './health-store';
import { createDeliveriesStore, type DeliveriesState } from '../views/deliveries/store';
import { createInboundStore, type InboundState } from '../views/inbound/store';
import { createComposeStore, type ComposeState } from '../views/compose/store';
import { createAudiencesStore, type AudiencesState } from '../views/audiences/store';
import { createDeletionsStore, type DeletionsState } from '../views/deletions/store';
import { createConfigureStore, type ConfigureState } from '../views/configure/store';
import { createCompareStore, type CompareState } from '../views/deliveries/compare/store';
import { createTestEventStore, type TestEventState } from '../views/test-events/store';
import { createReceiversStore, type ReceiversState } from '../views/receivers/store';
import { createTransferStore, type TransferState } from '../views/transfer/store';

export function createViewStores(transport: Transport) {
  return {
    health: createHealthStore(transport),
    deliveries: createDeliveriesStore(transport),
    inbound: createInboundStore(transport),
    compose: createComposeStore(transport),
    audiences: createAudiencesStore(transport),
    deletions: createDeletionsStore(transport),
    configure: createConfigureStore(transport),
    compare: createCompareStore(transport),
    testEvents: createTestEventStore(transport),
    receivers: createReceiversStore(transport),
    transfer: createTransferStore(transport),
  };
}

export type ViewStores = ReturnType<typeof createViewStores>;
export type StoreName = keyof ViewStores;
export type StateOf<K extends StoreName> = ViewStores[K] extends ViewStore<infer S> ? S : never;

/** Starts the stores the whole window relies on; returns the stop function. */
export function startWindowStores(stores: ViewStores): () => void {
  const stops = [stores.health.start(), stores.deliveries.start()];
  return () => {
    for (const stop of stops) stop();
  };
}

export const ViewStoresContext = createContext<ViewStores | null>(null);

function useViewStores(): ViewStores {
  const stores = useContext(ViewStoresContext);
  if (!stores) throw new Error('a view store used outside <App>');
  return stores;
}

/** Reads one store of the window, e.g. `useViewState('configure', (s) => s.draft)`. */
export function useViewState<K extends StoreName, T>(name: K, selector: (state: StateOf<K>) => T): T {
  return useStore(useViewStores()[name].store as StoreApi<StateOf<K>>, selector);
}

export const useHealth = <T,>(selector: (state: HealthState) => T): T => useViewState('health', selector);
export const useDeliveries = <T,>(selector: (state: DeliveriesState) => T): T => useViewState('deliveries', selector);
export const useInbound = <T,>(selector: (state: InboundState) => T): T => useViewState('inbound', selector);
export const useCompose = <T,>(selector: (state: ComposeState) => T): T => useViewState('compose', selector);
export const useAudiences = <T,>(selector: (state: AudiencesState) => T): T => useViewState('audiences', selector);
export const useDeletions = <T,>(selector: (state: DeletionsState) => T): T => useViewState('deletions', selector);
export const useConfigure = <T,>(selector: (state: ConfigureState) => T): T => useViewState('configure', selector);
export const useCompare = <T,>(selector: (state: CompareState) => T): T => useViewState('compare', selector);
export const useTestEvents = <T,>(selector: (state: TestEventState) => T): T => useViewState('testEvents', selector);

/** The Retry of a store's failed load (a no-op for a store that has none). */
export function useRetry(name: StoreName): () => void {
  const store = useViewStores()[name] as ViewStore<unknown>;
  return () => store.retry?.();
}
export const useReceivers = <T,>(selector: (state: ReceiversState) => T): T => useViewState('receivers', selector);
export const useTransfer = <T,>(selector: (state: TransferState) => T): T => useViewState('transfer', selector);

/** Follows the engine while the calling view is shown; the store and its state outlive it. */
export function useFollowWhileShown(name: Exclude<StoreName, 'health' | 'deliveries'>): void {
  const store = useViewStores()[name];
  useEffect(() => store.start(), [store]);
}
