/**
 * Durations, sizes and times as every view writes them. Measured durations (network timings,
 * latency) keep the precision they are worth; configured ones (timeouts, retry pauses) read as
 * spans; sizes read in bytes, KB or MB.
 */

/** "0.4 ms", "12 ms", "1.25 s"; "—" when nothing was measured. */
export function measuredMs(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 10) return `${(Math.round(ms * 10) / 10).toString()} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(Math.round(ms / 10) / 100).toString()} s`;
}

/** "500 ms", "5 s", "1.5 s", "10 min", "4 h", "1 h 30 min". */
export function spanOf(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(1))} s`;
  const h = Math.floor(ms / 3_600_000);
  const min = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  const parts = [h > 0 ? `${h} h` : '', min > 0 ? `${min} min` : '', s > 0 && h === 0 ? `${s} s` : ''].filter(Boolean);
  return parts.join(' ');
}

/** "in 4 min", "in 2 h", "due now": how far `iso` is from now (ms since the epoch). */
export function untilOf(iso: string, now: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const ms = at - now;
  if (ms <= 0) return 'due now';
  const min = Math.round(ms / 60_000);
  if (min < 1) return 'in less than a minute';
  if (min < 120) return `in ${min} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `in ${h} h`;
  return `in ${Math.round(h / 24)} days`;
}

/** "18 bytes", "1 byte", "64 KB", "1.5 MB". */
export function bytesOf(n: number): string {
  if (n === 1) return '1 byte';
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${Math.round((n / 1024) * 10) / 10} KB`;
  return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
}

/** "12.3 MB" whatever the size, to read beside a limit set in megabytes. */
/** A count as the views print them: 1,234,567. */
export const countOf = (n: number): string => n.toLocaleString('en-US');

export function megabytesOf(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Local wall-clock time with milliseconds, e.g. 14:03:27.512. */
export function timeOf(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A list's time: the local time of day with milliseconds when it is today ("14:03:27.512"), the
 * date first otherwise ("21 Nov 14:03:27", "21 Nov 2025 14:03:27" in another year).
 */
export function whenOf(iso: string | null, now: number): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = new Date(now);
  if (d.getFullYear() === today.getFullYear() && d.getMonth() === today.getMonth() && d.getDate() === today.getDate()) return timeOf(iso);
  const year = d.getFullYear() === today.getFullYear() ? '' : ` ${d.getFullYear()}`;
  return `${d.getDate()} ${MONTHS[d.getMonth()]}${year} ${timeOf(iso).slice(0, 8)}`;
}

/**
 * A detail's time, whole: the date, then the local time of day with milliseconds ("28 Nov 2026
 * 13:13:16.512"), the same words as the lists' times wherever a view shows one.
 */
export function dateTimeOf(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getDate()} ${MONTHS[d.getMonth()]} ${d.getFullYear()} ${timeOf(iso)}`;
}

/** The body as indented JSON when it parses, as sent otherwise. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
