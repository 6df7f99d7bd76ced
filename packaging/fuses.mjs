// The Electron fuses of the packaged app (docs/SECURITY.md#the-packaged-app), flipped in
// the Electron binary by packaging/after-pack.mjs before electron-builder signs it.
import { FuseV1Options, FuseVersion } from '@electron/fuses';

export const LOOM_FUSES = {
  version: FuseVersion.V1,
  // Every fuse is set here on purpose: a fuse added by a future Electron fails the build
  // until someone decides its value.
  strictlyRequireAllFuses: true,
  // ELECTRON_RUN_AS_NODE would turn the signed app into a general Node.js interpreter.
  [FuseV1Options.RunAsNode]: false,
  [FuseV1Options.EnableCookieEncryption]: true,
  // NODE_OPTIONS (--require …) and --inspect would let any process that can start Loom run code in it.
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
  [FuseV1Options.EnableNodeCliInspectArguments]: false,
  // Only the app.asar electron-builder made, checked against its recorded hash, is loaded.
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
  [FuseV1Options.OnlyLoadAppFromAsar]: true,
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
  // The window is loaded from file://, and its module scripts need these privileges.
  [FuseV1Options.GrantFileProtocolExtraPrivileges]: true,
  [FuseV1Options.WasmTrapHandlers]: true,
};
