/**
 * How the renderer reaches the engine: one contract, two transports. The views see only
 * this interface; headless mode carries it over HTTP (/api/call) and Server-Sent Events (/api/live).
 * Electron carries the same interface over IPC (transport-ipc.ts); pickTransport chooses.
 */
import type { ApiMethod, ApiParams, ApiResponse, ApiResult, LiveEvent } from '../src-shared/api';
import { ApiCallError } from './api-error';
import { bridgeFrom, ipcTransport } from './transport-ipc';

export { ApiCallError };

/**
 * stopped: the engine said it stopped. The stream is tried again, slowly and without leaving
 * `stopped`, since a new start on the same data folder and port keeps the token: the state goes
 * straight to `connected` when it is back.
 */
export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'stopped';

export interface Transport {
  call<M extends ApiMethod>(method: M, params?: ApiParams<M>): Promise<ApiResult<M>>;
  /** Live events until the returned function is called; onState reports the stream's health. */
  subscribe(onEvent: (event: LiveEvent) => void, onState: (state: ConnectionState) => void): () => void;
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 10_000;
/** How often a stopped engine is looked for again. */
const STOPPED_RETRY_MS = 2_000;

/** Headless mode: same origin as the page, the per-launch token from `?token=`. */
export function httpTransport(token: string, base = ''): Transport {
  return {
    async call(method, params) {
      const res = await fetch(`${base}/api/call`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ method, params }),
      });
      let answer: ApiResponse;
      try {
        answer = (await res.json()) as ApiResponse;
      } catch {
        throw new ApiCallError('bad_response', `${method}: HTTP ${res.status} without a JSON answer`);
      }
      if (!answer.ok) throw new ApiCallError(answer.error.code, answer.error.message, answer.error.fields);
      return answer.result as ApiResult<typeof method>;
    },
    subscribe(onEvent, onState) {
      let source: EventSource | null = null;
      let timer: ReturnType<typeof setTimeout> | null = null;
      let delay = RETRY_MIN_MS;
      let stopped = false;
      let engineStopped = false;
      const open = (): void => {
        source = new EventSource(`${base}/api/live?token=${encodeURIComponent(token)}`);
        source.onopen = () => {
          delay = RETRY_MIN_MS;
          engineStopped = false;
          onState('connected');
        };
        source.onmessage = (message: MessageEvent<string>) => {
          let event: LiveEvent;
          try {
            event = JSON.parse(message.data) as LiveEvent;
          } catch {
            // A malformed event is ignored; the next refetch corrects the view.
            return;
          }
          if (event.type === 'stopped') {
            // Closed before the server ends the stream, so that its end is not taken for a drop.
            engineStopped = true;
            source?.close();
            onState('stopped');
            if (!stopped) timer = setTimeout(open, STOPPED_RETRY_MS);
          }
          onEvent(event);
        };
        source.onerror = () => {
          if (engineStopped) {
            // Not back yet: stay "stopped" and look again later rather than hammering a closed port.
            source?.close();
            if (!stopped) timer = setTimeout(open, STOPPED_RETRY_MS);
            return;
          }
          onState('reconnecting');
          // EventSource retries by itself unless the server refused the stream; then we retry, slower each time.
          if (source?.readyState === EventSource.CLOSED && !stopped) {
            source.close();
            timer = setTimeout(open, delay);
            delay = Math.min(delay * 2, RETRY_MAX_MS);
          }
        };
      };
      onState('connecting');
      open();
      return () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        source?.close();
      };
    },
  };
}

/**
 * The transport for this window, or the reason none can be made: the desktop bridge when the
 * preload put one on the window, else headless mode's HTTP with the token from the address.
 */
export function pickTransport(
  search: string,
  bridge: unknown = (globalThis as { hookbench?: unknown }).hookbench,
): { transport: Transport } | { problem: string } {
  const desktop = bridgeFrom(bridge);
  if (desktop) return { transport: ipcTransport(desktop) };
  const token = new URLSearchParams(search).get('token');
  if (!token) {
    return { problem: 'No access token in the address. Open the URL that `hookbench serve` prints on stderr (it ends with ?token=…).' };
  }
  return { transport: httpTransport(token) };
}
