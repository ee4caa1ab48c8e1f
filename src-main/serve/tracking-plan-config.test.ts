import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runServeToExit } from './testing/process';

test('serve refuses a tracking plan it cannot use, naming the file and the field', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookbench-plan-config-'));
  try {
    writeFileSync(join(dir, 'hookbench.json'), JSON.stringify({ sources: [], destinations: [], trackingPlan: 'plans/plan.json' }));
    const missing = await runServeToExit(['--config', join(dir, 'hookbench.json'), '--data-dir', join(dir, 'data'), '--port', '0']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, new RegExp(`cannot read tracking plan ${join(dir, 'plans', 'plan.json')}`));

    writeFileSync(join(dir, 'plan.json'), JSON.stringify({ events: { 'Order Completed': { type: 'nonsense' } }, violatingEvent: 'hold' }));
    writeFileSync(join(dir, 'hookbench.json'), JSON.stringify({ sources: [], destinations: [], trackingPlan: 'plan.json' }));
    const unknownField = await runServeToExit(['--config', join(dir, 'hookbench.json'), '--data-dir', join(dir, 'data'), '--port', '0']);
    assert.equal(unknownField.code, 2);
    assert.match(unknownField.stderr, /tracking plan .*plan\.json has problems:\n {2}violatingEvent: is not a tracking plan field/);

    writeFileSync(join(dir, 'plan.json'), JSON.stringify({ events: { 'Order Completed': { type: 'nonsense' } } }));
    const badSchema = await runServeToExit(['--config', join(dir, 'hookbench.json'), '--data-dir', join(dir, 'data'), '--port', '0']);
    assert.equal(badSchema.code, 2);
    assert.match(badSchema.stderr, /tracking plan .*plan\.json has problems:\n {2}events\["Order Completed"\]: is not a JSON Schema ajv can use/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
