/** Small pure formatting for the Inbound view. */
import type { Source } from '../../../src-shared/settings';

/** The source's name; refused calls may have none, and a removed source keeps its id in the log. */
export function sourceNameOf(sourceId: number | null, sources: Source[]): string {
  if (sourceId === null) return '—';
  return sources.find((s) => s.id === sourceId)?.name ?? `#${sourceId} (removed)`;
}

export function bytesOf(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
