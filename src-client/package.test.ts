import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../src-main/engine/testing/harness';
import { systemClock } from '../src-main/engine/clock';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const README_ENDPOINT = 'http://127.0.0.1:4545';
const README_IMPORT = "import { Analytics } from 'hookbench-client';";

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (bounded) without blocking this process, whose ingest it may call. */
function run(command: string, args: string[], cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, encoding: 'utf8', timeout: 90_000, shell: process.platform === 'win32' && command === 'npm' }, (err, stdout, stderr) => {
      const status = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ status, stdout, stderr: `${stderr}${err && status === null ? String(err) : ''}` });
    });
  });
}

async function ok(pending: Promise<Run>, what: string): Promise<string> {
  const r = await pending;
  assert.equal(r.status, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** The first ```js block of the README's client section: the example this test runs. */
function readmeExample(): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The client library'));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(match?.[1], 'README has a ```js example under "The client library"');
  const code = match[1];
  assert.ok(code.startsWith(`${README_IMPORT}\n`), 'the example imports the package by its name');
  assert.equal(code.split(README_ENDPOINT).length, 2, `the example names ${README_ENDPOINT} once`);
  return code;
}

function orders(h: Harness): number {
  return (h.inspect.get("SELECT COUNT(*) AS n FROM messages WHERE type = 'track' AND json LIKE '%Order Completed%'") as { n: number }).n;
}

test('the client package: packed, installed offline into an empty project, used from .mjs, .cjs and TypeScript', async () => {
  const packed = await ok(run('npm', ['run', '-s', 'pack:client'], repoRoot), 'npm run pack:client');
  const tarball = packed.trim().split('\n').at(-1) ?? '';
  assert.match(tarball, /hookbench-client-\d+\.\d+\.\d+\.tgz$/, 'the last line is the tarball path');

  const project = mkdtempSync(join(tmpdir(), 'hookbench-client-consumer-'));
  const h = await startHarness({ sources: [{ name: 'backend', writeKey: 'wk_backend' }], destinations: [] }, { clock: systemClock });
  try {
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await ok(run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], project), 'npm install <tarball>');
    const installed = JSON.parse(readFileSync(join(project, 'node_modules', 'hookbench-client', 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(installed.dependencies, undefined, 'no runtime dependencies');

    // The README's example, pointed at this test's ingest instead of the default port.
    const example = readmeExample().replace(README_ENDPOINT, h.server.url);

    writeFileSync(join(project, 'example.mjs'), example);
    await ok(run(process.execPath, ['example.mjs'], project), 'node example.mjs');
    assert.equal(orders(h), 1, 'the .mjs example delivered its track');

    const body = example.slice(README_IMPORT.length);
    writeFileSync(join(project, 'example.cjs'), `const { Analytics } = require('hookbench-client');\n(async () => {${body}})();\n`);
    await ok(run(process.execPath, ['example.cjs'], project), 'node example.cjs');
    assert.equal(orders(h), 2, 'the .cjs example delivered its track');

    // The types reach a consumer: the example compiles under strict settings, and a call without its
    // required field is a type error (@ts-expect-error fails the build if the types were `any`).
    const typesOnly = `
export function typesOnly(a: Analytics): void {
  // @ts-expect-error: track() needs event
  a.track({ userId: 'u1' });
}
`;
    writeFileSync(join(project, 'example.ts'), example + typesOnly);
    writeFileSync(
      join(project, 'required.cts'),
      `import client = require('hookbench-client');
export const max: number = client.MAX_BATCH_BYTES;
export function typesOnly(a: InstanceType<typeof client.Analytics>): void {
  // @ts-expect-error: identify() needs userId or anonymousId
  a.identify({ traits: {} });
}
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2022', 'DOM'], types: [], strict: true, skipLibCheck: false },
        files: ['example.ts', 'required.cts'],
      }),
    );
    await ok(run(process.execPath, [tsc, '-p', 'tsconfig.json'], project), 'tsc');
    await ok(run(process.execPath, ['example.js'], project), 'node example.js (compiled from example.ts)');
    assert.equal(orders(h), 3, 'the TypeScript example delivered its track');

    const agents = h.inspect.all('SELECT DISTINCT user_agent FROM requests') as { user_agent: string }[];
    assert.deepEqual(agents.map((a) => a.user_agent), ['hookbench-client/0.1.0']);
  } finally {
    await h.close();
    rmSync(project, { recursive: true, force: true });
  }
});

test('inside the repository, hookbench/client resolves to the same build for import and require', async () => {
  const esm = await ok(run(process.execPath, ['-e', "import('hookbench/client').then((m) => console.log(typeof m.Analytics, m.MAX_BATCH_BYTES))"], repoRoot), 'import');
  assert.equal(esm.trim(), 'function 512000');
  const cjs = await ok(run(process.execPath, ['-e', "const m = require('hookbench/client'); console.log(typeof m.Analytics, m.MAX_BATCH_BYTES)"], repoRoot), 'require');
  assert.equal(cjs.trim(), 'function 512000');
});
