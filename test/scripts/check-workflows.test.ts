/** `npm test` validates the GitHub Actions workflows offline (scripts/check-workflows.mjs, @action-validator/cli). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

let dir = '';
afterEach(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

function checkWorkflow(yaml: string) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-workflows-'));
  fs.writeFileSync(path.join(dir, 'ci.yml'), yaml);
  const result = spawnSync(process.execPath, ['scripts/check-workflows.mjs', dir], { encoding: 'utf8' });
  return { code: result.status, output: result.stdout + result.stderr };
}

const job = (steps: string) => `on: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n${steps}`;

describe('the workflow check', () => {
  it('accepts the project’s own workflow', () => {
    const result = spawnSync(process.execPath, ['scripts/check-workflows.mjs'], { encoding: 'utf8' });
    expect(result.stdout).toContain('1 workflow valid');
    expect(result.status).toBe(0);
  });

  it('rejects a workflow the schema refuses', () => {
    const { code, output } = checkWorkflow('on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    stepz: []\n');
    expect(code).toBe(1);
    expect(output).toContain("Additional property 'stepz' is not allowed");
  });

  it('rejects a step that runs a script or an npm script this repository lacks', () => {
    const { code, output } = checkWorkflow(job('      - run: node scripts/no-such-script.mjs\n      - run: npm run no-such-script\n'));
    expect(code).toBe(1);
    expect(output).toContain('runs scripts/no-such-script.mjs, which does not exist');
    expect(output).toContain('runs "npm run no-such-script", which package.json does not define');
  });

  it('accepts a valid workflow whose commands exist', () => {
    expect(checkWorkflow(job('      - run: npm ci\n      - run: npm test\n      - run: node scripts/dist.mjs\n')).code).toBe(0);
  });
});
