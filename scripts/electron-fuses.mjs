// The Electron fuses every packaged Hookbench binary carries, as Electron's security guide
// recommends: no running the binary as plain Node, no NODE_OPTIONS or --inspect, the app only from
// its app.asar and only when the asar's hash matches, and cookies encrypted on disk. Flipped by the
// afterPack hook (before any signing, so a signature covers them); read back by CI.
import { join } from 'node:path';

export const FUSES = Object.freeze({
  RunAsNode: false,
  EnableNodeOptionsEnvironmentVariable: false,
  EnableNodeCliInspectArguments: false,
  EnableEmbeddedAsarIntegrityValidation: true,
  OnlyLoadAppFromAsar: true,
  EnableCookieEncryption: true,
});

async function fusesLibrary() {
  try {
    return await import('@electron/fuses');
  } catch {
    throw new Error(
      'Packaging needs @electron/fuses to set the Electron fuses (npm install --save-dev @electron/fuses); an installer without them is not shipped.',
    );
  }
}

/** The file of a packaged app that holds the fuse wire (for macOS, the .app: the library finds the framework). */
export function packagedBinary({ appOutDir, electronPlatformName, packager }) {
  const name = packager.appInfo.productFilename;
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas') return join(appOutDir, `${name}.app`);
  if (electronPlatformName === 'win32') return join(appOutDir, `${name}.exe`);
  return join(appOutDir, packager.executableName);
}

export async function flipHookbenchFuses(binary, { resetAdHocDarwinSignature = false } = {}) {
  const { flipFuses, FuseV1Options, FuseVersion } = await fusesLibrary();
  const config = { version: FuseVersion.V1, resetAdHocDarwinSignature };
  for (const [name, on] of Object.entries(FUSES)) config[FuseV1Options[name]] = on;
  await flipFuses(binary, config);
}

/** The fuses a binary carries that differ from FUSES, as `Name: expected on, found off` lines (none when all match). */
export async function fuseMismatches(binary) {
  const { getCurrentFuseWire, FuseV1Options } = await fusesLibrary();
  // 1.x keeps the state enum out of its index module.
  const { FuseState } = await import('@electron/fuses/dist/constants.js');
  const wire = await getCurrentFuseWire(binary);
  const label = (state) => (state === FuseState.ENABLE ? 'on' : state === FuseState.DISABLE ? 'off' : `state ${state}`);
  return Object.entries(FUSES)
    .filter(([name, on]) => wire[FuseV1Options[name]] !== (on ? FuseState.ENABLE : FuseState.DISABLE))
    .map(([name, on]) => `${name}: expected ${on ? 'on' : 'off'}, found ${label(wire[FuseV1Options[name]])}`);
}
