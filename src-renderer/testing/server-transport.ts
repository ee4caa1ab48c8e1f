/**
 * For tests only: the renderer's own HTTP transport against a real `listen()` server, with the
 * live stream read from /api/live over fetch (Node 20 has no EventSource). No engine is faked.
 */
import type { LiveEvent } from '../../src-shared/api';
import { httpTransport, type ConnectionState, type Transport } from '../transport';

export function serverTransport(url: string, token: string): Transport & { close(): void } {
  const http = httpTransport(token, url);
  const aborts = new Set<AbortController>();
  return {
    call: http.call,
    subscribe(onEvent: (event: LiveEvent) => void, onState: (state: ConnectionState) => void) {
      const abort = new AbortController();
      aborts.add(abort);
      onState('connecting');
      void (async () => {
        try {
          const res = await fetch(`${url}/api/live`, { headers: { authorization: `Bearer ${token}` }, signal: abort.signal });
          if (!res.ok || !res.body) throw new Error(`/api/live answered ${res.status}`);
          onState('connected');
          const decoder = new TextDecoder();
          let buffer = '';
          const reader = res.body.getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            buffer += decoder.decode(value, { stream: true });
            let end: number;
            while ((end = buffer.indexOf('\n\n')) !== -1) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              for (const line of frame.split('\n')) if (line.startsWith('data: ')) onEvent(JSON.parse(line.slice(6)) as LiveEvent);
            }
          }
        } catch (err) {
          if (!abort.signal.aborted) throw err;
        }
      })();
      return () => {
        abort.abort();
        aborts.delete(abort);
      };
    },
    close() {
      for (const abort of aborts) abort.abort();
    },
  };
}
