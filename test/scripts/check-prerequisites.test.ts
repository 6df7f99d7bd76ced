/** `npm test` names what the machine lacks in one line before anything runs (scripts/check-prerequisites.mjs). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function check(env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, ['scripts/check-prerequisites.mjs'], { env, encoding: 'utf8' });
  return { code: result.status, stderr: result.stderr };
}

describe('the prerequisite check', () => {
  it('passes quietly where everything is installed', () => {
    expect(check(process.env)).toEqual({ code: 0, stderr: '' });
  });

  it('names a missing Chromium and a missing bubblewrap in one line, and fails', () => {
    // A PATH holding only node: no bwrap on it.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-prereq-'));
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    try {
      const { code, stderr } = check({ PATH: bin, HOME: bin, LOOM_CHROMIUM: path.join(bin, 'no-chromium') });
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`LOOM_CHROMIUM names ${path.join(bin, 'no-chromium')}, which does not exist`);
      if (process.platform === 'linux') expect(stderr).toContain('no bubblewrap for the shell sandbox (sudo apt-get install -y bubblewrap)');
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });
});
