// Fails when a layer reaches where it must not (docs/DESIGN.md#layering), or a module
// outside the store's repositories writes a session table. Run by `npm test`.
//   shared   -> zod only (and itself)
//   core     -> shared; no electron, no React; inside it, CORE_ORDER below
//   backend  -> core, shared; no electron, no React (the transport-neutral backend)
//   server   -> backend, core, shared; no electron, no React (the HTTP adapter, browser mode)
//   cli      -> backend, core, shared; no electron, no React
//   main     -> backend, core, shared, cli (the packaged app runs the command line), electron; not the server, not the renderer
//   preload  -> shared, electron
//   renderer -> shared and browser packages; no Node built-ins, no core, no electron
// Usage: node scripts/check-layers.mjs [root]. The root defaults to this repository; the
// tests point it at small fixture trees.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const src = path.join(root, 'src');
const core = path.join(src, 'core');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isBuiltin = (spec) => spec.startsWith('node:') || builtins.has(spec.split('/')[0]);
const isReact = (spec) => spec === 'react' || spec.startsWith('react-dom') || spec.startsWith('react/');

const rules = {
  shared: { layers: ['shared'], pkg: (s) => s === 'zod' },
  core: { layers: ['shared', 'core'], pkg: (s) => s !== 'electron' && !isReact(s) },
  backend: { layers: ['shared', 'core', 'backend'], pkg: (s) => s !== 'electron' && !isReact(s) },
  server: { layers: ['shared', 'core', 'backend', 'server'], pkg: (s) => s !== 'electron' && !isReact(s) },
  cli: { layers: ['shared', 'core', 'backend', 'cli'], pkg: (s) => s !== 'electron' && !isReact(s) },
  main: { layers: ['shared', 'core', 'backend', 'cli', 'main'], pkg: (s) => !isReact(s) },
  preload: { layers: ['shared', 'preload'], pkg: (s) => s === 'electron' },
  renderer: { layers: ['shared', 'renderer'], pkg: (s) => !isBuiltin(s) && s !== 'electron' },
};

// The modules of src/core (its folders and top-level files), lowest rank first. A module
// imports only from itself and from modules of a lower rank; modules of one rank do not
// import each other. So no cycle can form, and every folder or file added to src/core must
// be placed here before the check passes.
const CORE_ORDER = [
  ['counted.ts', 'disk-full.ts', 'paths.ts', 'config.ts'], // leaves: nothing else from core
  ['errors.ts'], // LoomError, with the disk-full sentence
  ['security'], // hard policy, redaction, data fences, permission decisions
  ['store', 'memory', 'audit', 'model'], // the SQLite store, long-term memory, audit log, model client
  ['context', 'tools', 'sync', 'session-lifecycle.ts'], // budget and compaction (store + model); the tools (security, store, memory); sync through a PostgreSQL hub (store, redaction); rename, archive, delete, fork (store)
  ['import'], // other agents' sessions into the store (compaction's boundary message)
  ['agent', 'mcp'], // the loop: tools, permissions, compaction, model calls; the MCP client: its servers' tools as Loom tools
  ['engine.ts'], // LoomEngine, what the front ends use
];
const coreRank = new Map(CORE_ORDER.flatMap((names, rank) => names.map((name) => [name, rank])));

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* walk(full);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name)) yield full;
  }
}

/** The core module a path inside src/core belongs to: its folder, or the file itself. */
function coreModule(target) {
  const [first, ...rest] = path.relative(core, target).split(path.sep);
  if (rest.length) return first;
  // A top-level file, imported without its extension ('../errors') or with one.
  const base = first.replace(/\.(ts|tsx|mts|js|mjs)$/, '');
  return CORE_ORDER.flat().find((name) => name.replace(/\.\w+$/, '') === base) ?? first;
}

/** Why `from` may not import `to` (both core modules), or null when it may. */
function coreRule(from, to) {
  if (from === to || !coreRank.has(from)) return null; // an unplaced module is reported once, by name
  if (!coreRank.has(to)) return `core/${to} is not placed in CORE_ORDER`;
  const a = coreRank.get(from);
  const b = coreRank.get(to);
  if (a > b) return null;
  if (a === b) return `core/${from} and core/${to} share a rank and may not import each other`;
  return `core/${from} is below core/${to} and may not import it`;
}

// An import statement never spans a ';', so a match cannot run on into the next statement.
const importPattern =
  /(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;
const violations = [];

let coreEntries = [];
try {
  coreEntries = readdirSync(core);
} catch {
  /* no src/core in this tree */
}
for (const name of coreEntries) {
  if (!coreRank.has(name) && (statSync(path.join(core, name)).isDirectory() || /\.(ts|tsx|mts)$/.test(name))) {
    violations.push(`${path.relative(root, path.join(core, name))}: not placed in CORE_ORDER (scripts/check-layers.mjs)`);
  }
}

for (const layer of Object.keys(rules)) {
  const dir = path.join(src, layer);
  let files;
  try {
    files = [...walk(dir)];
  } catch {
    continue;
  }
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importPattern)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
      const where = `${path.relative(root, file)}: imports '${spec}'`;
      if (spec.startsWith('.')) {
        const resolved = path.resolve(path.dirname(file), spec);
        const target = path.relative(src, resolved).split(path.sep)[0];
        if (!rules[layer].layers.includes(target)) {
          violations.push(`${where} (${layer} may not reach ${target})`);
        } else if (layer === 'core' && target === 'core') {
          const rule = coreRule(coreModule(file), coreModule(resolved));
          if (rule) violations.push(`${where} (${rule})`);
        }
      } else if (!rules[layer].pkg(spec)) {
        violations.push(`${where} (not allowed in ${layer})`);
      }
    }
  }
}

// One write path per table (src/core/store/repositories/README.md): a statement that
// writes a session table may stand only in the repositories, or in a migration (which
// rewrites rows once, as the schema it moves between needs). Tables of another schema
// (the hub's loom.sessions) are not these; a table name built at run time is not seen.
const REPOSITORIES = path.join(core, 'store', 'repositories');
const MIGRATION = /^migration.*\.ts$/;
const WRITTEN_BY_REPOSITORIES = new Set([
  'sessions',
  'messages',
  'transcript',
  'search_backlog',
  'compactions',
  'model_changes',
  'context_starts',
  'usage',
  'pins',
  'import_files',
  'import_branches',
]);
const writePattern = /\b(?:(?:INSERT|REPLACE)(?:\s+OR\s+\w+)?\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+(?:["`]?(\w+)["`]?\.)?["`]?(\w+)\b/gi;
let sources = [];
try {
  sources = [...walk(src)];
} catch {
  /* no src in this tree */
}
for (const file of sources) {
  const inRepositories = !path.relative(REPOSITORIES, file).startsWith('..');
  const isMigration = path.dirname(file) === path.join(core, 'store') && MIGRATION.test(path.basename(file));
  if (inRepositories || isMigration) continue;
  const written = new Set();
  for (const m of readFileSync(file, 'utf8').matchAll(writePattern)) {
    const [, schema, table] = m;
    if ((schema === undefined || schema.toLowerCase() === 'main') && WRITTEN_BY_REPOSITORIES.has(table.toLowerCase())) written.add(table.toLowerCase());
  }
  for (const table of written) {
    violations.push(`${path.relative(root, file)}: writes ${table} (only src/core/store/repositories may; see its README.md)`);
  }
}

if (violations.length) {
  console.error(`Layering violations (see docs/DESIGN.md#layering):\n  ${violations.join('\n  ')}`);
  process.exit(1);
}
console.log('layers ok');
