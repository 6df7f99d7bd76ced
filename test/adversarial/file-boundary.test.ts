/**
 * Guarantee 1: file tools stay inside the project. Attacked with real symlinks (a folder
 * pointing at `/`, a link in the middle of a path, a dangling link to outside, folders
 * swapped for links while the tools run and after a write), `..` games and absolute paths,
 * against the real tools and, for the revert, a real backend whose scripted model writes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChangedFiles, RevertedFiles } from '../../src/shared/contract';
import type { SessionMeta } from '../../src/shared/types';
import { HeldFolder, OPEN_CREATE_OR_TRUNCATE, openRegularFile } from '../../src/core/security/project-fs';
import { editFileTool, globFilesTool, grepTool, readFileTool, writeFileTool } from '../../src/core/tools/fs-tools';
import { useModelBackend } from '../bridge/model-backend';
import { call, makeHarness, tempDir, type Harness } from '../tools/support';

let h: Harness;
let outside: string;
const inProject = (...parts: string[]) => path.join(h.projectDir, ...parts);
const outsideFiles = () => fs.readdirSync(outside, { recursive: true }).map(String).sort();

beforeEach(() => {
  h = makeHarness();
  outside = tempDir('loom-g1-outside-');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET outside the project\n');
  fs.mkdirSync(inProject('src'));
  fs.writeFileSync(inProject('src', 'a.ts'), 'export const a = 1;\n');
});
afterEach(() => {
  h.cleanup();
  fs.rmSync(outside, { recursive: true, force: true });
});

/** Every tool call on `paths` is refused as outside, and nothing outside changed. */
async function allRefused(paths: string[]): Promise<void> {
  const before = outsideFiles();
  for (const p of paths) {
    await expect(call(readFileTool, { path: p }, h.ctx), `read ${p}`).rejects.toThrow('outside the project folder');
    await expect(call(writeFileTool, { path: p, content: 'pwned' }, h.ctx), `write ${p}`).rejects.toThrow('outside the project folder');
    await expect(call(editFileTool, { path: p, old_string: 'SECRET', new_string: 'pwned' }, h.ctx), `edit ${p}`).rejects.toThrow('outside the project folder');
    await expect(call(grepTool, { pattern: 'SECRET', path: p }, h.ctx), `grep ${p}`).rejects.toThrow('outside the project folder');
  }
  expect(outsideFiles()).toEqual(before);
  expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET outside the project\n');
}

describe('Guarantee 1: file tools stay inside the project', () => {
  it('grep and glob_files list and read nothing through a symlinked folder pointing at /', async () => {
    fs.symlinkSync('/', inProject('root'));
    for (const pattern of ['root/etc/*', 'root/etc/passwd', 'root/etc/**', '**/passwd', '**/hostname', 'root/**/*.conf']) {
      expect(await call(globFilesTool, { pattern }, h.ctx), pattern).toBe(`No files match ${pattern} in ..`);
    }
    expect(await call(globFilesTool, { pattern: '**/*' }, h.ctx)).toBe('src/a.ts');
    expect(await call(globFilesTool, { pattern: 'etc/*', path: 'src' }, h.ctx)).toBe('No files match etc/* in src.');
    for (const include of ['root/etc/passwd', 'root/etc/*', '*', 'passwd']) {
      expect(await call(grepTool, { pattern: 'root:', include }, h.ctx), include).toMatch(/^No matches for \/root:\/ in \./);
    }
    for (const p of ['root', 'root/etc', 'root/etc/passwd']) {
      await expect(call(globFilesTool, { pattern: '*', path: p }, h.ctx)).rejects.toThrow('outside the project folder');
      await expect(call(grepTool, { pattern: 'root:', path: p }, h.ctx)).rejects.toThrow('outside the project folder');
      await expect(call(readFileTool, { path: p }, h.ctx)).rejects.toThrow('outside the project folder');
    }
  });

  it('a symlink in the middle of a path leads nowhere, even one reached through a link that stays inside', async () => {
    fs.mkdirSync(inProject('deep'));
    fs.symlinkSync(outside, inProject('deep', 'hop'));
    // alias -> deep stays inside; alias/hop then leaves.
    fs.symlinkSync('deep', inProject('alias'));
    // A relative link climbing from src/ to the outside folder (both live in the temp folder).
    fs.symlinkSync(path.relative(inProject('src'), outside), inProject('src', 'up'));
    await allRefused(['deep/hop/secret.txt', 'alias/hop/secret.txt', 'deep/./hop/../hop/secret.txt', 'src/up/secret.txt', 'deep/hop/new/new.txt']);
    expect(await call(grepTool, { pattern: 'SECRET' }, h.ctx)).toBe('No matches for /SECRET/ in ..');
    expect(await call(globFilesTool, { pattern: '**/secret.txt' }, h.ctx)).toBe('No files match **/secret.txt in ..');
  });

  it('a dangling symlink to outside is never written through, whether it names a file or a folder', async () => {
    fs.symlinkSync(path.join(outside, 'created.txt'), inProject('dangling'));
    fs.symlinkSync(path.join(outside, 'new-folder'), inProject('dangling-dir'));
    await allRefused(['dangling', 'dangling-dir/x.txt', 'dangling-dir/a/b/c.txt']);
    expect(fs.existsSync(path.join(outside, 'created.txt'))).toBe(false);
    expect(fs.existsSync(path.join(outside, 'new-folder'))).toBe(false);
    // A symlinked file inside that points outside is not even listed.
    fs.symlinkSync(path.join(outside, 'secret.txt'), inProject('src', 'looks-local.ts'));
    expect(await call(globFilesTool, { pattern: '**/*.ts' }, h.ctx)).toBe('src/a.ts');
  });

  it('`..` games and absolute paths are refused; the same names inside the project work', async () => {
    fs.mkdirSync(`${h.projectDir}-evil`);
    try {
      await allRefused([
        '../outside.txt',
        'src/../../x',
        './../x',
        'src/../src/../..',
        '/etc/passwd',
        '//etc//passwd',
        path.join(outside, 'secret.txt'),
        `${h.projectDir}-evil/x.txt`,
        `${h.projectDir}/../x.txt`,
      ]);
      expect(fs.readdirSync(`${h.projectDir}-evil`)).toEqual([]);
    } finally {
      fs.rmSync(`${h.projectDir}-evil`, { recursive: true, force: true });
    }
    expect(await call(readFileTool, { path: inProject('src', 'a.ts') }, h.ctx)).toBe('1: export const a = 1;');
    expect(await call(readFileTool, { path: 'src/../src/./a.ts' }, h.ctx)).toBe('1: export const a = 1;');
    // On Linux a backslash is part of a name: this lands inside, as one odd file name.
    expect(await call(writeFileTool, { path: '..\\..\\x.txt', content: 'x' }, h.ctx)).toBe('Created ..\\..\\x.txt (1 line, 1 byte).');
    expect(fs.readdirSync(path.dirname(h.projectDir)).sort()).toEqual(['data', 'project']);
  });

  it('a folder renamed and replaced by a symlink after it was opened cannot redirect what is opened in it', async () => {
    const folder = await HeldFolder.openRoot(h.projectDir).then(async (root) => {
      try {
        return await root.folder('src');
      } finally {
        await root.close();
      }
    });
    try {
      fs.renameSync(inProject('src'), inProject('src-moved'));
      fs.symlinkSync(outside, inProject('src'));
      const { handle } = await openRegularFile(folder, 'planted.txt', OPEN_CREATE_OR_TRUNCATE);
      await handle.writeFile('written in the folder that was opened');
      await handle.close();
    } finally {
      await folder.close();
    }
    expect(fs.readFileSync(inProject('src-moved', 'planted.txt'), 'utf8')).toBe('written in the folder that was opened');
    expect(outsideFiles()).toEqual(['secret.txt']);
  });

  it('a folder swapped for a symlink to outside over and over while tools run never lets a call through', async () => {
    fs.mkdirSync(inProject('real'));
    fs.writeFileSync(inProject('real', 'secret.txt'), 'INSIDE\n');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET outside the project\n');
    // d is in turn: the real folder, nothing, a link to outside, nothing.
    const swapper = spawn('bash', ['-c', `while :; do mv -T real d; mv -T d real; ln -s '${outside}' d; rm -rf d; done 2>/dev/null`], {
      cwd: h.projectDir,
      stdio: 'ignore',
    });
    const seen = { refused: 0, readInside: 0 };
    try {
      for (let i = 0; i < 3000 && (i < 300 || seen.refused === 0 || seen.readInside === 0); i++) {
        await attempt(() => call(writeFileTool, { path: 'd/planted.txt', content: 'pwned' }, h.ctx), seen);
        const read = await attempt(() => call(readFileTool, { path: 'd/secret.txt' }, h.ctx), seen);
        if (read !== null) {
          expect(read).toBe('1: INSIDE');
          seen.readInside++;
        }
        const found = await attempt(() => call(grepTool, { pattern: 'SECRET|pwned', path: 'd' }, h.ctx), seen);
        if (found !== null) expect(found).not.toContain('SECRET outside');
      }
    } finally {
      await stop(swapper);
    }
    expect(seen.refused).toBeGreaterThan(0);
    expect(seen.readInside).toBeGreaterThan(0);
    expect(outsideFiles()).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET outside the project\n');
  }, 120_000);
});

/**
 * The tool's output, or null when it refused: a moving target may be missing or not a
 * folder at that instant, but every refusal is a clear LoomError. Counts the refusals
 * that saw the link, to show the race really happened.
 */
async function attempt(run: () => Promise<string>, seen: { refused: number }): Promise<string | null> {
  try {
    return await run();
  } catch (err) {
    expect(err).toHaveProperty('name', 'LoomError');
    if (/outside the project folder|symbolic link/.test((err as Error).message)) seen.refused++;
    return null;
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return exited;
}

describe('Guarantee 1: revert at session end', () => {
  const ctx = useModelBackend({ mode: 'acceptEdits' });
  let victim: string;

  beforeEach(() => {
    victim = tempDir('loom-g1-victim-');
    fs.writeFileSync(path.join(victim, 'victim.txt'), 'VICTIM\n');
    fs.writeFileSync(path.join(victim, 'keep.txt'), 'KEEP\n');
    fs.mkdirSync(path.join(victim, 'dir', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(victim, 'dir', 'deep', 'out.txt'), 'OUTSIDE\n');
    fs.mkdirSync(path.join(victim, 'src'));
    fs.writeFileSync(path.join(victim, 'src', 'app.ts'), 'OUTSIDE APP\n');
  });
  afterEach(() => fs.rmSync(victim, { recursive: true, force: true }));

  const at = (...parts: string[]) => path.join(ctx.projectDir, ...parts);
  const victimState = () =>
    fs
      .readdirSync(victim, { recursive: true })
      .map(String)
      .sort()
      .map((f) => (fs.statSync(path.join(victim, f)).isFile() ? `${f}: ${fs.readFileSync(path.join(victim, f), 'utf8')}` : f));

  it('writes and deletes nothing outside when written paths became symlinks after the write; the rest is reverted', async () => {
    fs.writeFileSync(at('notes.txt'), 'old notes\n');
    fs.writeFileSync(at('ok.txt'), 'old ok\n');
    fs.mkdirSync(at('src'));
    fs.writeFileSync(at('src', 'app.ts'), 'old app\n');
    const session = await ctx.call<SessionMeta>('chat.create', {});
    const write = (p: string) => ({ name: 'write_file', arguments: { path: p, content: `session wrote ${p}\n` } });
    ctx.model.enqueue(
      { toolCalls: [write('notes.txt'), write('made.txt'), write('gen/deep/out.txt'), write('src/app.ts'), write('ok.txt')] },
      { text: 'Done.' },
      { text: 'Writes' },
    );
    expect(await ctx.call('chat.send', { sessionId: session.id, text: 'write things' })).toEqual({ error: null });
    const before = victimState();

    // What a shell command of the model (or anything else) could do after the writes:
    fs.rmSync(at('notes.txt'));
    fs.symlinkSync(path.join(victim, 'victim.txt'), at('notes.txt')); // existed: restoring would write the victim
    fs.rmSync(at('made.txt'));
    fs.symlinkSync(path.join(victim, 'keep.txt'), at('made.txt')); // created: removing would follow to keep.txt
    fs.rmSync(at('gen'), { recursive: true });
    fs.symlinkSync(path.join(victim, 'dir'), at('gen')); // created folders: would delete dir/deep/out.txt
    fs.renameSync(at('src'), at('src-moved'));
    fs.symlinkSync(path.join(victim, 'src'), at('src')); // a folder on the way: would overwrite src/app.ts

    const changes = await ctx.call<ChangedFiles>('chat.changes', { sessionId: session.id });
    expect(changes.files).toEqual(['gen/deep/out.txt', 'made.txt', 'notes.txt', 'ok.txt', 'src/app.ts']);
    const result = await ctx.call<RevertedFiles>('chat.revert', { sessionId: session.id });
    expect(result.reverted).toEqual(['ok.txt']);
    expect(result.leftAlone.map((f) => f.path)).toEqual(['gen/deep/out.txt', 'made.txt', 'notes.txt', 'src/app.ts']);
    for (const file of result.leftAlone) expect(file.reason).toMatch(/symbolic link/);

    expect(victimState()).toEqual(before);
    expect(fs.readFileSync(path.join(victim, 'victim.txt'), 'utf8')).toBe('VICTIM\n');
    expect(fs.readFileSync(at('ok.txt'), 'utf8')).toBe('old ok\n');
    for (const link of ['notes.txt', 'made.txt', 'gen', 'src']) expect(fs.lstatSync(at(link)).isSymbolicLink(), link).toBe(true);
    expect(fs.readFileSync(at('src-moved', 'app.ts'), 'utf8')).toBe('session wrote src/app.ts\n');
  });
});
