import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { matchingFiles, type WalkRequest } from '../../src/core/tools/project-walk';
import { makeHarness, tempDir, type Harness } from './support';

let h: Harness;
let outside: string;

beforeEach(() => {
  h = makeHarness();
  outside = tempDir('loom-walk-outside-');
  fs.writeFileSync(path.join(outside, 'o.ts'), 'outside');
  for (const f of ['b.ts', 'a.ts', 'src/z.ts', 'src/deep/y.ts', 'node_modules/m/i.ts', 'README.md']) h.write(f, f);
});
afterEach(() => {
  h.cleanup();
  fs.rmSync(outside, { recursive: true, force: true });
});

async function list(pattern: string, more: Partial<WalkRequest> = {}): Promise<string[]> {
  const found: string[] = [];
  const req = { projectDir: h.projectDir, root: h.projectDir, parts: [], pattern, skipFolders: ['node_modules'], signal: h.ctx.signal, ...more };
  for await (const file of matchingFiles(req)) found.push(file.rel);
  return found;
}

describe('matchingFiles', () => {
  it('walks folder by folder in name order, skipping the skipped folders', async () => {
    expect(await list('**/*.ts')).toEqual(['a.ts', 'b.ts', 'src/deep/y.ts', 'src/z.ts']);
    expect(await list('**/*.ts', { skipFolders: [] })).toContain('node_modules/m/i.ts');
    expect(await list('*.ts', { parts: ['src'] })).toEqual(['src/z.ts']);
    expect(await list('deep/*.ts', { parts: ['src'] })).toEqual(['src/deep/y.ts']);
    expect(await list('src/deep/y.ts')).toEqual(['src/deep/y.ts']);
    expect(await list('missing/**')).toEqual([]);
  });

  it('never enters a symlinked folder; lists a symlinked file only when it leads to a regular file inside', async () => {
    fs.symlinkSync(outside, path.join(h.projectDir, 'out'));
    fs.symlinkSync(path.join(h.projectDir, 'src'), path.join(h.projectDir, 'in'));
    fs.symlinkSync('a.ts', path.join(h.projectDir, 'c.ts'));
    fs.symlinkSync(path.join(outside, 'o.ts'), path.join(h.projectDir, 'd.ts'));
    execFileSync('mkfifo', [path.join(h.projectDir, 'e.ts')]);
    expect(await list('**/*.ts')).toEqual(['a.ts', 'b.ts', 'c.ts', 'src/deep/y.ts', 'src/z.ts']);
    expect(await list('out/*.ts')).toEqual([]);
    expect(await list('in/*.ts')).toEqual([]);
  });

  it('opens what it lists as regular files, read-only', async () => {
    for await (const file of matchingFiles({
      projectDir: h.projectDir,
      root: h.projectDir,
      parts: [],
      pattern: 'a.ts',
      skipFolders: [],
      signal: h.ctx.signal,
    })) {
      const { handle, stat } = await file.open();
      expect(stat.isFile()).toBe(true);
      expect(await handle.readFile('utf8')).toBe('a.ts');
      await handle.close();
    }
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(list('**/*', { signal: controller.signal })).rejects.toThrow('The search was cancelled.');
  });
});
