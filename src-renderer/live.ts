/**
 * One live stream for the whole window, however many views listen: each view subscribes through
 * the shared transport, and only the first subscription opens the underlying stream.
 */
import type { LiveEvent } from '../src-shared/api';
import type { ConnectionState, Transport } from './transport';

export function sharedTransport(inner: Transport): Transport {
  const events = new Set<(event: LiveEvent) => void>();
  const states = new Set<(state: ConnectionState) => void>();
  let state: ConnectionState = 'connecting';
  let stop: (() => void) | null = null;
  return {
    call: (method, params) => inner.call(method, params),
    subscribe(onEvent, onState) {
      events.add(onEvent);
      states.add(onState);
      onState(state);
      stop ??= inner.subscribe(
        (event) => {
          for (const listener of [...events]) listener(event);
        },
        (next) => {
          state = next;
          for (const listener of [...states]) listener(next);
        },
      );
      return () => {
        events.delete(onEvent);
        states.delete(onState);
        if (events.size === 0 && stop) {
          stop();
          stop = null;
          state = 'connecting';
        }
      };
    },
  };
}
