// Fails when a layer reaches where it must not (DESIGN §1). Run by `npm test`.
//   shared   -> zod only (and itself)
//   core     -> shared; no electron, no React
//   cli, server -> core, shared; no electron, no React
//   main     -> core, shared, electron; not the renderer
//   preload  -> shared, electron
//   renderer -> shared and browser packages; no Node built-ins, no core, no electron
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const src = path.join(root, 'src');
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isBuiltin = (spec) => spec.startsWith('node:') || builtins.has(spec.split('/')[0]);
const isReact = (spec) => spec === 'react' || spec.startsWith('react-dom') || spec.startsWith('react/');

const rules = {
  shared: { layers: ['shared'], pkg: (s) => s === 'zod' },
  core: { layers: ['shared', 'core'], pkg: (s) => s !== 'electron' && !isReact(s) },
  cli: { layers: ['shared', 'core', 'cli', 'server'], pkg: (s) => s !== 'electron' && !isReact(s) },
  server: { layers: ['shared', 'core', 'server'], pkg: (s) => s !== 'electron' && !isReact(s) },
  main: { layers: ['shared', 'core', 'server', 'main'], pkg: (s) => !isReact(s) },
  preload: { layers: ['shared', 'preload'], pkg: (s) => s === 'electron' },
  renderer: { layers: ['shared', 'renderer'], pkg: (s) => !isBuiltin(s) && s !== 'electron' },
};

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* walk(full);
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name)) yield full;
  }
}

const importPattern = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)/g;
const violations = [];

for (const layer of Object.keys(rules)) {
  const dir = path.join(src, layer);
  let files;
  try { files = [...walk(dir)]; } catch { continue; }
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importPattern)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
      const where = `${path.relative(root, file)}: imports '${spec}'`;
      if (spec.startsWith('.')) {
        const target = path.relative(src, path.resolve(path.dirname(file), spec)).split(path.sep)[0];
        if (!rules[layer].layers.includes(target)) violations.push(`${where} (${layer} may not reach ${target})`);
      } else if (!rules[layer].pkg(spec)) {
        violations.push(`${where} (not allowed in ${layer})`);
      }
    }
  }
}

if (violations.length) {
  console.error(`Layering violations (see docs/ARCHITECTURE.md):\n  ${violations.join('\n  ')}`);
  process.exit(1);
}
console.log('layers ok');
