/**
 * Sending test events, from Configure and from a delivery's detail: the call, whether one is on
 * its way, and the last refusal in words.
 */
import { createStore } from 'zustand/vanilla';
import type { TestEventInput } from '../../../src-shared/api';
import type { Transport } from '../../transport';
import { messageOf, type ViewStore } from '../../shared/live-store';

export interface TestEventState {
  /** The key (destination and URL) of the control whose test event is on its way. */
  sending: string | null;
  /** The last refusal, by the control's key. */
  errors: Record<string, string>;
  /** The last refusal of any control (every view store names its last failure here). */
  error: string | null;
  /** Sends one; resolves to the new delivery's id, or null when it was refused (see errors). */
  send(key: string, input: TestEventInput): Promise<number | null>;
}

export function createTestEventStore(transport: Transport): ViewStore<TestEventState> {
  const store = createStore<TestEventState>()((set, get) => ({
    sending: null,
    errors: {},
    error: null,
    async send(key, input) {
      const { [key]: _dropped, ...others } = get().errors;
      set({ sending: key, errors: others, error: null });
      try {
        return await transport.call('sendTestEvent', input);
      } catch (err) {
        set({ errors: { ...get().errors, [key]: messageOf(err) }, error: messageOf(err) });
        return null;
      } finally {
        set({ sending: null });
      }
    },
  }));
  return { store, start: () => () => {} };
}
