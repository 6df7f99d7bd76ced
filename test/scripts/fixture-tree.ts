/** Shared by the tests of the repository's check scripts: fixture trees and one run of a script. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A tree of files under a fresh temporary root: paths relative to it, each with its source. */
export function writeTree(prefix: string, files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

/** Runs `script` on `dir`: its exit code, stdout, and the problem lines after stderr's heading. */
export function runCheck(script: string, dir: string) {
  const run = spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
  return {
    code: run.status,
    out: run.stdout,
    problems: run.stderr
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter(Boolean),
  };
}
