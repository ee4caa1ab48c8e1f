/** The source a call came in on, by name. */
import type { Source } from '../../../src-shared/settings';

/** The source's name; refused calls may have none, and a removed source keeps its id in the log. */
export function sourceNameOf(sourceId: number | null, sources: Source[]): string {
  if (sourceId === null) return '—';
  return sources.find((s) => s.id === sourceId)?.name ?? `#${sourceId} (removed)`;
}
