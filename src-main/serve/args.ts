/** `hookbench serve` flags. Pure, so that every refusal is testable and names the flag. */
export interface ServeArgs {
  config?: string;
  dataDir?: string;
  port: number;
  host: string;
}

export const USAGE = `usage: hookbench serve [--config FILE] [--data-dir DIR] [--port N] [--host H]
       hookbench clear [--data-dir DIR] [--yes]
serve:
  --config FILE    apply sources, destinations, delivery and retention settings from a JSON file at start
  --data-dir DIR   where the SQLite log lives (default: the user's data folder)
  --port N         port for the Tracking API and the UI (default 4545; 0 picks a free port)
  --host H         address to listen on (default 127.0.0.1)
clear (the folder must not be in use; a running Hookbench has Clear log in its Configure view):
  --data-dir DIR   the folder whose log to clear (default: the user's data folder)
  --yes            clear it; without it, only say what would go`;

export interface ClearArgs {
  dataDir?: string;
  yes: boolean;
}

export function parseClearArgs(argv: string[]): ClearArgs {
  const args: ClearArgs = { yes: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--yes' || arg === '-y') {
      args.yes = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    if (flag !== '--data-dir') throw new Error(`unknown option ${arg}\n${USAGE}`);
    const v = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (v === undefined || v === '') throw new Error(`--data-dir needs a value\n${USAGE}`);
    args.dataDir = v;
  }
  return args;
}

export function parseServeArgs(argv: string[]): ServeArgs {
  const args: ServeArgs = { port: 4545, host: '127.0.0.1' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const flag = eq === -1 ? arg : arg.slice(0, eq);
    const value = (): string => {
      const v = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (v === undefined || v === '') throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--config':
        args.config = value();
        break;
      case '--data-dir':
        args.dataDir = value();
        break;
      case '--host':
        args.host = value();
        break;
      case '--port': {
        const v = value();
        const port = Number(v);
        if (!/^\d+$/.test(v) || port > 65535) throw new Error(`--port must be a whole number from 0 to 65535, not "${v}"`);
        args.port = port;
        break;
      }
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  return args;
}
