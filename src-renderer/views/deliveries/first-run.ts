/** Where a new user stands on the way to a first delivery (pure): the first-run steps of the empty Deliveries view. */
import type { Destination, Source } from '../../../src-shared/settings';

export interface FirstRun {
  /** The source to send from: the first one, or null while there is none. */
  source: Source | null;
  /** An enabled destination attached to that source with a URL switched on, or null. */
  destination: Destination | null;
  /** Why no destination counts yet, in words, when there is none. */
  destinationMissing: string | null;
}

export function firstRun(sources: readonly Source[], destinations: readonly Destination[]): FirstRun {
  const source = sources[0] ?? null;
  if (!source) return { source: null, destination: null, destinationMissing: null };
  const attached = destinations.filter((d) => d.sources.includes(source.name));
  const ready = attached.find((d) => d.enabled && d.webhooks.some((w) => w.enabled !== false)) ?? null;
  if (ready) return { source, destination: ready, destinationMissing: null };
  const why =
    attached.length === 0
      ? `No destination is attached to “${source.name}” yet: events from it are logged but sent nowhere.`
      : attached.some((d) => d.enabled)
        ? `Every webhook URL of the destinations attached to “${source.name}” is switched off.`
        : `The destinations attached to “${source.name}” are switched off.`;
  return { source, destination: null, destinationMissing: why };
}

/** The curl line that sends a first track call with this write key. */
export function firstCurl(origin: string, writeKey: string): string {
  return [
    `curl ${origin}/v1/track \\`,
    `  -u '${writeKey}:' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"userId":"user_1","event":"Signed Up","properties":{"plan":"pro"}}'`,
  ].join('\n');
}
