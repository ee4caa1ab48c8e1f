/**
 * The CLI's flags, read by node:util's parseArgs. Pure, so that every refusal is testable and
 * names the flag.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface ServeArgs {
  config?: string;
  dataDir?: string;
  port: number;
  host: string;
  /** Replace the launch token kept in the data folder (every open tab must be opened anew). */
  newToken: boolean;
  /** The test receivers' HTTPS port; 0 picks a free one. */
  receiversTlsPort: number;
}

export const USAGE = `usage: hookbench serve [--config FILE] [--data-dir DIR] [--port N] [--host H] [--new-token] [--receivers-tls-port N]
       hookbench clear [--data-dir DIR] [--yes]
       hookbench expect [filters] [--count N] [--timeout SECONDS] [--json] [--junit FILE] [--server URL]
       hookbench reset [--mark NAME | --clear] [--json] [--server URL]
       hookbench export [--format ndjson|csv|har] [filters] [--out FILE] [--server URL]
       hookbench import FILE --write-key KEY [--server URL]
serve:
  --config FILE    apply sources, destinations, delivery and retention settings from a JSON file at start
  --data-dir DIR   where the SQLite log lives (default: the user's data folder)
  --port N         port for the Tracking API and the UI (default 4545; 0 picks a free port)
  --host H         address to listen on (default 127.0.0.1)
  --new-token      make a new launch token for this data folder (tabs opened with the old one stop working)
  --receivers-tls-port N
                   port for the test receivers over HTTPS, with a self-signed certificate (default 0: a free port)
clear (the folder must not be in use; a running Hookbench has Clear log in its Configure view):
  --data-dir DIR   the folder whose log to clear (default: the user's data folder)
  --yes            clear it; without it, only say what would go
expect (asks a running hookbench serve; the token comes from HOOKBENCH_TOKEN):
  --type T, --event E, --user-id U, --anonymous-id A, --source NAME   match these exactly
  --delivered      a delivery succeeded (a URL of the webhook destination answered 2xx)
  --no-violations  the message passed the tracking plan
  --with-violations
                   the message broke the tracking plan (a test that the plan catches a bad call)
  --marker NAME    only messages after this marker (default: HOOKBENCH_MARKER)
  --since TIME     only messages received at or after an ISO 8601 time
  --until TIME     only messages received before an ISO 8601 time
  --count N        at least N messages (default 1)
  --timeout S      wait up to S seconds for them (default 10, at most 300)
  --json           print the result as JSON
  --junit FILE     also write a JUnit XML report (--name names its test case)
  --server URL     the server (default: HOOKBENCH_SERVER, else http://127.0.0.1:4545)
  exits 0 when met, 1 when not (with the closest messages and why each missed), 2 on a usage or connection error
reset (asks a running hookbench serve):
  --mark NAME      mark the log's end as NAME (the default, with a made-up name); prints the name
  --clear          empty the log and drop every marker
  --json           print the answer as JSON
export (asks a running hookbench serve): the messages matching the filters of expect (and --limit N),
  oldest first, as NDJSON (each message as stored; the default) or CSV, or their webhook attempts as
  HAR 1.2 (--format har), to stdout or --out FILE
import: sends an NDJSON file's messages (or a .har file's Tracking API calls) through a server's Tracking API
  with --write-key KEY, in batches`;

export interface ClearArgs {
  dataDir?: string;
  yes: boolean;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs' refusals (codes ERR_PARSE_ARGS_*) in our words, naming the flag, with the usage. */
function refusal(err: unknown, argv: readonly string[]): Error {
  const code = (err as { code?: unknown }).code;
  const text = err instanceof Error ? err.message : String(err);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /(--[\w-]+)/.exec(text)?.[1] ?? 'an option';
    if (/does not take an argument/.test(text)) return new Error(`${flag} takes no value\n${USAGE}`);
    return new Error(`${flag} needs a value\n${USAGE}`);
  }
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(text)?.[1] ?? '';
    // parseArgs names "--verbose" for "--verbose=1"; say what was typed.
    const typed = argv.find((a) => a === flag || a.startsWith(`${flag}=`)) ?? flag;
    return new Error(`unknown option ${typed}\n${USAGE}`);
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const arg = /'([^']+)'/.exec(text)?.[1] ?? '';
    return new Error(`unexpected argument ${arg}\n${USAGE}`);
  }
  return err instanceof Error ? err : new Error(text);
}

function parse<O extends Options>(argv: string[], options: O): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true }>>['values'] {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (err) {
    throw refusal(err, argv);
  }
  // `--config=` parses as an empty value; a flag that takes one needs one.
  for (const [name, value] of Object.entries(values)) {
    if (value === '') throw new Error(`--${name} needs a value\n${USAGE}`);
  }
  return values;
}

export function parseClearArgs(argv: string[]): ClearArgs {
  const values = parse(argv, { 'data-dir': { type: 'string' }, yes: { type: 'boolean', short: 'y' } });
  const args: ClearArgs = { yes: values.yes ?? false };
  if (values['data-dir'] !== undefined) args.dataDir = values['data-dir'];
  return args;
}

export function parseServeArgs(argv: string[]): ServeArgs {
  const values = parse(argv, {
    config: { type: 'string' },
    'data-dir': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'new-token': { type: 'boolean' },
    'receivers-tls-port': { type: 'string' },
  });
  const args: ServeArgs = { port: 4545, host: values.host ?? '127.0.0.1', newToken: values['new-token'] ?? false, receiversTlsPort: 0 };
  if (values.config !== undefined) args.config = values.config;
  if (values['data-dir'] !== undefined) args.dataDir = values['data-dir'];
  if (values.port !== undefined) {
    const v = values.port;
    const port = Number(v);
    if (!/^\d+$/.test(v) || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535, not "${v}"`);
    args.port = port;
  }
  const tlsPort = values['receivers-tls-port'];
  if (tlsPort !== undefined) {
    if (!/^\d+$/.test(tlsPort) || Number(tlsPort) > 65535) {
      throw new Error(`--receivers-tls-port must be a whole number from 0 to 65535, not "${tlsPort}"`);
    }
    args.receiversTlsPort = Number(tlsPort);
  }
  return args;
}

export interface ExpectArgs {
  server?: string;
  /** Query parameters of GET /api/messages/wait, by their API names. */
  query: Record<string, string>;
  json: boolean;
  junit?: string;
  name?: string;
  timeoutSeconds: number;
}

/** Flag → the API's parameter name. */
const EXPECT_FILTERS = {
  type: 'type',
  event: 'event',
  'user-id': 'userId',
  'anonymous-id': 'anonymousId',
  source: 'source',
  marker: 'marker',
  since: 'since',
  until: 'until',
  count: 'count',
  timeout: 'timeout',
} as const;

export const DEFAULT_EXPECT_TIMEOUT_SECONDS = 10;

/** --no-violations and --with-violations as the API's `violations`; both at once ask for nothing that can match. */
function violationsFlag(values: { 'no-violations'?: boolean | undefined; 'with-violations'?: boolean | undefined }, query: Record<string, string>): void {
  if (values['no-violations'] && values['with-violations']) throw new Error('give --no-violations or --with-violations, not both');
  if (values['no-violations']) query.violations = 'none';
  if (values['with-violations']) query.violations = 'any';
}

export function parseExpectArgs(argv: string[], env: { HOOKBENCH_MARKER?: string | undefined } = {}): ExpectArgs {
  const values = parse(argv, {
    type: { type: 'string' },
    event: { type: 'string' },
    'user-id': { type: 'string' },
    'anonymous-id': { type: 'string' },
    source: { type: 'string' },
    marker: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    count: { type: 'string' },
    timeout: { type: 'string' },
    delivered: { type: 'boolean' },
    'no-violations': { type: 'boolean' },
    'with-violations': { type: 'boolean' },
    json: { type: 'boolean' },
    junit: { type: 'string' },
    name: { type: 'string' },
    server: { type: 'string' },
  });
  const query: Record<string, string> = {};
  for (const [flag, param] of Object.entries(EXPECT_FILTERS)) {
    const value = values[flag as keyof typeof EXPECT_FILTERS];
    if (value !== undefined) query[param] = value;
  }
  if (query.marker === undefined && env.HOOKBENCH_MARKER) query.marker = env.HOOKBENCH_MARKER;
  if (values.delivered) query.delivered = 'true';
  violationsFlag(values, query);
  if (query.count !== undefined && !/^[1-9]\d*$/.test(query.count)) throw new Error(`--count must be a whole number from 1, not "${query.count}"`);
  let timeoutSeconds = DEFAULT_EXPECT_TIMEOUT_SECONDS;
  if (query.timeout !== undefined) {
    timeoutSeconds = Number(query.timeout);
    if (!/^\d+(\.\d+)?$/.test(query.timeout) || timeoutSeconds > 300) throw new Error(`--timeout must be a number of seconds from 0 to 300, not "${query.timeout}"`);
  } else {
    query.timeout = String(timeoutSeconds);
  }
  const args: ExpectArgs = { query, json: values.json ?? false, timeoutSeconds };
  if (values.server !== undefined) args.server = values.server;
  if (values.junit !== undefined) args.junit = values.junit;
  if (values.name !== undefined) args.name = values.name;
  return args;
}

export interface ResetArgs {
  server?: string;
  /** A name, or true for a made-up one. */
  mark?: string | true;
  clear: boolean;
  json: boolean;
}

export function parseResetArgs(argv: string[]): ResetArgs {
  const values = parse(argv, { mark: { type: 'string' }, clear: { type: 'boolean' }, json: { type: 'boolean' }, server: { type: 'string' } });
  if (values.clear && values.mark !== undefined) throw new Error(`give --mark or --clear, not both\n${USAGE}`);
  const args: ResetArgs = { clear: values.clear ?? false, json: values.json ?? false };
  if (!args.clear) args.mark = values.mark ?? true;
  if (values.server !== undefined) args.server = values.server;
  return args;
}

export interface ExportArgs {
  server?: string;
  query: Record<string, string>;
  out?: string;
}

export function parseExportArgs(argv: string[], env: { HOOKBENCH_MARKER?: string | undefined } = {}): ExportArgs {
  const values = parse(argv, {
    format: { type: 'string' },
    type: { type: 'string' },
    event: { type: 'string' },
    'user-id': { type: 'string' },
    'anonymous-id': { type: 'string' },
    source: { type: 'string' },
    marker: { type: 'string' },
    since: { type: 'string' },
    until: { type: 'string' },
    limit: { type: 'string' },
    delivered: { type: 'boolean' },
    'no-violations': { type: 'boolean' },
    'with-violations': { type: 'boolean' },
    out: { type: 'string' },
    server: { type: 'string' },
  });
  const query: Record<string, string> = {};
  const names = { format: 'format', type: 'type', event: 'event', 'user-id': 'userId', 'anonymous-id': 'anonymousId', source: 'source', marker: 'marker', since: 'since', until: 'until', limit: 'limit' } as const;
  for (const [flag, param] of Object.entries(names)) {
    const value = values[flag as keyof typeof names];
    if (value !== undefined) query[param] = value;
  }
  if (query.format !== undefined && !['ndjson', 'csv', 'har'].includes(query.format)) throw new Error(`--format must be ndjson, csv or har, not "${query.format}"`);
  if (query.marker === undefined && env.HOOKBENCH_MARKER) query.marker = env.HOOKBENCH_MARKER;
  if (values.delivered) query.delivered = 'true';
  violationsFlag(values, query);
  const args: ExportArgs = { query };
  if (values.out !== undefined) args.out = values.out;
  if (values.server !== undefined) args.server = values.server;
  return args;
}

export interface ImportArgs {
  file: string;
  writeKey: string;
  server?: string;
}

export function parseImportArgs(argv: string[]): ImportArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { 'write-key': { type: 'string' }, server: { type: 'string' } }, strict: true, allowPositionals: true });
  } catch (err) {
    throw refusal(err, argv);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new Error(`hookbench import takes one NDJSON (or .har) file\n${USAGE}`);
  if (!values['write-key']) throw new Error(`--write-key needs a value: the write key of the source to import into\n${USAGE}`);
  const args: ImportArgs = { file: positionals[0] as string, writeKey: values['write-key'] };
  if (values.server !== undefined) args.server = values.server;
  return args;
}
