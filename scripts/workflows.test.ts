import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const workflowsDir = join(root, '.github', 'workflows');
const require = createRequire(import.meta.url);
const validator = join(dirname(require.resolve('@action-validator/cli/package.json')), 'cli.mjs');

function validate(file: string): Promise<{ status: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [validator, file], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

const workflows = readdirSync(workflowsDir).filter((f) => /\.ya?ml$/.test(f));

test('there is a release workflow', () => {
  assert.ok(workflows.includes('release.yml'), `workflows: ${workflows.join(', ')}`);
});

for (const file of workflows) {
  test(`workflow ${file} passes action-validator`, async () => {
    const { status, output } = await validate(join(workflowsDir, file));
    assert.equal(status, 0, output);
  });
}

test('action-validator refuses a broken workflow (so a pass above means something)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-workflow-'));
  try {
    const broken = readFileSync(join(workflowsDir, 'release.yml'), 'utf8').replace('runs-on: ${{ matrix.os }}', 'runs-onn: ${{ matrix.os }}');
    writeFileSync(join(dir, 'release.yml'), broken);
    const { status, output } = await validate(join(dir, 'release.yml'));
    assert.equal(status, 1);
    assert.match(output, /runs-onn/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
