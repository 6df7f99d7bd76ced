/**
 * Builds what the end-to-end tests use, once: the UI (out/renderer) and the `loom` command
 * (dist/cli.js, to compare exports with `loom --export`). The tests serve a private copy
 * of the UI, because another run in this checkout rebuilds out/renderer (emptying it
 * first) whenever it starts; the copy is removed when the run ends.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nth } from '../support/elements';

export default function globalSetup(): () => void {
  execFileSync(process.execPath, ['scripts/web.mjs', '--build-only'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build-node.mjs'], { stdio: 'inherit' });
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-e2e-ui-'));
  fs.cpSync('out/renderer', copy, { recursive: true });
  assertComplete(copy);
  process.env.LOOM_E2E_STATIC = copy;
  return () => fs.rmSync(copy, { recursive: true, force: true });
}

/** The page and every file it links to are in the copy (a concurrent build could have emptied the folder mid-copy). */
function assertComplete(dir: string): void {
  const page = path.join(dir, 'index.html');
  const html = fs.existsSync(page) ? fs.readFileSync(page, 'utf8') : '';
  const linked = [...html.matchAll(/(?:src|href)="\.\/([^"]+)"/g)].map((m) => nth(m, 1));
  const missing = linked.filter((file) => !fs.existsSync(path.join(dir, file)));
  if (!html || linked.length === 0 || missing.length) {
    throw new Error(`out/renderer changed while it was copied (another build ran?); run the tests again. Missing: ${missing.join(', ') || 'index.html'}`);
  }
}
