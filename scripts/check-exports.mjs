// Fails when something src/ exports is used by no other program file: dead code, or an
// `export` that only widens what a reader must keep in mind. Run by `npm test`.
// What counts as a use of an export of a src/ file:
//   - an import (static, `import type`, a re-export, or a dynamic `import()` whose names can
//     be read) from another file of src/, bench/ or scripts/, or from a root *.config.* file:
//     these are the programs that run the product code;
//   - an import from test/, when the exporting file also uses the name itself: the product
//     needs the code, and the export is a deliberate seam for its tests. An export used only
//     by tests is dead product code kept alive by its tests: delete both.
// A type or interface used in its own file may stay exported: it names a parameter or a
// result of an exported function, which a caller may need to write down. A value used only
// in its own file must drop its `export`.
// The exports of the entry points below are used by whoever loads them. An import this check
// cannot follow (`import * as`, `export *`, a dynamic import() kept in a variable) counts as
// a use of every export of its module.
// Usage: node scripts/check-exports.mjs [root]. The root defaults to this repository; the
// tests point it at small fixture trees.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
const PROGRAM_DIRS = ['src', 'bench', 'scripts'];
const TEST_DIR = 'test';
const ENTRY_POINTS = new Set(['src/cli/bin.ts', 'src/main/index.ts', 'src/preload/index.ts', 'src/server/web-main.ts', 'src/renderer/main.tsx']);
// Dead exports let stand for a while, one line each ('file: name'). A listed export that is no
// longer reported fails the check too, so the list cannot outlive its entries.
const KNOWN_EXCEPTIONS = new Set([]);
const SOURCE_FILE = /\.(ts|tsx|mts|js|mjs)$/;
const RESOLVED_SUFFIXES = ['', '.ts', '.tsx', '.mts', '.d.ts', '.js', '.mjs', '/index.ts', '/index.tsx'];
const EVERY_EXPORT = '*';

function* walk(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(full).isDirectory()) yield* walk(full);
    else if (SOURCE_FILE.test(name)) yield full;
  }
}

const relative = (file) => path.relative(root, file).split(path.sep).join('/');

function parse(file) {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, kind);
}

/** The repository file a relative import names ('./x', '../x.js', './dir'), or null for a package. */
function resolveModule(fromFile, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(fromFile), specifier);
  const bases = [base, base.replace(/\.m?js$/, '')]; // TypeScript lets './x.js' name x.ts
  for (const candidate of bases.flatMap((b) => RESOLVED_SUFFIXES.map((suffix) => b + suffix))) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const hasModifier = (node, kind) => ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === kind);

function bindingNames(name) {
  if (ts.isIdentifier(name)) return [name];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : bindingNames(element.name)));
}

/** The names a file exports itself, each with the node that declares it (re-exports included). */
function exportsOf(sourceFile) {
  const found = [];
  for (const statement of sourceFile.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      for (const element of statement.exportClause.elements) found.push({ name: element.name.text, node: element });
    } else if (ts.isExportAssignment(statement)) {
      found.push({ name: 'default', node: statement });
    } else if (hasModifier(statement, ts.SyntaxKind.ExportKeyword)) {
      if (hasModifier(statement, ts.SyntaxKind.DefaultKeyword)) found.push({ name: 'default', node: statement });
      else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          for (const id of bindingNames(declaration.name)) found.push({ name: id.text, node: id });
        }
      } else if (statement.name) found.push({ name: statement.name.text, node: statement.name });
    }
  }
  return found;
}

/** The names an object binding pattern takes: `{ a, b: c }` takes a and b; a rest takes all. */
function destructuredNames(pattern) {
  if (!ts.isObjectBindingPattern(pattern)) return [EVERY_EXPORT];
  return pattern.elements.map((element) => {
    if (element.dotDotDotToken) return EVERY_EXPORT;
    const key = element.propertyName ?? element.name;
    return ts.isIdentifier(key) || ts.isStringLiteral(key) ? key.text : EVERY_EXPORT;
  });
}

/** The names a dynamic `import()` takes, as far as its surroundings show; else every export. */
function dynamicImportNames(call) {
  let node = call;
  if (ts.isAwaitExpression(node.parent)) node = node.parent;
  while (ts.isParenthesizedExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) {
    if (parent.name.text !== 'then') return [parent.name.text]; // (await import('./x')).name
    return thenCallbackNames(parent.parent);
  }
  if (ts.isVariableDeclaration(parent) && parent.initializer === node) return destructuredNames(parent.name); // const { a } = await import()
  return [EVERY_EXPORT];
}

/** `import('./x').then(({ a }) => …)` or `.then((m) => m.a)`: the names the callback takes. */
function thenCallbackNames(thenCall) {
  const callback = ts.isCallExpression(thenCall) ? thenCall.arguments[0] : undefined;
  const parameter = callback && (ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)) ? callback.parameters[0] : undefined;
  if (!parameter) return [EVERY_EXPORT];
  if (!ts.isIdentifier(parameter.name)) return destructuredNames(parameter.name);
  const names = [];
  const visit = (node) => {
    if (ts.isIdentifier(node) && node.text === parameter.name.text && node !== parameter.name) {
      names.push(ts.isPropertyAccessExpression(node.parent) && node.parent.expression === node ? node.parent.name.text : EVERY_EXPORT);
    }
    ts.forEachChild(node, visit);
  };
  visit(callback.body);
  return names;
}

/**
 * Every import in a file: the file it names and the names it takes from it. A named
 * re-export takes nothing itself: it forwards the uses of its names here to the names there.
 */
function importsOf(sourceFile) {
  const found = [];
  const add = (specifier, names, forwards = []) => {
    const target = resolveModule(sourceFile.fileName, specifier);
    if (target) found.push({ target, names, forwards });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.importClause) {
      const { name, namedBindings } = node.importClause;
      const names = name ? ['default'] : [];
      if (namedBindings && ts.isNamespaceImport(namedBindings)) names.push(EVERY_EXPORT);
      else if (namedBindings) names.push(...namedBindings.elements.map((e) => (e.propertyName ?? e.name).text));
      add(node.moduleSpecifier.text, names);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        add(
          node.moduleSpecifier.text,
          [],
          clause.elements.map((e) => ({ as: e.name.text, name: (e.propertyName ?? e.name).text })),
        );
      } else add(node.moduleSpecifier.text, [EVERY_EXPORT]); // export * (as ns) from
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (specifier && ts.isStringLiteralLike(specifier)) add(specifier.text, dynamicImportNames(node));
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const qualifier = node.qualifier && (ts.isIdentifier(node.qualifier) ? node.qualifier : leftmost(node.qualifier));
      add(node.argument.literal.text, [qualifier ? qualifier.text : EVERY_EXPORT]); // import('./x').Name in a type
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function leftmost(name) {
  return ts.isIdentifier(name) ? name : leftmost(name.left);
}

/** Whether the file refers to `name` besides declaring or exporting it (shadowing aside). */
function usedInOwnFile(sourceFile, name, declaration) {
  let used = false;
  const visit = (node) => {
    if (used) return;
    if (ts.isIdentifier(node) && node.text === name && node !== declaration && !isMemberName(node) && !ts.isExportSpecifier(node.parent)) used = true;
    else ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return used;
}

/** `x.name`, `{ name: 1 }`, a class's `name()`: the same word, not a reference. */
function isMemberName(id) {
  const parent = id.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === id) ||
    ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertySignature(parent)) &&
      parent.name === id)
  );
}

/** Adds `kind` to the uses of `name` of `file`; whether that changed anything. */
function markUse(uses, file, name, kind) {
  if (!uses.has(file)) uses.set(file, new Map());
  const use = uses.get(file).get(name) ?? { program: false, test: false };
  uses.get(file).set(name, use);
  if (use[kind]) return false;
  use[kind] = true;
  return true;
}

/** For each file, each name imported from it: whether a program imports it, whether a test does. */
function collectUses(files) {
  const uses = new Map();
  const forwards = [];
  for (const { sourceFile, isTest } of files) {
    for (const { target, names, forwards: forwarded } of importsOf(sourceFile)) {
      if (target === sourceFile.fileName) continue;
      for (const name of names) markUse(uses, target, name, isTest ? 'test' : 'program');
      for (const { as, name } of forwarded) forwards.push({ from: sourceFile.fileName, as, target, name });
    }
  }
  // Re-exports chain (a barrel of a barrel): pass uses along until nothing changes.
  for (let changed = true; changed;) {
    changed = false;
    for (const { from, as, target, name } of forwards) {
      const use = ENTRY_POINTS.has(relative(from)) ? { program: true } : (uses.get(from)?.get(as) ?? uses.get(from)?.get(EVERY_EXPORT));
      for (const kind of ['program', 'test']) if (use?.[kind]) changed = markUse(uses, target, name, kind) || changed;
    }
  }
  return uses;
}

const isTypeDeclaration = (node) => ts.isInterfaceDeclaration(node.parent) || ts.isTypeAliasDeclaration(node.parent);

/** Why an export of a src/ file is dead, or null when it is used. */
function deadExportReason(sourceFile, { name, node }, usesOfFile) {
  const use = usesOfFile?.get(name) ?? usesOfFile?.get(EVERY_EXPORT);
  if (use?.program) return null;
  if (ts.isExportSpecifier(node))
    return use?.test ? 'is exported here only for tests: import it from its own file' : 'is imported from here nowhere: drop it from the export list';
  const local = usedInOwnFile(sourceFile, name, node);
  if (local && (use?.test || isTypeDeclaration(node))) return null;
  if (use?.test) return 'is used only by tests: delete it with them';
  return local ? 'is imported nowhere: drop the `export`' : 'is imported nowhere: delete it';
}

function programFiles() {
  const rootConfigs = readdirSync(root).filter((name) => /\.config\.(ts|mts|js|mjs)$/.test(name));
  const programs = [...PROGRAM_DIRS.flatMap((dir) => [...walk(path.join(root, dir))]), ...rootConfigs.map((name) => path.join(root, name))];
  const tests = [...walk(path.join(root, TEST_DIR))];
  return [...programs.map((file) => ({ file, isTest: false })), ...tests.map((file) => ({ file, isTest: true }))].map((entry) => ({
    ...entry,
    sourceFile: parse(entry.file),
  }));
}

const files = programFiles();
const uses = collectUses(files);
const problems = [];
const excused = new Set();
for (const { file, sourceFile } of files) {
  const where = relative(file);
  if (!where.startsWith('src/') || ENTRY_POINTS.has(where)) continue;
  for (const exported of exportsOf(sourceFile)) {
    const reason = deadExportReason(sourceFile, exported, uses.get(file));
    const line = sourceFile.getLineAndCharacterOfPosition(exported.node.getStart(sourceFile)).line + 1;
    if (!reason) continue;
    if (KNOWN_EXCEPTIONS.has(`${where}: ${exported.name}`)) excused.add(`${where}: ${exported.name}`);
    else problems.push(`${where}:${line}: ${exported.name} ${reason}`);
  }
}
for (const stale of [...KNOWN_EXCEPTIONS].filter((entry) => !excused.has(entry) && existsSync(path.join(root, entry.split(':')[0])))) {
  problems.push(`${stale}: listed in KNOWN_EXCEPTIONS but no longer reported: remove it from the list`);
}

if (problems.length) {
  console.error(`Unused exports (the rule is at the top of scripts/check-exports.mjs):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('exports ok');
