import type { ApiMethod, LiveEvent } from '../../src-shared/api';
import type { ConnectionState, Transport } from '../transport';

/**
 * A Transport for store tests over an in-memory engine (`answer`): it logs every call as
 * "method params", connects at once, and lets the test push live events and connection states.
 */
export function scriptedTransport(answer: (method: ApiMethod, params?: unknown) => unknown) {
  const calls: string[] = [];
  let emit: (e: LiveEvent) => void = () => {};
  let state: (s: ConnectionState) => void = () => {};
  const transport: Transport = {
    call: async (method, params) => {
      calls.push(params === undefined ? method : `${method} ${JSON.stringify(params)}`);
      return (await answer(method, params)) as never;
    },
    subscribe(onEvent, onState) {
      emit = onEvent;
      state = onState;
      onState('connected');
      return () => {};
    },
  };
  return {
    transport,
    calls,
    emit: (e: LiveEvent) => emit(e),
    state: (s: ConnectionState) => state(s),
    /** Calls made since the last look, then forgotten. */
    take: (): string[] => calls.splice(0),
  };
}
