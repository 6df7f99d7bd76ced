// `npm run dist`: builds Loom and packages the installers of this platform into release/
// (electron-builder.json: AppImage + .deb on Linux, .dmg + .zip for x64 and arm64 on macOS,
// NSIS on Windows). The Electron build of better-sqlite3 is fetched for every target
// architecture into .electron-native/<platform>-<arch>/, where the config picks it up, so
// the packaged app never fetches anything on first start. Needs the network (Electron's
// zips, electron-builder's tools): it runs on CI runners, not on Loom's development machines.
//   npm run dist [-- electron-builder options]
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fetchNativeSqlite, root } from './electron-setup.mjs';
import { buildWeb } from './web.mjs';

/** The architectures electron-builder.json packages for each platform. */
const ARCHES = { darwin: ['x64', 'arm64'], linux: ['x64'], win32: ['x64'] };

async function main() {
  const arches = ARCHES[process.platform];
  if (!arches) throw new Error(`no installer is configured for ${process.platform}`);
  console.log('Building Loom…');
  await buildWeb();
  for (const arch of arches) {
    console.log(`Fetching the Electron build of better-sqlite3 for ${process.platform}-${arch}…`);
    const problem = fetchNativeSqlite(process.platform, arch, path.join(root, '.electron-native', `${process.platform}-${arch}`, 'better_sqlite3.node'));
    if (problem) throw new Error(`the Electron build of better-sqlite3 for ${arch} could not be fetched (${problem})`);
  }
  const builder = path.join(root, 'node_modules/electron-builder/cli.js');
  const result = spawnSync(process.execPath, [builder, '--publish', 'never', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}

main().catch((err) => {
  console.error(`loom: ${err?.message ?? err}`);
  process.exit(1);
});
