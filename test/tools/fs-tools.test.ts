import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool, globFilesTool, grepTool, readFileTool, writeFileTool } from '../../src/core/tools/fs-tools';
import { MAX_GREP_MATCHES } from '../../src/core/tools/grep-search';
import { MAX_TOOL_ARGUMENT_CHARS, parseToolArguments } from '../../src/core/tools/arguments';
import { toolSpecs } from '../../src/core/tools/index';
import { call, makeHarness, tempDir, type Harness } from './support';

let h: Harness;
let outside: string;

beforeEach(() => {
  h = makeHarness();
  outside = tempDir('loom-outside-');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET outside the project\n');
});
afterEach(() => {
  h.cleanup();
  fs.rmSync(outside, { recursive: true, force: true });
});

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

describe('read_file', () => {
  it('returns numbered lines and says where to continue', async () => {
    h.write('a.txt', lines(250));
    const first = await call(readFileTool, { path: 'a.txt' }, h.ctx);
    expect(first.split('\n')[0]).toBe('1: line 1');
    expect(first).toContain('200: line 200');
    expect(first).not.toContain('201: line 201');
    expect(first).toContain('Continue with offset=201.');
    const rest = await call(readFileTool, { path: 'a.txt', offset: 201 }, h.ctx);
    expect(rest.split('\n')[0]).toBe('201: line 201');
    expect(rest.trimEnd().split('\n').at(-1)).toBe('250: line 250');
    expect(rest).not.toContain('offset=');
  });

  it('honours offset and limit', async () => {
    h.write('a.txt', lines(10));
    expect(await call(readFileTool, { path: 'a.txt', offset: 3, limit: 2 }, h.ctx)).toBe(
      '3: line 3\n4: line 4\n[Lines 3-4 shown; more lines follow. Continue with offset=5.]',
    );
  });

  it('explains an empty file, an offset past the end, a folder and a missing file', async () => {
    h.write('empty.txt', '');
    h.write('three.txt', lines(3));
    fs.mkdirSync(path.join(h.projectDir, 'dir'));
    expect(await call(readFileTool, { path: 'empty.txt' }, h.ctx)).toBe('empty.txt is empty.');
    await expect(call(readFileTool, { path: 'three.txt', offset: 9 }, h.ctx)).rejects.toThrow('three.txt has 3 lines; offset 9 is past the end.');
    await expect(call(readFileTool, { path: 'dir' }, h.ctx)).rejects.toThrow('dir is a directory, not a file.');
    await expect(call(readFileTool, { path: 'nope.txt' }, h.ctx)).rejects.toThrow('File not found: nope.txt.');
  });

  it('refuses a named pipe instead of hanging on it', async () => {
    execFileSync('mkfifo', [path.join(h.projectDir, 'pipe')]);
    await expect(call(readFileTool, { path: 'pipe' }, h.ctx)).rejects.toThrow('pipe is a named pipe (FIFO), not a regular file');
  });

  it('refuses binary files clearly', async () => {
    h.write('img.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
    await expect(call(readFileTool, { path: 'img.png' }, h.ctx)).rejects.toThrow(
      'img.png looks like a binary file (7 bytes); read_file shows text files only.',
    );
  });

  it('cuts a very long line and says how long it was', async () => {
    h.write('min.js', 'x'.repeat(5000));
    const out = await call(readFileTool, { path: 'min.js' }, h.ctx);
    expect(out.length).toBeLessThan(2100);
    expect(out).toContain('[line cut: 5000 characters]');
  });

  it('never reads outside the project folder', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(h.projectDir, 'link.txt'));
    fs.symlinkSync(outside, path.join(h.projectDir, 'linkdir'));
    for (const p of ['../secret.txt', path.join(outside, 'secret.txt'), 'link.txt', 'linkdir/secret.txt', 'sub/../../x']) {
      await expect(call(readFileTool, { path: p }, h.ctx)).rejects.toThrow('is outside the project folder');
    }
  });

  it('rejects out-of-bounds and unknown arguments', () => {
    const bad = (args: object) => parseToolArguments(readFileTool, JSON.stringify(args));
    expect(bad({ path: 'a', offset: 0 })).toMatchObject({ ok: false, error: expect.stringContaining('offset:') });
    expect(bad({ path: 'a', limit: 5000 })).toMatchObject({ ok: false, error: expect.stringContaining('limit:') });
    expect(bad({ path: '' })).toMatchObject({ ok: false, error: expect.stringContaining('path:') });
    expect(bad({ path: 'a', lines: 3 })).toMatchObject({ ok: false, error: expect.stringContaining('unknown field "lines"') });
  });
});

describe('glob_files', () => {
  beforeEach(() => {
    h.write('src/b.ts', '');
    h.write('src/a.ts', '');
    h.write('src/deep/c.ts', '');
    h.write('README.md', '');
    h.write('.github/ci.ts', '');
    h.write('node_modules/pkg/index.ts', '');
    h.write('.git/hooks/x.ts', '');
  });

  it('lists matching files sorted, relative to the project, skipping node_modules and .git', async () => {
    expect(await call(globFilesTool, { pattern: '**/*.ts' }, h.ctx)).toBe(['.github/ci.ts', 'src/a.ts', 'src/b.ts', 'src/deep/c.ts'].join('\n'));
  });

  it('searches node_modules when the pattern names it', async () => {
    expect(await call(globFilesTool, { pattern: 'node_modules/**/*.ts' }, h.ctx)).toBe('node_modules/pkg/index.ts');
  });

  it('searches below path and still shows project-relative paths', async () => {
    expect(await call(globFilesTool, { pattern: '*.ts', path: 'src' }, h.ctx)).toBe('src/a.ts\nsrc/b.ts');
    expect(await call(globFilesTool, { pattern: '*.py' }, h.ctx)).toBe('No files match *.py in ..');
  });

  it('caps the list with a notice', async () => {
    for (let i = 0; i < 510; i++) h.write(`many/f${String(i).padStart(3, '0')}.txt`, '');
    const out = await call(globFilesTool, { pattern: 'many/*.txt' }, h.ctx);
    expect(out.split('\n')).toHaveLength(501);
    expect(out).toContain('[Showing 500 of 510 files; narrow the pattern or path.]');
  });

  it('stays inside the project folder', async () => {
    fs.symlinkSync(outside, path.join(h.projectDir, 'linkdir'));
    expect(await call(globFilesTool, { pattern: '**/*.txt' }, h.ctx)).toBe('No files match **/*.txt in ..');
    await expect(call(globFilesTool, { pattern: '../*' }, h.ctx)).rejects.toThrow('may not contain ".." segments');
    await expect(call(globFilesTool, { pattern: `${outside}/*` }, h.ctx)).rejects.toThrow('must be relative');
    await expect(call(globFilesTool, { pattern: '*', path: '..' }, h.ctx)).rejects.toThrow('outside the project folder');
    await expect(call(globFilesTool, { pattern: '*', path: 'linkdir' }, h.ctx)).rejects.toThrow('outside the project folder');
    await expect(call(globFilesTool, { pattern: '*', path: 'README.md' }, h.ctx)).rejects.toThrow('path must be a folder');
  });
});

describe('grep', () => {
  it('returns file:line: text for each match, relative to the project folder', async () => {
    h.write('src/a.ts', 'const x = 1;\nfunction hello() {}\n');
    h.write('src/b.js', 'hello();\n');
    h.write('notes.md', 'say hello\n');
    expect(await call(grepTool, { pattern: 'hel+o' }, h.ctx)).toBe('notes.md:1: say hello\nsrc/a.ts:2: function hello() {}\nsrc/b.js:1: hello();');
    expect(await call(grepTool, { pattern: 'hello', include: '*.{ts,md}' }, h.ctx)).toBe('notes.md:1: say hello\nsrc/a.ts:2: function hello() {}');
    expect(await call(grepTool, { pattern: 'hello', path: 'src/b.js' }, h.ctx)).toBe('src/b.js:1: hello();');
    expect(await call(grepTool, { pattern: 'absent' }, h.ctx)).toBe('No matches for /absent/ in ..');
  });

  it('rejects an invalid regular expression with a clear message', async () => {
    await expect(call(grepTool, { pattern: 'foo(' }, h.ctx)).rejects.toThrow('pattern is not a valid JavaScript regular expression');
  });

  it('skips binary and huge files and says so', async () => {
    h.write('bin.dat', Buffer.concat([Buffer.from('needle'), Buffer.from([0, 1, 2])]));
    h.write('huge.log', 'needle\n' + 'x'.repeat(2 * 1024 * 1024 + 10));
    h.write('ok.txt', 'needle\n');
    const out = await call(grepTool, { pattern: 'needle' }, h.ctx);
    expect(out).toBe('ok.txt:1: needle\n[Skipped 1 file(s) over 2 MB.]\n[Skipped 1 binary file(s).]');
  });

  it('stops at the match cap with a notice', async () => {
    h.write('many.txt', 'hit\n'.repeat(MAX_GREP_MATCHES + 50));
    const out = await call(grepTool, { pattern: 'hit' }, h.ctx);
    expect(out.split('\n').filter((l) => l.startsWith('many.txt:'))).toHaveLength(MAX_GREP_MATCHES);
    expect(out).toContain(`[Stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern, path or include.]`);
  });

  it('stops a catastrophically backtracking pattern at the tool timeout', async () => {
    // Enough plain files to fill the first matching batch; the slow line comes after them.
    for (let i = 0; i < 70; i++) h.write(`f${String(i).padStart(2, '0')}.txt`, 'plain\n');
    h.write('z.txt', `${'a'.repeat(40)}b\n`);
    const out = await call(grepTool, { pattern: '^(a+)+$|plain' }, { ...h.ctx, toolTimeoutMs: 300 });
    expect(out).toContain('f00.txt:1: plain');
    expect(out).toContain('[grep stopped after 1 s; results are partial.');
  });

  it('never reads files outside the project folder, even through symlinks', async () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(h.projectDir, 'link.txt'));
    fs.symlinkSync(outside, path.join(h.projectDir, 'linkdir'));
    expect(await call(grepTool, { pattern: 'SECRET' }, h.ctx)).toBe('No matches for /SECRET/ in ..');
    await expect(call(grepTool, { pattern: 'SECRET', path: 'link.txt' }, h.ctx)).rejects.toThrow('outside the project folder');
    await expect(call(grepTool, { pattern: 'SECRET', path: '..' }, h.ctx)).rejects.toThrow('outside the project folder');
    await expect(call(grepTool, { pattern: 'x', include: '../*' }, h.ctx)).rejects.toThrow('may not contain ".."');
  });
});

describe('write_file', () => {
  it('creates missing folders, then overwrites', async () => {
    expect(await call(writeFileTool, { path: 'a/b/c.txt', content: 'one\ntwo\n' }, h.ctx)).toBe('Created a/b/c.txt (2 lines, 8 bytes).');
    expect(fs.readFileSync(path.join(h.projectDir, 'a/b/c.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(await call(writeFileTool, { path: 'a/b/c.txt', content: 'é' }, h.ctx)).toBe('Overwrote a/b/c.txt (1 line, 2 bytes).');
    expect(fs.readFileSync(path.join(h.projectDir, 'a/b/c.txt'), 'utf8')).toBe('é');
  });

  it('refuses a folder as the target', async () => {
    fs.mkdirSync(path.join(h.projectDir, 'dir'));
    await expect(call(writeFileTool, { path: 'dir', content: 'x' }, h.ctx)).rejects.toThrow('dir is a directory');
  });

  it('writes nothing outside the project folder', async () => {
    fs.symlinkSync(outside, path.join(h.projectDir, 'linkdir'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(h.projectDir, 'link.txt'));
    for (const p of ['../evil.txt', path.join(outside, 'evil.txt'), 'linkdir/evil.txt', 'link.txt']) {
      await expect(call(writeFileTool, { path: p, content: 'x' }, h.ctx)).rejects.toThrow('outside the project folder');
    }
    expect(fs.readdirSync(outside)).toEqual(['secret.txt']);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET outside the project\n');
  });

  it('bounds the content size: the schema says so, and a call that large is refused whole before it', () => {
    expect(JSON.stringify(toolSpecs([writeFileTool]))).toContain(`"maxLength":${MAX_TOOL_ARGUMENT_CHARS}`);
    const parsed = parseToolArguments(writeFileTool, JSON.stringify({ path: 'a', content: 'x'.repeat(MAX_TOOL_ARGUMENT_CHARS) }));
    expect(parsed).toMatchObject({ ok: false, error: expect.stringContaining('over the limit of 262,144; it was not run') });
  });
});

describe('edit_file', () => {
  it('replaces the first occurrence only, literally', async () => {
    h.write('a.txt', 'alpha\nbeta\nbeta\n');
    expect(await call(editFileTool, { path: 'a.txt', old_string: 'beta', new_string: '$& gamma' }, h.ctx)).toBe(
      'Edited a.txt: replaced the first of 2 occurrences of old_string, at line 2.',
    );
    expect(fs.readFileSync(path.join(h.projectDir, 'a.txt'), 'utf8')).toBe('alpha\n$& gamma\nbeta\n');
    expect(await call(editFileTool, { path: 'a.txt', old_string: 'alpha\n', new_string: '' }, h.ctx)).toBe(
      'Edited a.txt: replaced the only occurrence of old_string, at line 1.',
    );
  });

  it('explains a missing file, a missing string and a no-op edit, changing nothing', async () => {
    h.write('a.txt', 'alpha\n');
    await expect(call(editFileTool, { path: 'b.txt', old_string: 'x', new_string: 'y' }, h.ctx)).rejects.toThrow('File not found: b.txt.');
    await expect(call(editFileTool, { path: 'a.txt', old_string: 'Alpha', new_string: 'y' }, h.ctx)).rejects.toThrow(
      'old_string was not found in a.txt. Read the file and copy the exact text',
    );
    await expect(call(editFileTool, { path: 'a.txt', old_string: 'alpha', new_string: 'alpha' }, h.ctx)).rejects.toThrow(
      'old_string and new_string are identical',
    );
    expect(fs.readFileSync(path.join(h.projectDir, 'a.txt'), 'utf8')).toBe('alpha\n');
    const empty = parseToolArguments(editFileTool, JSON.stringify({ path: 'a.txt', old_string: '', new_string: 'y' }));
    expect(empty).toMatchObject({ ok: false, error: expect.stringContaining('old_string:') });
  });

  it('refuses binary files and paths outside the project', async () => {
    h.write('b.bin', Buffer.from([1, 0, 2]));
    await expect(call(editFileTool, { path: 'b.bin', old_string: 'a', new_string: 'b' }, h.ctx)).rejects.toThrow('looks like a binary file');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(h.projectDir, 'link.txt'));
    await expect(call(editFileTool, { path: 'link.txt', old_string: 'SECRET', new_string: 'pwned' }, h.ctx)).rejects.toThrow('outside the project folder');
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('SECRET outside the project\n');
  });
});
