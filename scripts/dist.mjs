// `npm run dist`: builds Loom and packages the installers of this platform into release/
// (electron-builder.json: AppImage + .deb on Linux, .dmg + .zip for x64 and arm64 on macOS,
// NSIS on Windows). better-sqlite3's npm package carries the Node-API build of every target,
// which the packaged app loads unpacked from the ASAR (electron-builder.json keeps only the
// target's). Needs the network (Electron's zips, electron-builder's tools): it runs on CI
// runners, not on Loom's development machines.
//   npm run dist [-- electron-builder options]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from './electron-setup.mjs';
import { buildWeb } from './web.mjs';

/** The platforms electron-builder.json has installers for. */
const PLATFORMS = ['darwin', 'linux', 'win32'];

async function main() {
  if (!PLATFORMS.includes(process.platform)) throw new Error(`no installer is configured for ${process.platform}`);
  console.log('Building Loom…');
  await buildWeb();
  const builder = path.join(root, 'node_modules/electron-builder/cli.js');
  const result = spawnSync(process.execPath, [builder, '--publish', 'never', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

main().catch((err) => {
  console.error(`loom: ${err?.message ?? err}`);
  process.exit(1);
});
