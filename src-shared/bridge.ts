/**
 * What Electron's preload puts on `window.hookbench`: a narrow, typed bridge. The
 * renderer imports this type without importing electron; src-main/electron/preload.ts implements it.
 * Calls answer with an ApiResponse rather than throwing, because Electron's IPC keeps only the
 * message of a thrown error, and the renderer needs its code and fields.
 */
import type { ApiMethod, ApiParams, ApiResponse, ApiResult, LiveEvent } from './api';

export interface HookbenchBridge {
  call<M extends ApiMethod>(method: M, params?: ApiParams<M>): Promise<ApiResponse<ApiResult<M>>>;
  /** Live events pushed by the main process until the returned function is called. */
  subscribe(onEvent: (event: LiveEvent) => void): () => void;
  /** process.platform of the main process: darwin, linux, win32. */
  readonly platform: string;
}

/** The name of the global the preload exposes. */
export const BRIDGE_GLOBAL = 'hookbench';
