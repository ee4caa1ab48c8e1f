import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DataDirLockedError } from '../engine/store/data-lock';
import { classifyStorageError, StorageFaultError } from '../engine/store/storage-fault';
import { faultContext } from '../engine/health';
import { createEngine } from '../engine';
import { parseConfig, trackingPlanFileOf } from '../engine/config';
import { readTrackingPlanFile } from '../engine/tracking-plan/file';
import { ValidationError } from '../../src-shared/settings';
import { parseServeArgs, USAGE } from './args';
import { defaultDataDir } from './data-dir';
import { listen } from './server';
import { clearCommand } from './clear';
import { expectCommand, exportCommand, importCommand, resetCommand } from './expect';
import { tokenFromEnv } from './auth';
import { launchToken } from './launch-token';
import { fillReceiverBases, PROVISIONAL_BASES, usesReceiverBases, type ReceiverBases } from './receiver-bases';

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ');
}
/**
 * A stop ends within two seconds whatever is open: requests in flight get half a second, delivery
 * rounds in flight (possibly waiting on a 5 s webhook timeout) up to a second more, after which they
 * are resumed as interrupted at the next start.
 */
const CLOSE_GRACE_MS = 500;
const ROUNDS_WAIT_MS = 1_000;
const STOP_DEADLINE_MS = 1_900;

function fail(message: string): never {
  process.stderr.write(`hookbench: ${message}\n`);
  process.exit(2);
}

interface LoadedConfig {
  config: ReturnType<typeof parseConfig>;
  /** The tracking plan file's path, for messages. */
  planFile?: string;
  /** The file's JSON, when its webhook URLs name the receivers' addresses, filled in once listening. */
  needsBases?: unknown;
}

/** The config, with the tracking plan it names read in. */
function loadConfig(path: string): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    fail(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    fail(`config file ${path} is not valid JSON: ${(err as Error).message}`);
  }
  // Checked whole now, with stand-in addresses, so a mistake is said before anything starts.
  const config = parseConfigFile(path, fillReceiverBases(json, PROVISIONAL_BASES));
  const needsBases = usesReceiverBases(json) ? json : undefined;
  // The plan's path is relative to the config file, as an editor following it would read it.
  const named = trackingPlanFileOf(json);
  if (named === undefined) return { config, needsBases };
  const planFile = resolve(dirname(path), named);
  try {
    config.trackingPlan = readTrackingPlanFile(planFile);
  } catch (err) {
    fail((err as Error).message);
  }
  return { config, planFile, needsBases };
}

function parseConfigFile(path: string, json: unknown): ReturnType<typeof parseConfig> {
  try {
    return parseConfig(json);
  } catch (err) {
    if (err instanceof ValidationError) {
      fail(`config file ${path} has problems:\n${err.errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`);
    }
    throw err;
  }
}

/** The loaded config with the receivers' real addresses in its webhook URLs; throws when one is missing. */
function withBases(loaded: LoadedConfig, path: string, bases: ReceiverBases): ReturnType<typeof parseConfig> {
  if (loaded.needsBases === undefined) return loaded.config;
  const config = parseConfigFile(path, fillReceiverBases(loaded.needsBases, bases));
  if (loaded.config.trackingPlan !== undefined) config.trackingPlan = loaded.config.trackingPlan;
  return config;
}

export async function serve(argv: string[]): Promise<void> {
  let args;
  try {
    args = parseServeArgs(argv);
  } catch (err) {
    fail((err as Error).message);
  }
  const loaded = args.config ? loadConfig(args.config) : undefined;
  const config = loaded?.config;
  let envToken: string | undefined;
  try {
    envToken = tokenFromEnv(process.env.HOOKBENCH_TOKEN);
  } catch (err) {
    fail((err as Error).message);
  }
  const dataDir = args.dataDir ?? defaultDataDir();
  let engine;
  try {
    engine = createEngine({ dataDir, readWorkerAtStart: true, warmUpAtStart: true });
  } catch (err) {
    if (err instanceof DataDirLockedError || err instanceof StorageFaultError) fail(err.message);
    // A damaged page can also surface while the engine reads its tables at start.
    const fault = classifyStorageError(err, faultContext(join(dataDir, 'hookbench.sqlite'), Date.now()));
    fail(fault ? `${fault.message}; ${fault.advice}` : `cannot open the data folder ${dataDir}: ${oneLine(err)}`);
  }
  // A log that cannot take a write now (disk full, a lock held by another program) is said at
  // once, rather than as 503s to the first SDK that calls.
  const fault = engine.checkStorage();
  if (fault) {
    await engine.stop();
    fail(`${fault.message}; ${fault.advice}`);
  }
  const apply = async (c: ReturnType<typeof parseConfig>, before?: () => Promise<void>): Promise<void> => {
    try {
      engine.applyConfig(c);
    } catch (err) {
      await before?.();
      if (err instanceof ValidationError) {
        await engine.stop();
        fail(`tracking plan ${loaded?.planFile ?? ''} has problems:\n${err.errors.map((e) => `  ${e.field}: ${e.message}`).join('\n')}`);
      }
      const applyFault = engine.health.fault(err);
      await engine.stop();
      fail(applyFault ? `${applyFault.message}; ${applyFault.advice}` : `cannot apply config file ${args.config ?? ''}: ${oneLine(err)}`);
    }
  };
  // A config that names the receivers' addresses is applied once they are known (after listening).
  if (config && loaded?.needsBases === undefined) await apply(config);
  // After the engine holds the folder's lock, so two starts never race on the token file.
  let token: string;
  try {
    token = launchToken(dataDir, envToken, args.newToken).token;
  } catch (err) {
    await engine.stop();
    fail(`cannot keep the launch token in ${dataDir}: ${oneLine(err)}`);
  }
  const recovered = engine.start();
  if (recovered.deliveries > 0) {
    process.stderr.write(`hookbench: resumed ${recovered.deliveries} deliveries interrupted by the last stop\n`);
  }
  let running;
  try {
    // HOOKBENCH_UI_DIR serves another build of the renderer (tests and development build into temp dirs).
    running = await listen(engine, args.host, args.port, {
      token,
      uiDir: process.env.HOOKBENCH_UI_DIR || undefined,
      receiversTlsPort: args.receiversTlsPort,
    });
  } catch (err) {
    await engine.stop();
    const where = (err as { port?: unknown }).port === args.receiversTlsPort && args.receiversTlsPort !== 0 ? ` (--receivers-tls-port)` : '';
    fail(`cannot listen on ${args.host}:${(err as { port?: unknown }).port ?? args.port}${where}: ${(err as Error).message}`);
  }
  const server = running;
  if (loaded?.needsBases !== undefined) {
    let c;
    try {
      c = withBases(loaded, args.config ?? '', { http: running.url, https: running.receiversTlsUrl });
    } catch (err) {
      await server.close({ graceMs: 0 });
      await engine.stop();
      fail(`config file ${args.config ?? ''}: ${(err as Error).message}`);
    }
    await apply(c, () => server.close({ graceMs: 0 }));
  }
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`hookbench: ${signal}, stopping\n`);
    // Every step below is bounded; this is the backstop should one still hang (every acknowledged
    // message is committed already, so leaving here loses nothing).
    setTimeout(() => {
      process.stderr.write('hookbench: stop took too long; exiting now\n');
      process.exit(0);
    }, STOP_DEADLINE_MS).unref();
    // Stop taking requests first; every acknowledged message is already committed.
    void server
      .close({ graceMs: CLOSE_GRACE_MS })
      .then(() => engine.stop({ roundsWaitMs: ROUNDS_WAIT_MS }))
      .then(() => process.exit(0));
  };
  // Before the ready line: whoever reads it may signal at once, and must get a clean stop.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.stdout.write(`Hookbench listening on ${running.url}\n`);
  // stderr, not stdout: the ready line's format is a contract, and the token must not sit in CI logs that parse it.
  process.stderr.write(`hookbench: open ${running.url}/?token=${running.token} in a browser\n`);
  process.stderr.write(`hookbench: data in ${dataDir}\n`);
  process.stderr.write(
    `hookbench: test receivers at ${running.url}/receivers/{name} and ${running.receiversTlsUrl ?? '(no HTTPS)'}/receivers/{name} (self-signed certificate)\n`,
  );
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command === 'clear') {
    process.exitCode = await clearCommand(rest, { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
    return;
  }
  const commands = { expect: expectCommand, reset: resetCommand, import: importCommand } as const;
  const io = { out: (t: string) => process.stdout.write(t), err: (t: string) => process.stderr.write(t), env: process.env };
  if (command === 'expect' || command === 'reset' || command === 'import') {
    process.exitCode = await commands[command](rest, io);
    return;
  }
  if (command === 'export') {
    process.exitCode = await exportCommand(rest, { ...io, stdout: process.stdout });
    return;
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  fail(`unknown command "${command ?? ''}"\n${USAGE}`);
}
