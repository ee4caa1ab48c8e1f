/**
 * HAR 1.2: each webhook attempt as one request/response entry with its timings. Our own minimal
 * types, only the fields HAR 1.2 requires and the ones we fill. Pure: harEntry turns a stored
 * attempt into an entry; the export streams the document around the entries.
 */
import type { ExportAttemptRow } from '../store/assertions';

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarTimings {
  blocked: number;
  dns: number;
  connect: number;
  ssl: number;
  send: number;
  wait: number;
  receive: number;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: string;
    url: string;
    httpVersion: string;
    cookies: never[];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData: { mimeType: string; text: string };
    headersSize: number;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: never[];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text: string };
    redirectURL: string;
    headersSize: number;
    bodySize: number;
  };
  cache: Record<string, never>;
  timings: HarTimings;
  comment: string;
}

export const HAR_PREAMBLE = (version: string): string =>
  `{"log":{"version":"1.2","creator":{"name":"Hookbench","version":${JSON.stringify(version)}},"entries":[`;
export const HAR_END = ']}}\n';

function parsed<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

const headerList = (headers: Record<string, string | string[]>): HarHeader[] =>
  Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value.map((v) => ({ name, value: v })) : [{ name, value: String(value) }]));

const ms = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v * 1000) / 1000 : null);

/** Pure: our measured phases as HAR timings (connect includes TLS there; -1 when not measured). */
export function harTimings(timings: { queuedMs?: number; dnsMs?: number; connectMs?: number; tlsMs?: number; firstByteMs?: number; totalMs?: number } | null): HarTimings {
  // HAR's `blocked` is exactly the wait for a connection; first byte and total count from after it.
  const blocked = ms(timings?.queuedMs);
  const dns = ms(timings?.dnsMs);
  const tcp = ms(timings?.connectMs);
  const ssl = ms(timings?.tlsMs);
  const connect = tcp === null && ssl === null ? null : (tcp ?? 0) + (ssl ?? 0);
  const firstByte = ms(timings?.firstByteMs);
  const total = ms(timings?.totalMs) ?? 0;
  const before = (dns ?? 0) + (connect ?? 0);
  const wait = firstByte === null ? Math.max(0, total - before) : Math.max(0, firstByte - before);
  const receive = firstByte === null ? 0 : Math.max(0, total - firstByte);
  return { blocked: blocked ?? -1, dns: dns ?? -1, connect: connect ?? -1, ssl: ssl ?? -1, send: 0, wait, receive };
}

export function harEntry(a: ExportAttemptRow): HarEntry {
  const requestHeaders = parsed<Record<string, string>>(a.request_headers, {});
  const responseHeaders = parsed<Record<string, string | string[]>>(a.response_headers, {});
  const timings = harTimings(parsed(a.timings, null));
  const body = a.body === null ? '' : a.body.toString('utf8');
  const responseText = a.response_body === null ? '' : a.response_body.toString('utf8');
  const contentType = responseHeaders['content-type'];
  const url = new URL(a.url);
  return {
    startedDateTime: new Date(a.started_at).toISOString(),
    // HAR's time is the sum of the phases, ssl excepted (it is inside connect).
    time: [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive].filter((t) => t > 0).reduce((x, y) => x + y, 0),
    request: {
      method: 'POST',
      url: a.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(requestHeaders),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      postData: { mimeType: requestHeaders['content-type'] ?? 'application/json', text: body },
      headersSize: -1,
      bodySize: a.body === null ? 0 : a.body.length,
    },
    response: {
      // 0 when no answer came (a timeout, a refused connection): the HAR convention for "none".
      status: a.http_status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headerList(responseHeaders),
      content: {
        size: a.response_bytes ?? responseText.length,
        mimeType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? 'x-unknown',
        text: responseText,
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: a.response_bytes ?? -1,
    },
    cache: {},
    timings,
    comment: `delivery ${a.delivery_id} (${a.type ?? 'message'}${a.event === null ? '' : ` "${a.event}"`}) to ${a.destination ?? 'a replay URL'}; attempt ${a.state}${a.error_text ? `: ${a.error_text}` : ''}`,
  };
}
