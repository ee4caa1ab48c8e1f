/**
 * What each table and index of a log costs per message (a measurement, not one of the `npm run
 * bench` ratios):
 *
 *   node --import tsx bench/tables.measure.ts <hookbench.sqlite> [--vacuum-into <new file>]
 *
 * Opens the file read-only as it is (no migration) and prints dbstat's pages and used bytes per
 * message for every table and index. With --vacuum-into, first writes a compacted copy (VACUUM
 * INTO: every b-tree rebuilt, no free space) and measures that instead: what the same rows cost
 * in a log written from the start in that shape.
 */
import Database from 'better-sqlite3';
import { costPerMessage, formatCosts } from './support/dbstat';

const [path, flag, target] = process.argv.slice(2);
if (path === undefined || (flag !== undefined && (flag !== '--vacuum-into' || target === undefined))) {
  console.error('usage: node --import tsx bench/tables.measure.ts <hookbench.sqlite> [--vacuum-into <new file>]');
  process.exit(2);
}
let file = path;
if (flag === '--vacuum-into' && target !== undefined) {
  const t = performance.now();
  const src = new Database(path, { readonly: true });
  src.prepare('VACUUM INTO ?').run(target);
  src.close();
  console.log(`VACUUM INTO ${target} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  file = target;
}
const t = performance.now();
const db = new Database(file, { readonly: true });
console.log(formatCosts(costPerMessage(db)));
console.log(`(dbstat read in ${((performance.now() - t) / 1000).toFixed(1)} s)`);
db.close();
