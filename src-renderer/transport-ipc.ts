/**
 * The desktop transport: the contract carried by the preload's bridge (window.hookbench) over
 * Electron IPC. Main answers every call with an ApiResponse, so codes and messages arrive intact.
 */
import type { ApiResult } from '../src-shared/api';
import type { HookbenchBridge } from '../src-shared/bridge';
import { ApiCallError } from './api-error';
import type { Transport } from './transport';

const isFunction = (v: unknown): v is (...args: never[]) => unknown => typeof v === 'function';

/** The bridge when `candidate` has its shape (what the preload exposes), else null. */
export function bridgeFrom(candidate: unknown): HookbenchBridge | null {
  if (typeof candidate !== 'object' || candidate === null) return null;
  const b = candidate as Record<string, unknown>;
  return isFunction(b.call) && isFunction(b.subscribe) ? (candidate as HookbenchBridge) : null;
}

export function ipcTransport(bridge: HookbenchBridge): Transport {
  return {
    async call(method, params) {
      let answer;
      try {
        answer = await bridge.call(method, params);
      } catch (err) {
        // Only a broken channel gets here (main answers errors as values): say so plainly.
        throw new ApiCallError('ipc_failed', `${method}: the app's main process did not answer (${err instanceof Error ? err.message : String(err)})`);
      }
      if (typeof answer !== 'object' || answer === null || typeof answer.ok !== 'boolean') {
        throw new ApiCallError('bad_response', `${method}: the main process sent an answer of the wrong shape`);
      }
      if (!answer.ok) throw new ApiCallError(answer.error.code, answer.error.message, answer.error.fields);
      return answer.result as ApiResult<typeof method>;
    },
    subscribe(onEvent, onState) {
      onState('connecting');
      // IPC has no connection to lose: once the listener is in place every later event arrives.
      const unsubscribe = bridge.subscribe((event) => {
        if (event.type === 'stopped') onState('stopped');
        onEvent(event);
      });
      onState('connected');
      return unsubscribe;
    },
  };
}
