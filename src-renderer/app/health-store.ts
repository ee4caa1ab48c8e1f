/**
 * The engine's storage health for the banner: read once, then kept by `health` live events, and
 * read again after a reconnect (events sent while disconnected are gone).
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { EngineHealth } from '../../src-shared/api';
import type { Transport } from '../transport';
import { useTransport } from './stores-context';

export interface HealthState {
  health: EngineHealth | null;
}

export interface HealthStore {
  store: StoreApi<HealthState>;
  start(): () => void;
}

export function createHealthStore(transport: Transport): HealthStore {
  const store = createStore<HealthState>()(() => ({ health: null }));
  // A live event newer than a read in flight wins over that read's answer.
  let version = 0;
  const load = async (): Promise<void> => {
    const asked = ++version;
    try {
      const health = await transport.call('getHealth');
      if (asked === version) store.setState({ health });
    } catch {
      // The connection badge already says the engine is unreachable; the next reconnect reads again.
    }
  };
  return {
    store,
    start() {
      void load();
      let wasConnected = false;
      return transport.subscribe(
        (event) => {
          if (event.type !== 'health') return;
          version++;
          store.setState({ health: event.health });
        },
        (state) => {
          if (state === 'connected' && wasConnected) void load();
          if (state === 'connected') wasConnected = true;
        },
      );
    },
  };
}

const stores = new WeakMap<Transport, HealthStore>();

export function healthStoreFor(transport: Transport): HealthStore {
  let s = stores.get(transport);
  if (!s) {
    s = createHealthStore(transport);
    stores.set(transport, s);
  }
  return s;
}

export function useHealth<T>(selector: (state: HealthState) => T): T {
  return useStore(healthStoreFor(useTransport()).store, selector);
}
