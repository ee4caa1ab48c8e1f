// electron-builder's afterPack hook: sets the Electron fuses of the packaged binary (see
// electron-fuses.mjs). It runs before signing; an unsigned Apple Silicon build needs its ad-hoc
// signature renewed after the binary changed, or macOS refuses to start it.
import builderUtil from 'builder-util';
import { flipHookbenchFuses, fuseMismatches, packagedBinary } from './electron-fuses.mjs';

export default async function afterPack(context) {
  const binary = packagedBinary(context);
  const darwin = context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas';
  await flipHookbenchFuses(binary, { resetAdHocDarwinSignature: darwin && builderUtil.Arch[context.arch] === 'arm64' });
  const wrong = await fuseMismatches(binary);
  if (wrong.length > 0) throw new Error(`Electron fuses not set in ${binary}:\n${wrong.join('\n')}`);
}
