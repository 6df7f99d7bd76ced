import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { LoomError } from '../../src/core/errors';
import { resolveInsideProject } from '../../src/core/security/policy';

let root: string;
let project: string;
let outside: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-path-')));
  project = path.join(root, 'project');
  outside = path.join(root, 'outside');
  fs.mkdirSync(path.join(project, 'src'), { recursive: true });
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(project, 'src', 'a.ts'), 'a');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

async function refused(p: string, dir = project): Promise<LoomError> {
  try {
    await resolveInsideProject(dir, p);
  } catch (err) {
    expect(err).toBeInstanceOf(LoomError);
    return err as LoomError;
  }
  throw new Error(`"${p}" was accepted`);
}

describe('resolveInsideProject', () => {
  test('relative paths, the project itself and not-yet-existing files resolve inside', async () => {
    expect(await resolveInsideProject(project, 'src/a.ts')).toBe(path.join(project, 'src', 'a.ts'));
    expect(await resolveInsideProject(project, '.')).toBe(project);
    expect(await resolveInsideProject(project, '')).toBe(project);
    expect(await resolveInsideProject(project, 'new/dir/file.txt')).toBe(path.join(project, 'new', 'dir', 'file.txt'));
    expect(await resolveInsideProject(project, 'src/../src/./a.ts')).toBe(path.join(project, 'src', 'a.ts'));
    expect(await resolveInsideProject(project, path.join(project, 'src'))).toBe(path.join(project, 'src'));
  });

  test('`..` and absolute paths outside are refused with the path in the message', async () => {
    expect((await refused('../outside/secret.txt')).message).toBe('Path "../outside/secret.txt" is outside the project folder.');
    expect((await refused('src/../../outside')).message).toContain('outside the project folder');
    expect((await refused('/etc/passwd')).message).toBe('Path "/etc/passwd" is outside the project folder.');
    expect((await refused('..')).message).toContain('outside');
    // A sibling whose name merely starts with the project's name is outside too.
    fs.mkdirSync(`${project}-evil`);
    await refused(`../project-evil/x`);
  });

  test('a symlink to a folder outside is refused, also for files that do not exist yet', async () => {
    fs.symlinkSync(outside, path.join(project, 'link'));
    await refused('link/secret.txt');
    await refused('link/new-file.txt');
    await refused('link/deeper/new/file.txt');
    await refused('link');
  });

  test('a symlinked file pointing outside is refused', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(project, 'innocent.txt'));
    await refused('innocent.txt');
  });

  test('a dangling symlink is judged by where writing through it would land', async () => {
    fs.symlinkSync(path.join(outside, 'created-by-write.txt'), path.join(project, 'dangling'));
    await refused('dangling');
    fs.symlinkSync('src/later.ts', path.join(project, 'dangling-inside'));
    expect(await resolveInsideProject(project, 'dangling-inside')).toBe(path.join(project, 'src', 'later.ts'));
  });

  test('`..` after a symlink leaves the link target, as the kernel does', async () => {
    fs.mkdirSync(path.join(outside, 'sub'));
    fs.symlinkSync(path.join(outside, 'sub'), path.join(project, 'hop'));
    // Lexically this is project/secret.txt; really it is outside/secret.txt.
    await refused('hop/../secret.txt');
  });

  test('symlinks that stay inside the project are followed to their real path', async () => {
    fs.symlinkSync(path.join(project, 'src'), path.join(project, 'alias'));
    expect(await resolveInsideProject(project, 'alias/a.ts')).toBe(path.join(project, 'src', 'a.ts'));
  });

  test('a project folder reached through a symlink works, and escapes from it are refused', async () => {
    const viaLink = path.join(root, 'project-link');
    fs.symlinkSync(project, viaLink);
    expect(await resolveInsideProject(viaLink, 'src/a.ts')).toBe(path.join(project, 'src', 'a.ts'));
    await refused('../outside/secret.txt', viaLink);
  });

  test('symlink loops and NUL bytes give a clear error', async () => {
    fs.symlinkSync('loop-b', path.join(project, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(project, 'loop-b'));
    expect((await refused('loop-a/x')).message).toMatch(/too many levels of symbolic links/);
    expect((await refused('a\0b')).message).toMatch(/not a valid path/);
  });
});
