// electron-builder's beforePack hook: the app must ship better-sqlite3 built for Electron's ABI and
// for the architecture being packaged. Built here when missing or stale; a native addon cannot be
// cross-compiled for another OS, so that case stops with the reason instead of shipping a broken app.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import builderUtil from 'builder-util';
import { BINDING, STAMP, targetOf } from './rebuild-electron-sqlite.mjs';

export default async function beforePack(context) {
  const platform = context.electronPlatformName;
  const arch = builderUtil.Arch[context.arch];
  if (platform !== process.platform) {
    throw new Error(`Hookbench for ${platform} must be packaged on ${platform}: better-sqlite3 is compiled for it natively (this is ${process.platform}).`);
  }
  const wanted = targetOf(context.packager.info.framework.version, arch);
  if (existsSync(BINDING) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === wanted) return;
  const script = fileURLToPath(new URL('./rebuild-electron-sqlite.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script, `--arch=${arch}`], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('better-sqlite3 could not be built for Electron; see the lines above.');
}
