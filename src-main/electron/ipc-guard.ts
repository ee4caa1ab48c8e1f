/**
 * The main-process side of the one invoke channel, without electron: who may call, which names are
 * calls, and how every outcome becomes an ApiResponse. Electron's IPC keeps only the message of a
 * thrown error, so nothing is thrown across it; the renderer rebuilds ApiCallError from the answer.
 */
import type { ApiResponse, EngineApi } from '../../src-shared/api';
import { dispatchCall } from '../engine/api/dispatch';

/** Where our own renderer lives: the built index.html, or electron-vite's dev server. */
export type RendererLocation = { kind: 'file'; indexUrl: string } | { kind: 'dev'; url: string };

const parse = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};

/**
 * True when a frame at `frameUrl` is our renderer: the same file (query and hash may differ, the
 * window passes the ingest address in the query), or a page of the dev server's origin.
 */
export function isOwnRenderer(frameUrl: string | null | undefined, renderer: RendererLocation): boolean {
  if (!frameUrl) return false;
  const frame = parse(frameUrl);
  if (!frame) return false;
  if (renderer.kind === 'file') {
    const index = parse(renderer.indexUrl);
    return index !== null && frame.protocol === 'file:' && frame.host === index.host && frame.pathname === index.pathname;
  }
  const dev = parse(renderer.url);
  // An opaque origin ("null", e.g. data: or file:) never matches, even against itself.
  return dev !== null && dev.origin !== 'null' && frame.origin === dev.origin;
}

const failure = (code: string, message: string): ApiResponse => ({ ok: false, error: { code, message } });

/** Runs one `{ method, params }` request against the API; never throws. IPC has no status code. */
export async function answerCall(api: EngineApi, request: unknown): Promise<ApiResponse> {
  return (await dispatchCall(api, request)).response;
}

/** The handler behind the invoke channel: the sender is checked before the request is looked at. */
export function guardedCalls(api: EngineApi, renderer: RendererLocation): (frameUrl: string | null | undefined, request: unknown) => Promise<ApiResponse> {
  return async (frameUrl, request) => {
    if (!isOwnRenderer(frameUrl, renderer)) {
      return failure('forbidden', `calls are accepted only from Hookbench's own window, not from ${frameUrl || 'an unknown frame'}`);
    }
    return answerCall(api, request);
  };
}
