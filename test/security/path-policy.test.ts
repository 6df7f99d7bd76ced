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

function refused(p: string, dir = project): LoomError {
  try {
    resolveInsideProject(dir, p);
  } catch (err) {
    expect(err).toBeInstanceOf(LoomError);
    return err as LoomError;
  }
  throw new Error(`"${p}" was accepted`);
}

describe('resolveInsideProject', () => {
  test('relative paths, the project itself and not-yet-existing files resolve inside', () => {
    expect(resolveInsideProject(project, 'src/a.ts')).toBe(path.join(project, 'src', 'a.ts'));
    expect(resolveInsideProject(project, '.')).toBe(project);
    expect(resolveInsideProject(project, '')).toBe(project);
    expect(resolveInsideProject(project, 'new/dir/file.txt')).toBe(path.join(project, 'new', 'dir', 'file.txt'));
    expect(resolveInsideProject(project, 'src/../src/./a.ts')).toBe(path.join(project, 'src', 'a.ts'));
    expect(resolveInsideProject(project, path.join(project, 'src'))).toBe(path.join(project, 'src'));
  });

  test('`..` and absolute paths outside are refused with the path in the message', () => {
    expect(refused('../outside/secret.txt').message).toBe('Path "../outside/secret.txt" is outside the project folder.');
    expect(refused('src/../../outside').message).toContain('outside the project folder');
    expect(refused('/etc/passwd').message).toBe('Path "/etc/passwd" is outside the project folder.');
    expect(refused('..').message).toContain('outside');
    // A sibling whose name merely starts with the project's name is outside too.
    fs.mkdirSync(`${project}-evil`);
    refused(`../project-evil/x`);
  });

  test('a symlink to a folder outside is refused, also for files that do not exist yet', () => {
    fs.symlinkSync(outside, path.join(project, 'link'));
    refused('link/secret.txt');
    refused('link/new-file.txt');
    refused('link/deeper/new/file.txt');
    refused('link');
  });

  test('a symlinked file pointing outside is refused', () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(project, 'innocent.txt'));
    refused('innocent.txt');
  });

  test('a dangling symlink is judged by where writing through it would land', () => {
    fs.symlinkSync(path.join(outside, 'created-by-write.txt'), path.join(project, 'dangling'));
    refused('dangling');
    fs.symlinkSync('src/later.ts', path.join(project, 'dangling-inside'));
    expect(resolveInsideProject(project, 'dangling-inside')).toBe(path.join(project, 'src', 'later.ts'));
  });

  test('`..` after a symlink leaves the link target, as the kernel does', () => {
    fs.mkdirSync(path.join(outside, 'sub'));
    fs.symlinkSync(path.join(outside, 'sub'), path.join(project, 'hop'));
    // Lexically this is project/secret.txt; really it is outside/secret.txt.
    refused('hop/../secret.txt');
  });

  test('symlinks that stay inside the project are followed to their real path', () => {
    fs.symlinkSync(path.join(project, 'src'), path.join(project, 'alias'));
    expect(resolveInsideProject(project, 'alias/a.ts')).toBe(path.join(project, 'src', 'a.ts'));
  });

  test('a project folder reached through a symlink works, and escapes from it are refused', () => {
    const viaLink = path.join(root, 'project-link');
    fs.symlinkSync(project, viaLink);
    expect(resolveInsideProject(viaLink, 'src/a.ts')).toBe(path.join(project, 'src', 'a.ts'));
    refused('../outside/secret.txt', viaLink);
  });

  test('symlink loops and NUL bytes give a clear error', () => {
    fs.symlinkSync('loop-b', path.join(project, 'loop-a'));
    fs.symlinkSync('loop-a', path.join(project, 'loop-b'));
    expect(refused('loop-a/x').message).toMatch(/too many levels of symbolic links/);
    expect(refused('a\0b').message).toMatch(/not a valid path/);
  });
});
