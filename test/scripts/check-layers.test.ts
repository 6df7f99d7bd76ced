/**
 * scripts/check-layers.mjs on small fixture trees: it must fail on a violating import, with
 * one line naming the file, the import and the rule, and pass a clean tree; and fail when the
 * layer tables in docs/ARCHITECTURE.md are not the ones its rules make. Without these, a
 * checker that stopped looking would pass silently.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCheck, writeTree } from './fixture-tree';

const SCRIPT = path.resolve(__dirname, '../../scripts/check-layers.mjs');
let root: string;

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const DOC = 'docs/ARCHITECTURE.md';
const BEGIN = '<!-- layer-tables: made by `node scripts/check-layers.mjs --write-tables`; edit the script, not this block -->';
const END = '<!-- /layer-tables -->';
const EMPTY_DOC = `# Map\n\n## Layers\n\n${BEGIN}\n${END}\n\n## Traces\n`;

const writeTables = (dir: string) => spawnSync(process.execPath, [SCRIPT, '--write-tables', dir], { encoding: 'utf8' });

/** A fixture tree; unless it brings its own, with the doc whose tables the script wrote. */
function tree(files: Record<string, string>): string {
  root = writeTree('loom-layers-', { [DOC]: EMPTY_DOC, ...files });
  if (!(DOC in files)) expect(writeTables(root).status).toBe(0);
  return root;
}

const readDoc = (dir: string) => fs.readFileSync(path.join(dir, DOC), 'utf8');

const check = (dir: string) => runCheck(SCRIPT, dir);

/** Each module of the order importing the one below it, as the real tree does. */
const CLEAN = {
  'src/shared/types.ts': "import { z } from 'zod';\n",
  'src/core/counted.ts': 'export const counted = 1;\n',
  'src/core/errors.ts': "import { counted } from './counted';\n",
  'src/core/security/policy.ts': "import { LoomError } from '../errors';\nimport type { T } from '../../shared/types';\n",
  'src/core/model/client.ts': "import { redact } from '../security/policy';\n",
  'src/core/store/session-store.ts': "import { redact } from '../security/policy';\n",
  'src/core/context/compactor.ts': "import type { ModelClient } from '../model/client';\nimport type { SessionStore } from '../store/session-store';\n",
  'src/core/tools/index.ts': "import {\n  resolve,\n} from '../security/policy';\nimport { other } from './other';\n",
  'src/core/tools/other.ts': '',
  'src/core/agent/loop.ts': "import { ALL_TOOLS } from '../tools/index';\nimport { compact } from '../context/compactor';\n",
  'src/core/engine.ts': "import { runUserTurn } from './agent/loop';\nimport { LoomError } from './errors.js';\n",
  'src/cli/main.ts': "import { LoomEngine } from '../core/engine';\n",
  'src/backend/backend.ts': "import { LoomEngine } from '../core/engine';\nimport type { T } from '../shared/types';\nimport fs from 'node:fs';\n",
  'src/server/http-server.ts': "import { openBackend } from '../backend/backend';\nimport http from 'node:http';\n",
  'src/main/index.ts': "import { openBackend } from '../backend/backend';\nimport { runCommandLine } from '../cli/main';\nimport { app } from 'electron';\n",
};

describe('check-layers', () => {
  it('passes a tree that keeps the order', () => {
    const result = check(tree(CLEAN));
    expect(result.problems).toEqual([]);
    expect(result.out.trim()).toBe('layers ok');
    expect(result.code).toBe(0);
  });

  it('fails on a lower core module importing a higher one, one line per violation', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/core/tools/webfetch.ts': "import { wrapExternalDocument } from '../agent/untrusted';\n",
        'src/core/model/usage.ts': "import { estimate } from '../context/tokens';\n",
        'src/core/errors.ts': "import type { Engine } from './engine';\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems.sort()).toEqual([
      "src/core/errors.ts: imports './engine' (core/errors.ts is below core/engine.ts and may not import it)",
      "src/core/model/usage.ts: imports '../context/tokens' (core/model is below core/context and may not import it)",
      "src/core/tools/webfetch.ts: imports '../agent/untrusted' (core/tools is below core/agent and may not import it)",
    ]);
  });

  it('fails on modules of one rank importing each other', () => {
    const result = check(tree({ ...CLEAN, 'src/core/context/uses-tools.ts': "export { x } from '../tools/index';\n" }));
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      "src/core/context/uses-tools.ts: imports '../tools/index' (core/context and core/tools share a rank and may not import each other)",
    ]);
  });

  it('fails on a folder or file of src/core that the order does not place', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/core/plugins/index.ts': "import { LoomError } from '../errors';\n",
        'src/core/agent/plugins.ts': "import { load } from '../plugins/index';\n",
        'src/core/helpers.ts': '',
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems.sort()).toEqual([
      "src/core/agent/plugins.ts: imports '../plugins/index' (core/plugins is not placed in CORE_ORDER)",
      'src/core/helpers.ts: not placed in CORE_ORDER (scripts/check-layers.mjs)',
      'src/core/plugins: not placed in CORE_ORDER (scripts/check-layers.mjs)',
    ]);
  });

  it('still enforces the layers around core', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/core/window.ts': "import { BrowserWindow } from 'electron';\n",
        'src/renderer/App.tsx': "import { LoomEngine } from '../core/engine';\nimport fs from 'node:fs';\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems.sort()).toEqual([
      "src/core/window.ts: imports 'electron' (not allowed in core)",
      'src/core/window.ts: not placed in CORE_ORDER (scripts/check-layers.mjs)',
      "src/renderer/App.tsx: imports '../core/engine' (renderer may not reach core)",
      "src/renderer/App.tsx: imports 'node:fs' (not allowed in renderer)",
    ]);
  });

  it('keeps the backend transport-neutral, and the HTTP adapter out of main', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/backend/handlers.ts': "import { startBridgeServer } from '../server/http-server';\nimport { ipcMain } from 'electron';\n",
        'src/backend/theme.ts': "import { App } from '../renderer/App';\nimport { createElement } from 'react';\n",
        'src/server/page.ts': "import { renderToString } from 'react-dom/server';\nimport { BrowserWindow } from 'electron';\n",
        'src/main/ipc.ts': "import { startBridgeServer } from '../server/http-server';\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems.sort()).toEqual([
      "src/backend/handlers.ts: imports '../server/http-server' (backend may not reach server)",
      "src/backend/handlers.ts: imports 'electron' (not allowed in backend)",
      "src/backend/theme.ts: imports '../renderer/App' (backend may not reach renderer)",
      "src/backend/theme.ts: imports 'react' (not allowed in backend)",
      "src/main/ipc.ts: imports '../server/http-server' (main may not reach server)",
      "src/server/page.ts: imports 'electron' (not allowed in server)",
      "src/server/page.ts: imports 'react-dom/server' (not allowed in server)",
    ]);
  });

  it('lets only the store repositories (and migrations) write the session tables', () => {
    const result = check(
      tree({
        ...CLEAN,
        'src/core/store/repositories/sessions.ts': "const sql = 'INSERT INTO sessions (id) VALUES (?)';\n",
        'src/core/store/migrations.ts': "const sql = 'UPDATE sessions SET plan = ?';\n",
        'src/core/sync/apply.ts': [
          "const a = 'INSERT INTO messages (role) VALUES (?)';",
          'const b = `UPDATE sessions SET title = ? WHERE pk = ?`;',
          "const c = 'INSERT OR REPLACE INTO main.usage (kind) VALUES (?)';",
          "const d = 'INSERT INTO sync_outbox (kind) VALUES (?)';",
          "const e = 'UPDATE loom.sessions SET hub_seq = $1';",
          "const f = 'SELECT id FROM sessions';",
          '',
        ].join('\n'),
        'src/core/store/search.ts': "const sql = 'delete from search_backlog';\n",
        'src/core/store/session-store.ts': "import { redact } from '../security/policy';\nconst sql = 'REPLACE INTO \"transcript\" VALUES (?)';\n",
      }),
    );
    expect(result.code).toBe(1);
    expect(result.problems.sort()).toEqual([
      'src/core/store/search.ts: writes search_backlog (only src/core/store/repositories may; see its README.md)',
      'src/core/store/session-store.ts: writes transcript (only src/core/store/repositories may; see its README.md)',
      'src/core/sync/apply.ts: writes messages (only src/core/store/repositories may; see its README.md)',
      'src/core/sync/apply.ts: writes sessions (only src/core/store/repositories may; see its README.md)',
      'src/core/sync/apply.ts: writes usage (only src/core/store/repositories may; see its README.md)',
    ]);
  });

  it('writes the layer tables into the doc, between its marks, leaving the rest', () => {
    const doc = readDoc(tree(CLEAN));
    expect(doc.startsWith('# Map\n\n## Layers\n\n')).toBe(true);
    expect(doc.endsWith(`${END}\n\n## Traces\n`)).toBe(true);
    // main may run the command line: the rule every hand-kept copy of the table had left out
    expect(doc).toContain('| `src/main` | backend, cli, core, shared | any but React |');
    expect(doc).toContain('| 8 | `engine.ts` | ranks 1–7 |');
    expect(doc).toContain('| 1 | `counted.ts`, `disk-full.ts`, `paths.ts`, `config.ts` | nothing |');
  });

  it('fails on tables that drifted from the rules, with one line naming the command that remakes them', () => {
    const written = readDoc(tree(CLEAN));
    fs.rmSync(root, { recursive: true, force: true });
    const drifted = written.replace('| `src/main` | backend, cli, core, shared |', '| `src/main` | backend, core, shared |');
    expect(drifted).not.toBe(written);
    const result = check(tree({ ...CLEAN, [DOC]: drifted }));
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([
      'docs/ARCHITECTURE.md: its layer tables differ from scripts/check-layers.mjs; run: node scripts/check-layers.mjs --write-tables',
    ]);
    expect(writeTables(root).status).toBe(0);
    expect(readDoc(root)).toBe(written);
    expect(check(root).code).toBe(0);
  });

  it('fails on a doc without the tables, and will not write them where it has no marks', () => {
    const result = check(tree({ ...CLEAN, [DOC]: '# Map\n' }));
    expect(result.code).toBe(1);
    expect(result.problems).toEqual([`docs/ARCHITECTURE.md: no block of layer tables (${BEGIN} … ${END})`]);
    const write = writeTables(root);
    expect(write.status).toBe(1);
    expect(write.stderr.trim()).toBe(`docs/ARCHITECTURE.md: no block of layer tables (${BEGIN} … ${END})`);
    expect(readDoc(root)).toBe('# Map\n');
  });
});
