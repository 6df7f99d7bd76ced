// Bundles Node entry points into dist/<name>.js: `cli` (the `loom` command, the default,
// built on `npm install` by prepare so `npx loom` works at once), `web` (the browser-mode
// server, used by scripts/web.mjs) and `bench`.
// The `loom` command is dist/cli.js plus ONE file per group of commands (CLI_GROUPS), each
// loaded whole by the dynamic import() at the command that needs it: every file costs Node's
// module loader a round trip, so `loom --list-sessions` loads two files, where code
// splitting's many small shared chunks made it load twenty (docs/ARCHITECTURE.md#the-node-build).
// Code the groups share is copied into each. `web` and `bench` keep esbuild's code splitting.
// Files are written to a temporary name and renamed, group files and chunks (named by
// content hash) before the files that import them, so a `loom` process starting while a
// build runs (tests build in parallel) never loads a half-written bundle. Each set of entries
// built together has a folder of its own under dist/chunks/, so building one bundle never
// touches another's files, and a build deletes the files that neither it nor the build
// before it wrote: they do not pile up, and a process started from the previous build can
// still load what it has not loaded yet.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = { cli: 'src/cli/bin.ts', web: 'src/server/web-main.ts', bench: 'bench/index.ts' };

/**
 * The lazily loaded groups of the `loom` command, leaves first: a group's file is named by
 * its content hash, which must be known before a group that imports it is built.
 */
const CLI_GROUPS = {
  html: 'src/core/store/export-html.ts', // --export --format html: marked and highlight.js
  mcp: 'src/core/mcp/mcp-servers.ts', // a chat or an import with MCP servers configured
  engine: 'src/core/engine.ts', // --import, --import-from
  importers: 'src/core/import/run.ts', // --import-from
  chat: 'src/cli/chat.ts',
  hub: 'src/cli/hub.ts',
  sync: 'src/cli/sync.ts',
  commands: 'src/cli/commands.ts', // the other lifecycle commands and --doctor
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // npm packages are bundled (a faster start for every `loom` call), better-sqlite3's
  // JavaScript too: only its native module is loaded from node_modules, by its path
  // (src/core/store/sqlite.ts). CommonJS ones get a `require` for Node built-ins.
  external: ['electron', 'electron-vite', '@playwright/test', 'playwright-core'],
  // Made on first use: createRequire costs up to a millisecond, and most files never call it.
  banner: {
    js: "import { createRequire as __loomCreateRequire } from 'node:module'; let __loomRequire; function require(id) { __loomRequire ??= __loomCreateRequire(import.meta.url); return __loomRequire(id); }",
  },
  sourcemap: true,
  logLevel: 'warning',
  write: false,
};

export async function bundleNode(names) {
  const unknown = names.filter((name) => !(name in entries));
  if (unknown.length) throw new Error(`unknown bundle ${unknown.join(', ')} (known: ${Object.keys(entries).join(', ')})`);
  const others = names.filter((name) => name !== 'cli');
  if (others.length) await bundleSplit(others);
  if (names.includes('cli')) await bundleCli();
}

async function bundleSplit(names) {
  const result = await build({
    ...common,
    entryPoints: Object.fromEntries(names.map((name) => [name, path.join(root, entries[name])])),
    outdir: path.join(root, 'dist'),
    splitting: true,
    chunkNames: `${chunkFolder(names)}/[name]-[hash]`,
  });
  const isEntry = (file) => path.dirname(file.path) === path.join(root, 'dist');
  const chunks = result.outputFiles.filter((file) => !isEntry(file));
  for (const file of [...chunks, ...result.outputFiles.filter(isEntry)]) writeAtomically(file.path, file.contents);
  removeOldChunks(
    path.join(root, 'dist', chunkFolder(names)),
    chunks.map((file) => path.basename(file.path)),
  );
}

/** dist/cli.js and one whole file per group in dist/chunks/cli/ (no code splitting). */
async function bundleCli() {
  const folder = path.join(root, 'dist', chunkFolder(['cli']));
  const built = new Map(); // a group's source file -> its built .js file
  const written = [];
  for (const [name, source] of Object.entries(CLI_GROUPS)) {
    const files = await bundleWhole(path.join(root, source), { outdir: folder, entryNames: `${name}-[hash]` }, built);
    files.forEach((file) => writeAtomically(file.path, file.contents));
    written.push(...files.map((file) => path.basename(file.path)));
    built.set(path.join(root, source), files.find((file) => file.path.endsWith('.js')).path);
  }
  const files = await bundleWhole(path.join(root, entries.cli), { outdir: path.join(root, 'dist'), entryNames: 'cli' }, built);
  files.forEach((file) => writeAtomically(file.path, file.contents));
  removeOldChunks(folder, written);
}

/** One self-contained file; a dynamic import() of a group already built loads that group's file instead. */
async function bundleWhole(entry, output, built) {
  const result = await build({ ...common, entryPoints: [entry], ...output, plugins: [groupFiles(output.outdir, built)] });
  return result.outputFiles;
}

function groupFiles(outdir, built) {
  return {
    name: 'loom-cli-groups',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const target = path.resolve(args.resolveDir, args.path);
        const file = built.get(`${target}.ts`) ?? built.get(target);
        return file ? { path: `./${path.relative(outdir, file).split(path.sep).join('/')}`, external: true } : undefined;
      });
    },
  };
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
