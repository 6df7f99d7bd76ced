// Bundles Node entry points into dist/<name>.js: `cli` (the `loom` command, the default,
// built on `npm install` by prepare so `npx loom` works at once), `web` (the browser-mode
// server, used by scripts/web.mjs) and `bench`.
// Code splitting: what only some commands need (the agent, the model client, the MCP SDK,
// the HTML tooling, tree-sitter) lands in dist/chunks/, loaded by the dynamic import() at
// the command that needs it, so `loom --list-sessions` parses a small entry file only
// (docs/ARCHITECTURE.md#the-node-build).
// Files are written to a temporary name and renamed, chunks (named by content hash) before
// the entries that import them, so a `loom` process starting while a build runs (tests
// build in parallel) never loads a half-written bundle.
import { build } from 'esbuild';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = { cli: 'src/cli/bin.ts', web: 'src/server/web-main.ts', bench: 'bench/index.ts' };

export async function bundleNode(names) {
  const unknown = names.filter((name) => !(name in entries));
  if (unknown.length) throw new Error(`unknown bundle ${unknown.join(', ')} (known: ${Object.keys(entries).join(', ')})`);
  const result = await build({
    entryPoints: Object.fromEntries(names.map((name) => [name, path.join(root, entries[name])])),
    outdir: path.join(root, 'dist'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    target: 'node20',
    // npm packages are bundled (a faster start for every `loom` call), better-sqlite3's
    // JavaScript too: only its native module is loaded from node_modules, by its path
    // (src/core/store/sqlite.ts). CommonJS ones get a `require` for Node built-ins.
    external: ['electron', 'electron-vite', '@playwright/test', 'playwright-core'],
    // Made on first use: createRequire costs up to a millisecond, and most chunks never call it.
    banner: {
      js: "import { createRequire as __loomCreateRequire } from 'node:module'; let __loomRequire; function require(id) { __loomRequire ??= __loomCreateRequire(import.meta.url); return __loomRequire(id); }",
    },
    sourcemap: true,
    logLevel: 'warning',
    write: false,
  });
  const isEntry = (file) => path.dirname(file.path) === path.join(root, 'dist');
  const chunksFirst = [...result.outputFiles.filter((file) => !isEntry(file)), ...result.outputFiles.filter(isEntry)];
  for (const file of chunksFirst) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, file.path);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  await bundleNode(names.length ? names : ['cli']);
}
