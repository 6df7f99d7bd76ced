// Bundles a Node entry point into dist/<name>.js: `cli` (the `loom` command, the default,
// built on `npm install` by prepare so `npx loom` works at once) or `bench`.
import { build } from 'esbuild';

const entries = { cli: 'src/cli/main.ts', bench: 'bench/index.ts' };
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['cli'];

await build({
  entryPoints: Object.fromEntries(names.map((name) => [name, entries[name]])),
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});
