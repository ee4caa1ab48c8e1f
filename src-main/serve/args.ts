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
  --yes            clear it; without it, only say what would go`;

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
