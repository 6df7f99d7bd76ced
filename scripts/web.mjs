// `npm run web`: builds the UI (electron-vite: out/renderer) and the browser-mode server
// (esbuild: dist/web.js), then serves Loom on 127.0.0.1 and prints the URL to open.
// Arguments go to the server: --port N, --data-dir DIR, --project DIR, --base-url URL,
// --model NAME. `--no-build` serves what was built last; `--build-only` builds and stops.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleNode } from './build-node.mjs';
import { refuseOldNode } from './node-floor.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Builds the renderer and the server bundle; quiet unless something fails. */
export async function buildWeb() {
  const { build } = await import('electron-vite');
  await build({ root, logLevel: 'warn', configFile: path.join(root, 'electron.vite.config.ts') });
  await bundleNode(['web']);
}

async function main() {
  refuseOldNode();
  const args = process.argv.slice(2);
  const skipBuild = args.includes('--no-build');
  if (!skipBuild) {
    console.log('Building Loom…');
    await buildWeb();
  }
  if (args.includes('--build-only')) return;
  process.argv = [process.argv[0], path.join(root, 'dist/web.js'), ...args.filter((a) => a !== '--no-build'), '--static', path.join(root, 'out/renderer')];
  await import(pathToFileURL(path.join(root, 'dist/web.js')).href);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(`loom: ${err?.message ?? err}`);
    process.exit(1);
  });
}
