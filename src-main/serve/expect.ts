/**
 * `hookbench expect` and `hookbench reset`: the assertions API for CI scripts. They talk to a
 * running `hookbench serve` over HTTP with the token from HOOKBENCH_TOKEN. Formatting is pure
 * (describeExpectation, accountOf, junitXml) so that what a CI log shows is checked in tests.
 */
import { createWriteStream, writeFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, fetch as undiciFetch } from 'undici';
import type { MarkerView, WaitResult } from '../../src-shared/assertions';
import type { ClearLogResult } from '../../src-shared/api';
import { parseExportArgs, parseExpectArgs, parseImportArgs, parseResetArgs } from './args';
import { importNdjson } from './export';
import { tallyDetails, tallyWords } from '../../src-shared/import-file';

export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

export const DEFAULT_SERVER = 'http://127.0.0.1:4545';
/** Beyond the wait's own timeout, how long the CLI gives the server to answer. */
const ANSWER_GRACE_MS = 10_000;

class CommandError extends Error {}

function serverOf(given: string | undefined, env: CommandIo['env']): URL {
  const text = given ?? env.HOOKBENCH_SERVER ?? DEFAULT_SERVER;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CommandError(`--server must be a URL such as ${DEFAULT_SERVER}, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CommandError(`--server must be an http:// URL, not "${text}"`);
  return url;
}

function tokenOf(env: CommandIo['env']): string {
  const token = env.HOOKBENCH_TOKEN;
  if (!token) {
    throw new CommandError('HOOKBENCH_TOKEN is not set: start hookbench serve with HOOKBENCH_TOKEN set to a value of your choice, and give the same value here');
  }
  return token;
}

interface ApiAnswer {
  status: number;
  body: unknown;
}

/**
 * A wait may last 300 s before its answer's headers come, as long as fetch's default headers
 * timeout: the CLI's own timeout (the wait's plus a grace) is the bound instead.
 */
async function call(server: URL, token: string, path: string, init: { method?: string; body?: unknown; timeoutMs: number }): Promise<ApiAnswer> {
  const url = new URL(path, server);
  // One connection per call, closed after it: a kept-alive socket would hold the CLI open.
  const longPoll = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  try {
    return await answerOf(server, url, token, init, longPoll);
  } finally {
    await longPoll.close();
  }
}

async function answerOf(server: URL, url: URL, token: string, init: { method?: string; body?: unknown; timeoutMs: number }, longPoll: Agent): Promise<ApiAnswer> {
  let res: Awaited<ReturnType<typeof undiciFetch>>;
  try {
    res = await undiciFetch(url, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(init.timeoutMs),
      dispatcher: longPoll,
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    throw new CommandError(`cannot reach hookbench serve at ${server.origin} (${cause}); is it running, and is --server or HOOKBENCH_SERVER right?`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CommandError(`${server.origin}${url.pathname} answered ${res.status} with something other than JSON; is it hookbench serve?`);
  }
  if (res.status !== 200) {
    const error = (body as { error?: { message?: string; fields?: { field: string; message: string }[] } }).error;
    const detail = error?.fields?.map((f) => `${f.field} ${f.message}`).join('; ') ?? error?.message ?? text;
    if (res.status === 401) throw new CommandError(`the server refused the token (HOOKBENCH_TOKEN must be the token hookbench serve was started with): ${detail}`);
    throw new CommandError(`the server refused the request (${res.status}): ${detail}`);
  }
  return { status: res.status, body };
}

/** Pure: the expectation in words, from the wait's query parameters. */
export function describeExpectation(query: Record<string, string>): string {
  const count = Number(query.count ?? '1');
  const what = [query.type ?? (count === 1 ? 'message' : 'messages'), query.event === undefined ? '' : JSON.stringify(query.event)].filter(Boolean).join(' ');
  const parts = [`at least ${count} ${what}`];
  if (query.userId !== undefined) parts.push(`userId ${JSON.stringify(query.userId)}`);
  if (query.anonymousId !== undefined) parts.push(`anonymousId ${JSON.stringify(query.anonymousId)}`);
  if (query.source !== undefined) parts.push(`from source ${JSON.stringify(query.source)}`);
  if (query.delivered === 'true') parts.push('delivered (2xx)');
  if (query.violations === 'none') parts.push('without tracking-plan violations');
  if (query.violations === 'any') parts.push('with tracking-plan violations');
  if (query.marker !== undefined) parts.push(`after marker ${query.marker}`);
  if (query.since !== undefined) parts.push(`since ${query.since}`);
  if (query.until !== undefined) parts.push(`until ${query.until}`);
  return parts.join(', ');
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** Pure: what `hookbench expect` prints for a result. */
export function accountOf(description: string, r: WaitResult): string {
  if (r.met) return `ok: ${description}: ${r.matched} matched (after ${seconds(r.waitedMs)})\n`;
  const lines = [`FAILED: ${description}: ${r.matched} of ${r.wanted} matched within ${seconds(r.waitedMs)}`];
  for (const m of r.messages) lines.push(`  matched: #${m.id} ${m.type}${m.event === null ? '' : ` "${m.event}"`} at ${m.receivedAt}`);
  if (r.closest.length === 0) {
    lines.push(r.matched === 0 ? '  no other message arrived in that scope' : '  no other message came close');
  } else {
    lines.push('  closest messages, and why each did not match:');
    for (const c of r.closest) {
      const m = c.message;
      const who = m.userId !== null ? `userId "${m.userId}"` : m.anonymousId !== null ? `anonymousId "${m.anonymousId}"` : 'no id';
      lines.push(`  #${m.id} ${m.type}${m.event === null ? '' : ` "${m.event}"`}, ${who}, source ${m.source ?? '(none)'}, at ${m.receivedAt}`);
      for (const miss of c.mismatches) lines.push(`      ${miss.field}: wanted ${miss.expected}, got ${miss.actual}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const xml = (s: string): string =>
  // eslint-disable-next-line no-control-regex
  s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Pure: a JUnit XML report with one test case for the expectation. */
export function junitXml(name: string, description: string, r: WaitResult): string {
  const time = (r.waitedMs / 1000).toFixed(3);
  const failure = r.met ? '' : `\n      <failure message="${xml(`${r.matched} of ${r.wanted} matched`)}" type="expectation">${xml(accountOf(description, r))}</failure>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="1" failures="${r.met ? 0 : 1}" time="${time}">
  <testsuite name="hookbench expect" tests="1" failures="${r.met ? 0 : 1}" time="${time}">
    <testcase classname="hookbench.expect" name="${xml(name)}" time="${time}">${failure}${r.met ? '' : '\n    '}</testcase>
  </testsuite>
</testsuites>
`;
}

/** Returns the exit code: 0 met, 1 not met, 2 a usage, connection or server error. */
export async function expectCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const args = parseExpectArgs(argv, { HOOKBENCH_MARKER: io.env.HOOKBENCH_MARKER });
    const server = serverOf(args.server, io.env);
    const token = tokenOf(io.env);
    const answer = await call(server, token, `/api/messages/wait?${new URLSearchParams(args.query).toString()}`, {
      timeoutMs: args.timeoutSeconds * 1000 + ANSWER_GRACE_MS,
    });
    const result = answer.body as WaitResult;
    const description = describeExpectation(args.query);
    if (args.junit !== undefined) writeFileSync(args.junit, junitXml(args.name ?? description, description, result));
    io.out(args.json ? `${JSON.stringify({ expectation: description, ...result }, null, 2)}\n` : accountOf(description, result));
    return result.met ? 0 : 1;
  } catch (err) {
    io.err(`hookbench expect: ${(err as Error).message}\n`);
    return 2;
  }
}

export async function resetCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const args = parseResetArgs(argv);
    const server = serverOf(args.server, io.env);
    const token = tokenOf(io.env);
    const body = args.clear ? { clear: true } : { mark: args.mark };
    const answer = await call(server, token, '/api/reset', { method: 'POST', body, timeoutMs: 60_000 });
    if (args.json) {
      io.out(`${JSON.stringify(answer.body, null, 2)}\n`);
      return 0;
    }
    if ('marker' in (answer.body as object)) {
      const { marker } = answer.body as { marker: MarkerView };
      // The name alone on stdout, so that a script can say MARKER=$(hookbench reset).
      io.out(`${marker.name}\n`);
      io.err(`hookbench reset: marked ${marker.name} after message ${marker.afterMessageId}; pass --marker ${marker.name} (or HOOKBENCH_MARKER) to hookbench expect\n`);
      return 0;
    }
    const { cleared, markers } = answer.body as { cleared: ClearLogResult; markers: number };
    io.out(
      `cleared the log: ${cleared.requests} requests, ${cleared.messages} messages, ${cleared.deliveries} deliveries, ${markers} markers; kept ${cleared.keptActiveDeliveries} deliveries still pending or retrying\n`,
    );
    return 0;
  } catch (err) {
    io.err(`hookbench reset: ${(err as Error).message}\n`);
    return 2;
  }
}

/** Streams the export to stdout or a file: the server pages through the log, nothing is held whole. */
export async function exportCommand(argv: string[], io: CommandIo & { stdout?: Writable }): Promise<number> {
  try {
    const args = parseExportArgs(argv, { HOOKBENCH_MARKER: io.env.HOOKBENCH_MARKER });
    const server = serverOf(args.server, io.env);
    const token = tokenOf(io.env);
    const url = new URL(`/api/export?${new URLSearchParams(args.query).toString()}`, server);
    let res: Response;
    try {
      res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
      throw new CommandError(`cannot reach hookbench serve at ${server.origin} (${cause}); is it running, and is --server or HOOKBENCH_SERVER right?`);
    }
    if (res.status !== 200 || !res.body) {
      const body = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      throw new CommandError(`the server refused the export (${res.status}): ${body.error?.message ?? ''}`);
    }
    const sink = args.out !== undefined ? createWriteStream(args.out) : (io.stdout ?? new Writable({ write: (chunk: Buffer, _enc, done) => (io.out(chunk.toString('utf8')), done()) }));
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>), sink);
    return 0;
  } catch (err) {
    io.err(`hookbench export: ${(err as Error).message}\n`);
    return 2;
  }
}

/** Returns 0 when every message was taken (accepted, or a duplicate), 1 when some were invalid, refused or skipped, 2 when it could not start. */
export async function importCommand(argv: string[], io: CommandIo): Promise<number> {
  try {
    const args = parseImportArgs(argv);
    const server = serverOf(args.server, io.env);
    const r = await importNdjson(args.file, { server, writeKey: args.writeKey }, io);
    io.out(`imported ${args.file}: ${tallyWords(r)}\n`);
    for (const line of tallyDetails(r)) io.out(`  ${line}\n`);
    return r.refused + r.skipped + r.invalid === 0 ? 0 : 1;
  } catch (err) {
    io.err(`hookbench import: ${err instanceof CommandError ? err.message : (err as Error).message}\n`);
    return 2;
  }
}
