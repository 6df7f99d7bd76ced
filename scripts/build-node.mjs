// Bundles a Node entry point into dist/<name>.js: `cli` (the `loom` command, the default,
// built on `npm install` by prepare so `npx loom` works at once) or `bench`.
// Files are written to a temporary name and renamed, so a `loom` process starting while a
// build runs (tests build in parallel) never loads a half-written bundle.
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const entries = { cli: 'src/cli/main.ts', bench: 'bench/index.ts' };
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['cli'];

const result = await build({
  entryPoints: Object.fromEntries(names.map((name) => [name, entries[name]])),
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
  write: false,
});

for (const file of result.outputFiles) {
  mkdirSync(path.dirname(file.path), { recursive: true });
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
