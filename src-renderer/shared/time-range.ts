/** The time-range choices Inbound and Deliveries share, turned into the API's from/to (pure). */

export type RangeChoice = 'any' | '15m' | '1h' | '24h' | 'custom';

export const RANGE_CHOICES: { value: RangeChoice; label: string }[] = [
  { value: 'any', label: 'any time' },
  { value: '15m', label: 'last 15 min' },
  { value: '1h', label: 'last hour' },
  { value: '24h', label: 'last 24 hours' },
  { value: 'custom', label: 'from … to …' },
];

const SPAN_MS: Record<'15m' | '1h' | '24h', number> = { '15m': 15 * 60_000, '1h': 60 * 60_000, '24h': 24 * 60 * 60_000 };

/** A quick choice as from/to at `now`; 'any' clears both; 'custom' keeps what the boxes hold. */
export function rangeOf(choice: Exclude<RangeChoice, 'custom'>, now: number): { from?: string; to?: string } {
  if (choice === 'any') return {};
  return { from: new Date(now - SPAN_MS[choice]).toISOString() };
}

/** A datetime-local box's value ("2026-11-23T12:30", local time) as ISO 8601, or undefined when empty or unreadable. */
export function isoOfLocal(value: string): string | undefined {
  if (value === '') return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** ISO 8601 as a datetime-local box's value, in local time to the minute. */
export function localOfIso(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (!Number.isFinite(d.getTime())) return '';
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
