/**
 * Timestamps arrive in every shape real SDKs produce (docs/tracking-api.md, "Times"): Go v2's second precision with
 * "+0000", RFC 3339 with nanoseconds, "Z" with milliseconds, "+00:00" with microseconds. Date.parse
 * accepts only some of these, so they are parsed here explicitly.
 */
const SHAPE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Milliseconds since the epoch, or null when the string is not an ISO 8601 / RFC 3339 time. */
export function parseTimestamp(value: string): number | null {
  const m = SHAPE.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const ms = Number((frac + '000').slice(0, 3));
  let offsetMinutes = 0;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 60) return null;
  const utc = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s), ms);
  return utc - offsetMinutes * 60_000;
}

/** ISO 8601 UTC with millisecond precision, the one shape Hookbench emits. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
