/**
 * scripts/check-references.mjs on small fixture trees: a citation of the outside design, of
 * a missing docs page or of a missing heading fails with one line each; a tree whose
 * citations all lead into it passes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck, writeTree } from './fixture-tree';

const SCRIPT = path.resolve(__dirname, '../../scripts/check-references.mjs');
// Spelled out of parts, so that the check, which reads this file too, finds in it no
// citation of the outside design nor of the missing pages these fixtures cite.
const SECTION_SIGN = '\u00a7';
const OUTSIDE_DESIGN = path.posix.join('..', 'shared', 'DESIGN.md');
const DOCS = 'docs/';
let root: string;

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  root = writeTree('loom-refs-', files);
  return root;
}

const check = (dir: string) => runCheck(SCRIPT, dir);

const CLEAN = {
  'docs/DESIGN.md': '# Design\n\n## Compaction\n\n### Token estimates\n\n## Export format\n\n```sh\n# not a heading\n```\n',
  'docs/ARCHITECTURE.md': 'See [the rules](DESIGN.md#compaction), [estimates](DESIGN.md#token-estimates) and [the top](#architecture).\n\n# Architecture\n',
  'README.md': 'Read [the design](docs/DESIGN.md#export-format) and [the map](docs/ARCHITECTURE.md).\n',
  'src/core/compactor.ts': '/** Compaction (docs/DESIGN.md#compaction). */\nimport { x } from "../shared/types";\n',
  'test/tools.test.ts': "const file = 'docs/new.md'; // a fixture path, not a citation\n",
};

describe('check-references', () => {
  it('passes a tree whose citations lead into it', () => {
    const result = check(tree(CLEAN));
    expect(result.problems).toEqual([]);
    expect(result.out.trim()).toBe('references ok');
    expect(result.code).toBe(0);
  });

  it('fails on citations of the outside design, one line each', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/cli/options.ts': `/** The command line (DESIGN ${SECTION_SIGN}4). */\n`,
        'bench/context.ts': `// The rules: ${OUTSIDE_DESIGN}\n`,
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      `src/cli/options.ts:1: cites 'DESIGN ${SECTION_SIGN}4', a section of a design outside the repository; cite docs/DESIGN.md#<heading> instead`,
      `bench/context.ts:1: cites '${OUTSIDE_DESIGN}', a document outside the repository; cite docs/DESIGN.md#<heading> instead`,
    ]);
  });

  it('fails on a heading cited by its title, which it cannot follow', () => {
    const result = check(tree({ ...CLEAN, 'src/core/fork.ts': `/** Forks (${DOCS}DESIGN.md, "Branches"). */\n` }));
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      `src/core/fork.ts:1: cites '${DOCS}DESIGN.md, "Branches"', a heading by its title, which this check does not follow; cite docs/DESIGN.md#<heading> instead`,
    ]);
  });

  it('fails on a citation of a missing page or heading', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/core/store.ts': `// ${DOCS}DESIGN.md#sessions-as-a-tree\n// ${DOCS}STORE.md#leases\n// ${DOCS}DESIGN.md#not-a-heading\n`,
        'docs/SECURITY.md': '# Security\n\nSee [the budget](DESIGN.md#budget) and [the store](STORE.md).\n',
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      `src/core/store.ts:1: cites '${DOCS}DESIGN.md#sessions-as-a-tree', but ${DOCS}DESIGN.md has no heading with the anchor #sessions-as-a-tree`,
      `src/core/store.ts:2: cites '${DOCS}STORE.md#leases', but ${DOCS}STORE.md does not exist`,
      `src/core/store.ts:3: cites '${DOCS}DESIGN.md#not-a-heading', but ${DOCS}DESIGN.md has no heading with the anchor #not-a-heading`,
      `docs/SECURITY.md:3: links 'DESIGN.md#budget', but ${DOCS}DESIGN.md has no heading with the anchor #budget`,
      `docs/SECURITY.md:3: links 'STORE.md', but ${DOCS}STORE.md does not exist`,
    ]);
  });
});
