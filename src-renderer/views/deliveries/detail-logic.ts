/**
 * The Inspect panel's small decisions, kept out of the components so they can be table-tested:
 * the phase waterfall of an attempt, the checks on an edited body and a replay URL, and how sizes
 * and durations read.
 */
import type { AttemptTimingsView, AttemptView, SignatureCheck } from '../../../src-shared/api';
import { validateWebhookUrl } from '../../../src-shared/settings';
import { bytesOf, measuredMs } from '../../shared/format';

export type PhaseName = 'queued' | 'dns' | 'connect' | 'tls' | 'firstByte' | 'total';

export interface PhaseBar {
  phase: PhaseName;
  label: string;
  /** The figure shown beside the bar; null when the phase did not happen (reused socket, plain http). */
  ms: number | null;
  /** Where the bar starts and how wide it is, as fractions of the attempt's whole span. */
  left: number;
  width: number;
}

/**
 * The sender measures the wait for a free connection (queued), dns, connect and tls as durations of
 * their own, and first byte and total from when the attempt went (after the wait); on a waterfall
 * they follow each other in that order, first byte is the wait after them, and total spans all but
 * the queued wait.
 */
export function phaseBars(t: AttemptTimingsView): PhaseBar[] {
  const queued = t.queuedMs ?? 0;
  const dns = t.dnsMs ?? 0;
  const connect = t.connectMs ?? 0;
  const tls = t.tlsMs ?? 0;
  const setup = queued + dns + connect + tls;
  const firstByte = t.firstByteMs === undefined ? undefined : queued + t.firstByteMs;
  const span = Math.max(queued + t.totalMs, setup, firstByte ?? 0, 0);
  const frac = (ms: number): number => (span > 0 ? Math.min(1, Math.max(0, ms / span)) : 0);
  const bar = (phase: PhaseName, label: string, ms: number | undefined, from: number, to: number): PhaseBar => ({
    phase,
    label,
    ms: ms ?? null,
    left: ms === undefined ? 0 : frac(from),
    width: ms === undefined ? 0 : frac(Math.max(0, to - from)),
  });
  const bars = [
    bar('dns', 'dns', t.dnsMs, queued, queued + dns),
    bar('connect', 'connect', t.connectMs, queued + dns, queued + dns + connect),
    bar('tls', 'tls', t.tlsMs, queued + dns + connect, setup),
    bar('firstByte', 'first byte', t.firstByteMs, Math.min(setup, firstByte ?? setup), firstByte ?? setup),
    bar('total', 'total', t.totalMs, queued, queued + t.totalMs),
  ];
  // Shown only when it happened: most attempts never wait, and a row of "—" would say nothing.
  return t.queuedMs === undefined ? bars : [bar('queued', 'queued', t.queuedMs, 0, queued), ...bars];
}

/**
 * The attempt's duration beside its status: the receiver's time (total counts from when the
 * attempt went), and any wait for a free connection before it, so the two add up to the real span.
 */
export function durationParts(t: AttemptTimingsView): { took: string; queued: string | null } {
  return { took: measuredMs(t.totalMs), queued: t.queuedMs === undefined ? null : `after ${measuredMs(t.queuedMs)} queued` };
}

/** The same rule the engine applies (the body must be a JSON object), said before anything is sent. */
export function editedBodyProblem(text: string): string | null {
  if (text.trim() === '') return 'The body is empty: a webhook body is a JSON object.';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return `Not valid JSON: ${(err as Error).message}`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'The body must be a JSON object ({ … }), as every webhook payload is.';
  return null;
}

/** The replay target, checked by the same rule as a webhook entry's URL. */
export function targetUrlProblem(url: string): string | null {
  const [problem] = validateWebhookUrl(url, 'URL');
  return problem ? `${problem.field} ${problem.message}` : null;
}

export function signatureBadge(state: SignatureCheck['state']): { icon: string; label: string } {
  switch (state) {
    case 'valid':
      return { icon: '✓', label: 'signature valid' };
    case 'mismatch':
      return { icon: '✗', label: 'signature mismatch' };
    case 'no_secret':
      return { icon: '–', label: 'unsigned' };
    case 'not_sent':
      return { icon: '…', label: 'not sent yet' };
  }
}

/** What the collapsed response says about itself. */
export function responseSummary(a: Pick<AttemptView, 'httpStatus' | 'responseHeaders' | 'responseBytes' | 'responseTruncated' | 'state'>): string {
  if (a.state === 'in_flight') return 'waiting for the response';
  if (a.httpStatus === null) return 'no response';
  const headers = a.responseHeaders ? Object.keys(a.responseHeaders).length : 0;
  const bytes = a.responseBytes ?? 0;
  const parts = [headers === 0 ? 'no headers' : `${headers} header${headers === 1 ? '' : 's'}`, bytes === 0 ? 'empty body' : bytesOf(bytes)];
  if (a.responseTruncated) parts.push('body truncated');
  return parts.join(' · ');
}

/** Response header values as rows: a repeated header (e.g. Set-Cookie) gives one row per value. */
export function headerRows(headers: Record<string, string | string[]>): [string, string][] {
  return Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v): [string, string] => [name, v]) : [[name, value]]));
}

/** UTF-8 length of the stored body: what Content-Length said. */
export function byteLength(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Beyond this many line pairs the exact comparison is skipped for a cheaper one (still honest, less precise). */
const MAX_DIFF_CELLS = 4_000_000;

/**
 * Which lines of `text` are not shared with `other`, by a longest-common-subsequence over lines:
 * the lines an edit added or changed (or, swapped, the original's lines it removed or changed).
 */
export function changedLines(text: string, other: string): boolean[] {
  const a = text.split('\n');
  const b = other.split('\n');
  if (a.length * b.length > MAX_DIFF_CELLS) {
    const pool = new Map<string, number>();
    for (const line of b) pool.set(line, (pool.get(line) ?? 0) + 1);
    return a.map((line) => {
      const left = pool.get(line) ?? 0;
      if (left === 0) return true;
      pool.set(line, left - 1);
      return false;
    });
  }
  // lcs[i][j]: common lines of a[i..] and b[j..]; one flat array keeps it to a single allocation.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * width + j] ?? 0, lcs[i * width + j + 1] ?? 0);
    }
  }
  const changed = a.map(() => true);
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      changed[i] = false;
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] ?? 0) >= (lcs[i * width + j + 1] ?? 0)) i++;
    else j++;
  }
  return changed;
}
