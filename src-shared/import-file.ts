/**
 * Importing a file back through the Tracking API, the parts both importers share (`hookbench
 * import` and the Import dialog of the UI): reading NDJSON or a HAR file into messages, cutting
 * them into batches the ingest takes, reading what the ingest did with each batch, and the words
 * of the summary. Pure; browser and Node alike.
 */
import { TRACKING_LIMITS } from './limits';
import { ingestCallOf } from './tracking-paths';

/** A line (NDJSON, 1-based) or a HAR entry (0-based) that gave no message, and why. */
export interface SkippedLine {
  line: number;
  reason: string;
}

export interface ImportFile {
  /** har: the Tracking API calls a HAR file recorded; ndjson: one message per line. */
  kind: 'ndjson' | 'har';
  messages: unknown[];
  skipped: SkippedLine[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pure: NDJSON text as messages; lines that are not JSON objects are skipped, by line number, with the reason. */
export function messagesOfNdjson(text: string): { messages: unknown[]; skipped: SkippedLine[] } {
  const messages: unknown[] = [];
  const skipped: SkippedLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped.push({ line: i + 1, reason: 'not valid JSON' });
      return;
    }
    if (!isObject(value)) {
      skipped.push({ line: i + 1, reason: 'not a JSON object' });
      return;
    }
    messages.push(value);
  });
  return { messages, skipped };
}

/**
 * Pure: the Tracking API calls recorded in a HAR file (a browser's, say) as messages: each POST to
 * a Tracking API path with a JSON body; a batch gives its items, a single call its body with the
 * type its path names. Other entries are skipped, each named by its index and why.
 */
export function messagesOfHar(har: unknown): { messages: unknown[]; skipped: SkippedLine[] } {
  const entries = isObject(har) && isObject(har.log) && Array.isArray(har.log.entries) ? har.log.entries : null;
  if (entries === null) return { messages: [], skipped: [{ line: 0, reason: 'not a HAR file: no log.entries' }] };
  const messages: unknown[] = [];
  const skipped: SkippedLine[] = [];
  entries.forEach((entry: unknown, i) => {
    const request = isObject(entry) && isObject(entry.request) ? entry.request : null;
    const url = typeof request?.url === 'string' ? request.url : '';
    let path = '';
    try {
      path = new URL(url).pathname.replace(/^\/+/, '/').replace(/\/+$/, '');
    } catch {
      path = '';
    }
    const call = request?.method === 'POST' ? ingestCallOf(path) : null;
    if (call === null) {
      skipped.push({ line: i, reason: `entry ${i} is not a Tracking API call (${String(request?.method ?? '?')} ${url})` });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(isObject(request?.postData) && typeof request.postData.text === 'string' ? request.postData.text : '');
    } catch {
      skipped.push({ line: i, reason: `entry ${i} has no JSON body` });
      return;
    }
    if (!isObject(body)) {
      skipped.push({ line: i, reason: `entry ${i} has no JSON object as its body` });
      return;
    }
    if (call === 'batch') {
      if (Array.isArray(body.batch)) messages.push(...body.batch.filter(isObject));
      else skipped.push({ line: i, reason: `entry ${i} is a batch call without a batch list` });
      return;
    }
    messages.push({ ...body, type: body.type ?? call });
  });
  return { messages, skipped };
}

/** A file's name says what it holds: `.har` is a HAR file, anything else NDJSON. */
export const isHarName = (name: string): boolean => /\.har$/i.test(name);

/** Pure: a file's text as messages, by its name; a HAR file that is not JSON is an Error naming it. */
export function readImportFile(name: string, text: string): ImportFile {
  if (!isHarName(name)) return { kind: 'ndjson', ...messagesOfNdjson(text) };
  let har: unknown;
  try {
    har = JSON.parse(text);
  } catch (err) {
    throw new Error(`${name} is not valid JSON: ${(err as Error).message}`);
  }
  return { kind: 'har', ...messagesOfHar(har) };
}

/**
 * The header an importer sends so that each message is kept as the log line it is: its
 * `timestamp`, `originalTimestamp` and `sentAt` as recorded, with no clock-skew correction
 * against the new receipt (which would move every event to the time of the import). SDKs never
 * send it, so live calls keep Segment's correction.
 */
export const AS_RECORDED_HEADER = 'x-hookbench-import';
export const AS_RECORDED_VALUE = 'as-recorded';

/** Pure: the headers of one import batch sent to a Tracking API with a source's write key. */
export function importRequestHeaders(writeKey: string, userAgent: string): Record<string, string> {
  return {
    authorization: `Basic ${base64(`${writeKey}:`)}`,
    'content-type': 'application/json',
    'user-agent': userAgent,
    [AS_RECORDED_HEADER]: AS_RECORDED_VALUE,
  };
}

const base64 = (text: string): string => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

const encoder = new TextEncoder();

/** Messages per batch an import sends: a batch call's worth, well within the ingest's limits. */
export const IMPORT_BATCH_ITEMS = 100;

/** Pure: messages as batches of at most maxItems, each under the batch byte limit (room left for the envelope). */
export function batchItems(items: unknown[], maxItems = IMPORT_BATCH_ITEMS): unknown[][] {
  const budget = TRACKING_LIMITS.maxBatchBytes - 1024;
  const batches: unknown[][] = [];
  let current: unknown[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = encoder.encode(JSON.stringify(item)).length + 1;
    if (current.length >= maxItems || (current.length > 0 && bytes + size > budget)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Pure: NDJSON text as batches for /v1/batch, with the lines it skips. */
export function batchesOf(text: string, maxItems = IMPORT_BATCH_ITEMS): { batches: unknown[][]; skipped: SkippedLine[]; messages: number } {
  const { messages, skipped } = messagesOfNdjson(text);
  return { batches: batchItems(messages, maxItems), skipped, messages: messages.length };
}

/**
 * The header of a Tracking API answer that says what became of the call's items: Segment's body
 * stays `{"success":true}`, and an SDK ignores the header.
 */
export const INGEST_RESULT_HEADER = 'x-hookbench-ingest';

export interface IngestResult {
  /** The Inbound request the call was logged as. */
  requestId: number;
  accepted: number;
  invalid: number;
  duplicates: number;
}

/** Pure: an ingest result as the header's value, e.g. `request=12; accepted=98; invalid=1; duplicates=1`. */
export function ingestResultHeader(r: IngestResult): string {
  return `request=${r.requestId}; accepted=${r.accepted}; invalid=${r.invalid}; duplicates=${r.duplicates}`;
}

/** Pure: the header's value read back; null when absent or not ours (an older server). */
export function parseIngestResult(value: string | null | undefined): IngestResult | null {
  if (!value) return null;
  const fields = new Map(value.split(';').map((part) => part.trim().split('=') as [string, string | undefined]));
  const n = (k: string): number | null => {
    const v = fields.get(k);
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : null;
  };
  const [requestId, accepted, invalid, duplicates] = [n('request'), n('accepted'), n('invalid'), n('duplicates')];
  if (requestId === null || accepted === null || invalid === null || duplicates === null) return null;
  return { requestId, accepted, invalid, duplicates };
}

/** What an import did, summed over its batches. */
export interface ImportTally {
  /** Messages sent to the ingest in batches it took. */
  sent: number;
  /** Stored as new messages (and delivered). */
  accepted: number;
  /** Dropped by the ingest's checks, each with its reason in Inbound. */
  invalid: number;
  /** Dropped as a messageId the source already had within 24 hours. */
  duplicates: number;
  /** Messages in batches the ingest refused whole (too large, too deep, unknown write key…). */
  refused: number;
  /** Lines (or HAR entries) that gave no message. */
  skipped: number;
  /** Why batches were refused: `400 message`, each once. */
  refusals: string[];
  /** Why items were dropped as invalid, each reason once (when the importer could read them). */
  invalidReasons: string[];
}

export const emptyTally = (): ImportTally => ({ sent: 0, accepted: 0, invalid: 0, duplicates: 0, refused: 0, skipped: 0, refusals: [], invalidReasons: [] });

/** Pure: the tally after one more batch of `size` messages (result null: the ingest did not say; all taken counted accepted). */
export function addBatch(t: ImportTally, size: number, outcome: { ok: true; result: IngestResult | null; invalidReasons?: string[] } | { ok: false; refusal: string }): ImportTally {
  if (!outcome.ok) {
    return { ...t, refused: t.refused + size, refusals: t.refusals.includes(outcome.refusal) ? t.refusals : [...t.refusals, outcome.refusal] };
  }
  const r = outcome.result;
  const reasons = [...t.invalidReasons];
  for (const why of outcome.invalidReasons ?? []) if (!reasons.includes(why)) reasons.push(why);
  return {
    ...t,
    sent: t.sent + size,
    accepted: t.accepted + (r === null ? size : r.accepted),
    invalid: t.invalid + (r?.invalid ?? 0),
    duplicates: t.duplicates + (r?.duplicates ?? 0),
    invalidReasons: reasons,
  };
}

/** Pure: how a skipped line or entry is named. */
export const skippedWords = (kind: ImportFile['kind'], s: SkippedLine): string => `${kind === 'har' ? '' : `line ${s.line} `}skipped: ${s.reason}`;

/** Pure: the summary's first line, the same words in the CLI and the UI. */
export function tallyWords(t: ImportTally): string {
  return `${t.accepted} messages accepted, ${t.invalid + t.duplicates} dropped (${t.invalid} invalid, ${t.duplicates} duplicates), ${t.refused} refused, ${t.skipped} lines skipped`;
}

/** Pure: the summary's detail lines: why messages were dropped or refused. */
export function tallyDetails(t: ImportTally): string[] {
  return [
    ...t.invalidReasons.map((why) => `invalid: ${why}`),
    ...(t.duplicates > 0 ? [`duplicates: ${t.duplicates} messageIds the source already had within 24 hours (acknowledged, not stored again)`] : []),
    ...t.refusals.map((why) => `refused: ${why}`),
  ];
}
