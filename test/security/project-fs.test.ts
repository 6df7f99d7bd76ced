import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import {
  explainFsError,
  HeldFolder,
  inspectProjectPath,
  isRegularOrMissing,
  OPEN_CREATE_OR_TRUNCATE,
  OPEN_READ,
  openProjectFile,
  openProjectFolder,
} from '../../src/core/security/project-fs';

let root: string;
let project: string;
const at = (...parts: string[]) => path.join(project, ...parts);

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loom-pfs-')));
  project = path.join(root, 'project');
  fs.mkdirSync(path.join(project, 'src'), { recursive: true });
  fs.writeFileSync(at('src', 'a.ts'), 'a');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('openProjectFile', () => {
  test('opens a regular file by its real path and says whether it existed; makes folders when asked', async () => {
    const read = await openProjectFile(project, 'src/../src/a.ts', OPEN_READ);
    expect({ abs: read.abs, shown: read.shown, existed: read.existed, size: read.stat.size }).toEqual({
      abs: at('src', 'a.ts'),
      shown: 'src/a.ts',
      existed: true,
      size: 1,
    });
    await read.handle.close();
    const created = await openProjectFile(project, 'new/deep/b.txt', OPEN_CREATE_OR_TRUNCATE, { createFolders: true });
    await created.handle.writeFile('b');
    await created.handle.close();
    expect(created.existed).toBe(false);
    expect(fs.readFileSync(at('new', 'deep', 'b.txt'), 'utf8')).toBe('b');
  });

  test('explains a missing file by the whole path, and the project folder itself', async () => {
    await expect(openProjectFile(project, 'missing/x.txt', OPEN_READ)).rejects.toThrow('File not found: missing/x.txt.');
    await expect(openProjectFile(project, 'src/nope.ts', OPEN_READ)).rejects.toThrow('File not found: src/nope.ts.');
    await expect(openProjectFile(project, '.', OPEN_READ)).rejects.toThrow('. is the project folder, not a file.');
    await expect(openProjectFile(project, 'src', OPEN_READ)).rejects.toThrow('src is a directory, not a file.');
  });

  test('a symlink to a file inside is followed to its real path', async () => {
    fs.symlinkSync('src/a.ts', at('alias.ts'));
    const file = await openProjectFile(project, 'alias.ts', OPEN_READ);
    await file.handle.close();
    expect(file.shown).toBe('src/a.ts');
  });
});

describe('openProjectFolder and HeldFolder', () => {
  test('refuses a component that is a link, or a file, and leaves a missing one to the caller', async () => {
    fs.symlinkSync(at('src'), at('alias'));
    await expect(openProjectFolder(project, ['alias'])).rejects.toThrow('alias is a symbolic link here');
    await expect(openProjectFolder(project, ['src', 'a.ts'])).rejects.toThrow('src/a.ts is not a folder.');
    await expect(openProjectFolder(project, ['nope'])).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(openProjectFolder(project, ['alias', 'made'], { create: true })).rejects.toThrow('symbolic link');
    expect(fs.existsSync(at('src', 'made'))).toBe(false);
  });

  test('only single names are opened in a folder', async () => {
    const folder = await HeldFolder.openRoot(project);
    try {
      for (const name of ['', '.', '..', 'src/a.ts', 'a\0b']) {
        await expect(
          folder.at(name, (p) => fsp.lstat(p)),
          JSON.stringify(name),
        ).rejects.toThrow('is not a single file name');
      }
    } finally {
      await folder.close();
    }
  });

  test('close waits for an operation still resolving a path through the folder', async () => {
    const folder = await openProjectFolder(project, ['src']);
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const late = folder.at('a.ts', async (p) => {
      await gate;
      return fsp.readFile(p, 'utf8');
    });
    let closed = false;
    const closing = folder.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    expect(await late).toBe('a');
    await closing;
    expect(closed).toBe(true);
  });
});

describe('isRegularOrMissing, inspectProjectPath and explainFsError', () => {
  test('tell files, folders, missing names and everything else apart without opening them', async () => {
    execFileSync('mkfifo', [at('pipe')]);
    const folder = await HeldFolder.openRoot(project);
    try {
      expect(await isRegularOrMissing(folder, 'nope')).toBe(false);
      await expect(isRegularOrMissing(folder, 'pipe')).rejects.toThrow('pipe is a named pipe (FIFO), not a regular file');
      await expect(isRegularOrMissing(folder, 'src')).rejects.toThrow('src is a directory, not a file.');
    } finally {
      await folder.close();
    }
    expect(await inspectProjectPath(project, 'src')).toEqual({ root: project, parts: ['src'], shown: 'src', isFolder: true });
    expect((await inspectProjectPath(project, 'src/a.ts')).isFolder).toBe(false);
    expect((await inspectProjectPath(project, '.')).isFolder).toBe(true);
    await expect(inspectProjectPath(project, 'src/nope')).rejects.toThrow('File not found: src/nope.');
  });

  test('errno codes become one sentence naming the path', () => {
    const errno = (code: string) => Object.assign(new Error(code), { code });
    expect(explainFsError(errno('EACCES'), 'a').message).toBe('Permission denied: a.');
    expect(explainFsError(errno('ENXIO'), 'p').message).toBe('p is not a regular file; file tools read and write regular files only.');
    expect(explainFsError(errno('ELOOP'), 'l').message).toMatch(/^l is a symbolic link here/);
    expect(explainFsError(errno('EIO'), 'x').message).toBe('Cannot access x: EIO');
  });
});
