/**
 * The engine's storage health for the banner: read once, then kept by `health` live events, and
 * read again after a reconnect (events sent while disconnected are gone).
 */
import { createStore } from 'zustand/vanilla';
import type { EngineHealth } from '../../src-shared/api';
import type { Transport } from '../transport';
import { followLive, type ViewStore } from '../shared/live-store';

export interface HealthState {
  health: EngineHealth | null;
}

export type HealthStore = ViewStore<HealthState>;

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
      return followLive(transport, {
        onEvent(event) {
          if (event.type !== 'health') return;
          version++;
          store.setState({ health: event.health });
        },
        onReconnect: () => void load(),
      });
    },
  };
}
