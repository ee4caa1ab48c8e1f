import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const root = new URL('../../../', import.meta.url).pathname;

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartServeOptions {
  /** Added to this process's environment (e.g. HOOKBENCH_TOKEN). */
  env?: Record<string, string>;
}

/** Starts `hookbench serve` as a real child process and resolves with the URL it prints. */
export function startServe(args: string[], options: StartServeOptions = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['bin/hookbench.mjs', 'serve', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      const m = /^Hookbench listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve({ child, url: m[1] as string, stderr: () => stderr, exited });
      else reject(new Error(`unexpected first line: ${line}`));
    });
    void exited.then(({ code }) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)));
  });
}

/** Runs `hookbench serve` expecting it to stop before listening: its exit code, stderr and how long it ran. */
export function runServeToExit(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stderr: string; stdout: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['bin/hookbench.mjs', 'serve', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout, ms: Date.now() - started });
    }),
  );
}
