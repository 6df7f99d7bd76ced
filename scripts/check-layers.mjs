// Fails when a layer reaches where it must not, or a module outside the store's
// repositories writes a session table, or the layer tables of docs/ARCHITECTURE.md#layers
// differ from `rules` and `CORE_ORDER` below, which are their one source (the reasons for
// them are in docs/DESIGN.md#layering). Run by `npm test`.
// Usage: node scripts/check-layers.mjs [--write-tables] [root]. The root defaults to this
// repository; the tests point it at small fixture trees. --write-tables rewrites the tables
// in the doc from the rules instead of checking.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const writeTables = args.includes('--write-tables');
const root = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const src = path.join(root, 'src');
const core = path.join(src, 'core');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

// The kinds of package a rule names, by the name the tables show.
const PACKAGES = {
  zod: (s) => s === 'zod',
  marked: (s) => s === 'marked',
  'highlight.js': (s) => s === 'highlight.js' || s.startsWith('highlight.js/'),
  electron: (s) => s === 'electron',
  React: (s) => s === 'react' || s.startsWith('react-dom') || s.startsWith('react/'),
  'Node built-ins': (s) => s.startsWith('node:') || builtins.has(s.split('/')[0]),
};

// What each layer of src may import: the layers (itself always), and either only some
// packages or any package but some.
const rules = {
  shared: { layers: [], only: ['zod', 'marked', 'highlight.js'] }, // pure JavaScript: the renderer and the HTML export parse Markdown alike
  core: { layers: ['shared'], not: ['electron', 'React'] },
  backend: { layers: ['core', 'shared'], not: ['electron', 'React'] }, // transport-neutral
  server: { layers: ['backend', 'core', 'shared'], not: ['electron', 'React'] }, // the HTTP adapter, browser mode
  cli: { layers: ['backend', 'core', 'shared'], not: ['electron', 'React'] },
  main: { layers: ['backend', 'cli', 'core', 'shared'], not: ['React'] }, // the packaged app runs the command line
  preload: { layers: ['shared'], only: ['electron'] },
  renderer: { layers: ['shared'], not: ['Node built-ins', 'electron'] }, // browser packages
};
const mayReach = (layer, target) => target === layer || rules[layer].layers.includes(target);
function packageAllowed(layer, spec) {
  const { only, not } = rules[layer];
  return only ? only.some((kind) => PACKAGES[kind](spec)) : !not.some((kind) => PACKAGES[kind](spec));
}

// The modules of src/core (its folders and top-level files), lowest rank first. A module
// imports only from itself and from modules of a lower rank; modules of one rank do not
// import each other. So no cycle can form, and every folder or file added to src/core must
// be placed here before the check passes.
const CORE_ORDER = [
  ['counted.ts', 'disk-full.ts', 'paths.ts', 'config.ts'], // leaves: nothing else from core
  ['errors.ts'], // LoomError, with the disk-full sentence
  ['security'], // hard policy, redaction, data fences, permission decisions
  ['store', 'memory', 'audit', 'model', 'agents'], // the SQLite store, long-term memory, audit log, model client, agent definitions
  ['context', 'tools', 'sync', 'session-lifecycle.ts'], // budget and compaction (store + model); the tools (security, store, memory); sync through a PostgreSQL hub (store, redaction); rename, archive, delete, fork (store)
  ['import'], // other agents' sessions into the store (compaction's boundary message)
  ['agent', 'mcp'], // the loop: tools, permissions, compaction, model calls; the MCP client: its servers' tools as Loom tools
  ['engine.ts'], // LoomEngine, what the front ends use
];
const coreRank = new Map(CORE_ORDER.flatMap((names, rank) => names.map((name) => [name, rank])));

// The tables of docs/ARCHITECTURE.md#layers, made from the rules above: the doc holds them
// between these two lines, and the check fails when they differ.
const DOC = path.join(root, 'docs', 'ARCHITECTURE.md');
const TABLES_BEGIN = '<!-- layer-tables: made by `node scripts/check-layers.mjs --write-tables`; edit the script, not this block -->';
const TABLES_END = '<!-- /layer-tables -->';
const code = (names) => names.map((name) => `\`${name}\``).join(', ');

function layerTables() {
  const layerRows = Object.entries(rules).map(([layer, { layers, only, not }]) => {
    const packages = only ? `${only.join(', ')} only` : `any but ${not.join(', ')}`;
    return `| \`src/${layer}\` | ${layers.join(', ') || 'nothing'} | ${packages} |`;
  });
  const rankRows = CORE_ORDER.map((names, rank) => {
    const below = rank === 0 ? 'nothing' : rank === 1 ? 'rank 1' : `ranks 1–${rank}`;
    return `| ${rank + 1} | ${code(names.map((name) => (/\.\w+$/.test(name) ? name : `${name}/`)))} | ${below} |`;
  }).reverse();
  return [
    '| layer | may import, besides itself | packages |',
    '|---|---|---|',
    ...layerRows,
    '',
    '| rank | core modules | may import from core, besides itself |',
    '|---|---|---|',
    ...rankRows,
  ].join('\n');
}

/** The doc's text with its tables block, or an error line when the doc has no block. */
function docTables() {
  let text;
  try {
    text = readFileSync(DOC, 'utf8');
  } catch {
    return { error: `${path.relative(root, DOC)}: missing; it holds the layer tables` };
  }
  const begin = text.indexOf(TABLES_BEGIN);
  const end = text.indexOf(TABLES_END, begin);
  if (begin < 0 || end < 0) return { error: `${path.relative(root, DOC)}: no block of layer tables (${TABLES_BEGIN} … ${TABLES_END})` };
  return { text, from: begin + TABLES_BEGIN.length, to: end };
}

if (writeTables) {
  const doc = docTables();
  if (doc.error) {
    console.error(doc.error);
    process.exit(1);
  }
  writeFileSync(DOC, `${doc.text.slice(0, doc.from)}\n${layerTables()}\n${doc.text.slice(doc.to)}`);
  console.log(`wrote the layer tables of ${path.relative(root, DOC)}`);
  process.exit(0);
}

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
        if (!mayReach(layer, target)) {
          violations.push(`${where} (${layer} may not reach ${target})`);
        } else if (layer === 'core' && target === 'core') {
          const rule = coreRule(coreModule(file), coreModule(resolved));
          if (rule) violations.push(`${where} (${rule})`);
        }
      } else if (!packageAllowed(layer, spec)) {
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

const doc = docTables();
if (doc.error) violations.push(doc.error);
else if (doc.text.slice(doc.from, doc.to).trim() !== layerTables()) {
  violations.push(`${path.relative(root, DOC)}: its layer tables differ from scripts/check-layers.mjs; run: node scripts/check-layers.mjs --write-tables`);
}

if (violations.length) {
  console.error(`Layering violations (see docs/DESIGN.md#layering):\n  ${violations.join('\n  ')}`);
  process.exit(1);
}
console.log('layers ok');
