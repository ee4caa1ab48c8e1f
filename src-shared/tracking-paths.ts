/** The Tracking API's paths and the call each takes: the ingest routes by them, an import reads HAR files by them. */
import type { MessageType } from './events';

// analytics.js and the mobile SDKs post to one-letter paths (`/v1/t`, `/v1/b`, …); both spellings are the same call.
export const SINGLE_CALL_PATHS: Readonly<Record<string, MessageType>> = {
  '/v1/identify': 'identify',
  '/v1/track': 'track',
  '/v1/page': 'page',
  '/v1/screen': 'screen',
  '/v1/group': 'group',
  '/v1/alias': 'alias',
  '/v1/i': 'identify',
  '/v1/t': 'track',
  '/v1/p': 'page',
  '/v1/s': 'screen',
  '/v1/g': 'group',
  '/v1/a': 'alias',
};
export const BATCH_PATHS: ReadonlySet<string> = new Set(['/v1/batch', '/v1/import', '/v1/b']);

/** What a Tracking API path takes: a batch, one call of a type, or null for any other path. */
export function ingestCallOf(path: string): 'batch' | MessageType | null {
  if (BATCH_PATHS.has(path)) return 'batch';
  return SINGLE_CALL_PATHS[path] ?? null;
}
