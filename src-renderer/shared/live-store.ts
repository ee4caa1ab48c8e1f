/**
 * What every view's store shares: the shape the window keeps (a zustand store plus start/stop),
 * live events applied at most once per frame, and the catch-up after the live stream reconnects
 * (events sent while it was down are gone, so the store reads again what it shows).
 */
import type { StoreApi } from 'zustand/vanilla';
import type { LiveEvent } from '../../src-shared/api';
import type { ConnectionState, Transport } from '../transport';

/** A view's state, created once per window and kept across tab switches; `start` follows the engine until the returned stop. */
export interface ViewStore<S> {
  store: StoreApi<S>;
  start(): () => void;
  /** Reads again what the view shows after a failed load (the banner's Retry); a success clears the error. */
  retry?(): void;
}

/** When to run queued work: the next animation frame in a window, a fake frame in tests. */
export type Schedule = (flush: () => void) => void;

export const perFrame: Schedule = (flush) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(flush);
  else setTimeout(flush, 16);
};

/**
 * A failure in plain words, whatever was thrown. fetch rejects with a TypeError whose wording
 * differs per browser ("Failed to fetch", "NetworkError when attempting to fetch resource.", "Load
 * failed", "fetch failed"): all mean the engine did not answer.
 */
export function messageOf(err: unknown): string {
  if (err instanceof TypeError && /fetch|network|load failed/i.test(err.message)) {
    return 'Hookbench does not answer (stopped, or restarting). This clears by itself when it is back.';
  }
  return err instanceof Error ? err.message : String(err);
}

export interface Batcher {
  /** Asks for one run of the flush; asks made before it starts share that run. */
  kick(): void;
}

/**
 * Runs `flush` at most once per scheduled frame, and never two at once: an answer from an older
 * run never lands over a newer one.
 */
export function batcher(schedule: Schedule, flush: () => Promise<void> | void): Batcher {
  let scheduled = false;
  let running: Promise<void> = Promise.resolve();
  return {
    kick() {
      if (scheduled) return;
      scheduled = true;
      schedule(() => {
        running = running.then(async () => {
          scheduled = false;
          await flush();
        });
      });
    },
  };
}

export interface LiveHandlers {
  onEvent(event: LiveEvent): void;
  /** The stream is back after a drop: read again whatever the missed events would have changed. */
  onReconnect?(): void;
  onState?(state: ConnectionState): void;
}

/**
 * Subscribes to the window's live stream; returns the stop function. A connection that comes after
 * a drop, or after a first attempt that failed (the engine was down when the view started, so its
 * first reads failed too), counts as a reconnect.
 */
export function followLive(transport: Transport, handlers: LiveHandlers): () => void {
  let behind = false;
  return transport.subscribe(handlers.onEvent, (state) => {
    handlers.onState?.(state);
    if (state === 'connected' && behind) handlers.onReconnect?.();
    if (state === 'connected') behind = false;
    if (state === 'reconnecting' || state === 'stopped') behind = true;
  });
}
