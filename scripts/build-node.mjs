// Bundles Node entry points into dist/<name>.js: `cli` (the `loom` command, the default,
// built on `npm install` by prepare so `npx loom` works at once), `web` (the browser-mode
// server, used by scripts/web.mjs) and `bench`.
// Code splitting: what only some commands need (the agent, the model client, the MCP SDK,
// the HTML tooling, tree-sitter) lands in dist/chunks/<entries>/, loaded by the dynamic
// import() at the command that needs it, so `loom --list-sessions` parses a small entry file
// only (docs/ARCHITECTURE.md#the-node-build).
// Files are written to a temporary name and renamed, chunks (named by content hash) before
// the entries that import them, so a `loom` process starting while a build runs (tests
// build in parallel) never loads a half-written bundle. Each set of entries built together
// has a chunk folder of its own, so building one bundle never touches another's chunks, and
// a build deletes the chunks that neither it nor the build before it wrote: they do not pile
// up, and a process started from the previous build can still load what it has not loaded yet.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
    chunkNames: `${chunkFolder(names)}/[name]-[hash]`,
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
  const chunks = result.outputFiles.filter((file) => !isEntry(file));
  for (const file of [...chunks, ...result.outputFiles.filter(isEntry)]) writeAtomically(file.path, file.contents);
  removeOldChunks(
    path.join(root, 'dist', chunkFolder(names)),
    chunks.map((file) => path.basename(file.path)),
  );
}

/** dist/chunks/cli, dist/chunks/bench+cli+web: one folder per set of entries built together. */
function chunkFolder(names) {
  return `chunks/${[...new Set(names)].sort().join('+')}`;
}

function writeAtomically(file, contents) {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
}

/** Keeps this build's chunks and the previous build's (listed in the folder's .built file); deletes the rest. */
function removeOldChunks(folder, current) {
  const list = path.join(folder, '.built');
  const previous = existsSync(list) ? readFileSync(list, 'utf8').split('\n').filter(Boolean) : [];
  writeAtomically(list, `${current.join('\n')}\n`);
  const keep = new Set([...current, ...previous, '.built']);
  for (const name of readdirSync(folder)) {
    if (!keep.has(name) && !name.endsWith('.tmp')) rmSync(path.join(folder, name), { force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  await bundleNode(names.length ? names : ['cli']);
}
