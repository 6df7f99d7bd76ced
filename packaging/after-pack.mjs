// electron-builder's afterPack hook: flips the fuses (packaging/fuses.mjs) in the packed
// Electron binary, before electron-builder signs it.
import path from 'node:path';
import { flipFuses } from '@electron/fuses';
import { Arch } from 'electron-builder';
import { LOOM_FUSES } from './fuses.mjs';

/** The packed Electron executable (or .app bundle) inside `appOutDir`. */
export function packedBinary({ appOutDir, electronPlatformName, packager }) {
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(appOutDir, `${packager.appInfo.productFilename}.app`);
    case 'win32':
      return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`);
    default:
      return path.join(appOutDir, packager.executableName);
  }
}

export default async function afterPack(context) {
  const darwin = context.electronPlatformName === 'darwin' || context.electronPlatformName === 'mas';
  await flipFuses(packedBinary(context), {
    ...LOOM_FUSES,
    // Flipping a fuse breaks an arm64 binary's ad hoc signature, which macOS requires.
    resetAdHocDarwinSignature: darwin && (context.arch === Arch.arm64 || context.arch === Arch.universal),
  });
}
