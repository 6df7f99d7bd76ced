/**
 * scripts/check-exports.mjs on small fixture trees: it must name every export no program
 * uses, tell an export kept alive only by its tests from a deliberate seam, and follow the
 * imports the real tree writes (type-only, re-exports, dynamic import()).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck, writeTree } from './fixture-tree';

const SCRIPT = path.resolve(__dirname, '../../scripts/check-exports.mjs');
let root: string;

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function check(files: Record<string, string>) {
  root = writeTree('loom-exports-', files);
  return runCheck(SCRIPT, root);
}

/** Every kind of use the check must follow, each of an export of src/lib.ts or src/lazy.ts. */
const CLEAN = {
  'src/cli/bin.ts': "import { run } from './main';\nexport const entryOnly = run;\n",
  'src/cli/main.ts':
    "import type { Options } from '../lib';\nimport def, { viaJs } from '../lib.js';\nexport { reexported as run } from '../lib';\n" +
    "export async function unusedHere(o: Options) {\n  const { destructured } = await import('../lazy');\n  (await import('../lazy')).accessed();\n" +
    "  void import('../lazy').then((m) => m.viaThen);\n  return [def, viaJs, destructured, o];\n}\n",
  'src/lib.ts':
    'export interface Options { a: number }\nexport default 1;\nexport const viaJs = 1;\nexport const reexported = 2;\n' +
    '/** Its own file uses it; tests reach it directly. */\nexport function seam() { return 1; }\nexport const usesSeam = seam();\n' +
    'export type Local = number;\nexport function typed(x: Local) { return x; }\n',
  'src/lazy.ts': 'export const destructured = 1;\nexport function accessed() {}\nexport const viaThen = 1;\n',
  'bench/index.ts': "import { unusedHere } from '../src/cli/main';\nimport { usesSeam, typed } from '../src/lib';\nvoid [unusedHere, usesSeam, typed];\n",
  'test/lib.test.ts': "import { seam } from '../src/lib';\nvoid seam;\n",
};

describe('check-exports', () => {
  it('passes a tree whose every export has a use it counts', () => {
    const result = check(CLEAN);
    expect(result.problems).toEqual([]);
    expect(result.out.trim()).toBe('exports ok');
    expect(result.code).toBe(0);
  });

  it('names each dead export with its line and what to do', () => {
    const result = check({
      ...CLEAN,
      'src/dead.ts': 'export function nobody() {}\nexport const onlyHere = 1;\nconst local = onlyHere;\nexport { local as renamed };\n',
      'src/tested.ts': 'export function onlyTested() {}\n',
      'src/barrel.ts': "export { onlyTested } from './tested';\n",
      'test/tested.test.ts': "import { onlyTested } from '../src/barrel';\nvoid onlyTested;\n",
    });
    expect(result.code).toBe(1);
    expect(result.problems.sort()).toEqual([
      'src/barrel.ts:1: onlyTested is exported here only for tests: import it from its own file',
      'src/dead.ts:1: nobody is imported nowhere: delete it',
      'src/dead.ts:2: onlyHere is imported nowhere: drop the `export`',
      'src/dead.ts:4: renamed is imported from here nowhere: drop it from the export list',
      'src/tested.ts:1: onlyTested is used only by tests: delete it with them',
    ]);
  });

  it('counts an import it cannot follow as a use of the whole module', () => {
    const result = check({
      ...CLEAN,
      'src/whole.ts': 'export const a = 1;\nexport const b = 2;\n',
      'src/uses-whole.ts': "import * as whole from './whole';\nexport const kept = whole;\n",
      'scripts/build.mjs': "import { kept } from '../src/uses-whole.ts';\nconsole.log(kept);\n",
    });
    expect(result.problems).toEqual([]);
    expect(result.code).toBe(0);
  });
});
